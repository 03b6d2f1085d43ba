"""The load generator: every GM, player and spectator as a real WebSocket
connection (websockets asyncio client, compression off), commands sent on
an open-loop schedule, and each command's latency measured from its
scheduled send time until the last connection of its table has received
the patch of its ``rev``.

Latency counts from the *scheduled* time, so a generator or server that
falls behind shows it in the figures (no coordinated omission).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import random
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from bench import workload
from bench.lean_client import Closed, LeanConnection
from bench.procs import ServerProc, cpu_times, self_cpu
from vigil import jsonpatch, treepatch
from vigil.protocol import PROTOCOL_VERSION


class Lean(msgspec.Struct):
    """The only fields the generator reads from most frames."""

    type: str
    rev: int | None = None
    id: str | None = None
    code: str | None = None


_lean = msgspec.json.Decoder(Lean)
_enc = msgspec.json.Encoder()


def wire_bytes(payload: int) -> int:
    """A server→client frame on the wire: payload plus the unmasked header."""
    return payload + (2 if payload < 126 else 4 if payload < 65536 else 10)


@dataclass(eq=False)
class Conn:
    ws: LeanConnection
    table: TableRun
    role: str
    char: str | None = None
    rev: int = -1
    is_gm: bool = False  # the table's GM view is kept from this connection's frames
    node: str = ""  # the server it is connected to (cluster runs: bench.cluster)


@dataclass(eq=False)
class Rec:
    id: str
    table: TableRun
    char: str | None  # None: a table-level command
    category: str
    scheduled: float
    sent: float = 0.0
    rev: int | None = None
    tags: tuple[str, ...] = ()  # figures kept apart for it too (Phase.tagged)


@dataclass(eq=False)
class TableRun:
    id: str
    system: str
    chars: list[str]
    owners: dict[str, str]  # char -> player token
    gm_token: str
    spectator_token: str
    player_tokens: list[tuple[str, str | None]]  # (token, char it owns)
    conns: list[Conn] = field(default_factory=list)
    gm: Conn | None = None
    owner_conn: dict[str, Conn] = field(default_factory=dict)
    view: dict[str, Any] | None = None
    seen: dict[int, int] = field(default_factory=dict)
    waiting: dict[int, list[Rec]] = field(default_factory=dict)
    done_rev: int = -1
    busy: set[str] = field(default_factory=set)
    table_busy: bool = False
    local: dict[str, workload.CharLocal] = field(default_factory=dict)


@dataclass(eq=False)
class Want:
    """A connection to open. Only a ``primary`` one is the table's GM view
    (``TableRun.gm``) or its character's player (``TableRun.owner_conn``);
    another is an extra copy on some server (bench.cluster)."""

    table: TableRun
    role: str
    token: str
    char: str | None
    url: str
    node: str = ""
    primary: bool = True


# (user, system) CPU seconds of something measured over each phase.
Meter = Callable[[], tuple[float, float]]


def _pct(ms: list[float], p: float) -> float | None:
    """The ``p`` quantile of sorted ``ms``."""
    return round(ms[min(len(ms) - 1, int(p * len(ms)))], 3) if ms else None


@dataclass
class Phase:
    """Figures of one measured stretch (fixed rate or one ramp step)."""

    rate: float
    duration: float
    scheduled: int = 0
    sent: int = 0
    completed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    send_lag: list[float] = field(default_factory=list)
    unsent: int = 0
    unfinished: int = 0
    backlog: list[int] = field(default_factory=list)
    patch_msgs: int = 0
    patch_bytes: int = 0
    single_patch_msgs: int = 0
    single_patch_bytes: int = 0
    categories: Counter[str] = field(default_factory=Counter)
    gen_cpu: float = 0.0
    server_cpu: float = 0.0
    server_sys: float = 0.0
    wall: float = 0.0
    cpu_by: dict[str, float] = field(default_factory=dict)  # per Generator.meters name
    tagged: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    tag_errors: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        ms = sorted(x * 1000 for x in self.latencies)

        def pct(p: float) -> float | None:
            return _pct(ms, p)

        done = max(self.completed + sum(self.errors.values()), 1)
        return {
            "rate": self.rate,
            "seconds": self.duration,
            "scheduled": self.scheduled,
            "sent": self.sent,
            "completed": self.completed,
            "errors": sum(self.errors.values()),
            "error_codes": dict(self.errors),
            "unsent": self.unsent,
            "unfinished": self.unfinished,
            "p50_ms": pct(0.50),
            "p95_ms": pct(0.95),
            "p99_ms": pct(0.99),
            "max_ms": round(ms[-1], 3) if ms else None,
            "achieved_per_s": round(self.completed / self.duration, 1) if self.duration else 0,
            "backlog_samples": self.backlog,
            "send_lag_p99_ms": (
                round(sorted(self.send_lag)[int(0.99 * (len(self.send_lag) - 1))] * 1000, 3)
                if self.send_lag
                else None
            ),
            "patch_msgs": self.patch_msgs,
            "bytes_per_patch": round(self.patch_bytes / self.patch_msgs, 1) if self.patch_msgs else None,
            "server_cpu_s": round(self.server_cpu, 3),
            "server_cpu_us_per_cmd": round(self.server_cpu / done * 1e6, 1),
            "server_sys_us_per_cmd": round(self.server_sys / done * 1e6, 1),
            "gen_cpu_s": round(self.gen_cpu, 3),
            "gen_cpu_us_per_cmd": round(self.gen_cpu / done * 1e6, 1),
            "gen_cpu_share": round(self.gen_cpu / self.wall, 3) if self.wall else None,
            "server_cpu_share": round(self.server_cpu / self.wall, 3) if self.wall else None,
            "categories": dict(self.categories),
            "cpu_s_by": {name: round(cpu, 3) for name, cpu in self.cpu_by.items()},
            "by_tag": {tag: self._tag_summary(tag) for tag in sorted({*self.tagged, *self.tag_errors})},
        }

    def _tag_summary(self, tag: str) -> dict[str, Any]:
        ms = sorted(x * 1000 for x in self.tagged.get(tag, ()))
        return {
            "completed": len(ms),
            "errors": self.tag_errors[tag],
            "p50_ms": _pct(ms, 0.50),
            "p99_ms": _pct(ms, 0.99),
        }


class Generator:
    def __init__(self, server: ServerProc, tables: list[TableRun], spectators: int, seed: int = 7) -> None:
        self.server = server
        self.spectators = spectators
        self.tables = tables
        self.rng = random.Random(seed)
        self.inflight: dict[str, Rec] = {}
        self.ids = itertools.count(1)
        self.phase: Phase | None = None
        self.by_system: dict[str, list[TableRun]] = {}
        for t in tables:
            self.by_system.setdefault(t.system, []).append(t)
        self.categories = [c for c, (w, systems, _d) in workload.MIX.items() if self._fits(systems)]
        self.weights = [workload.MIX[c][0] for c in self.categories]
        self.loop = asyncio.get_running_loop()
        self.failures: list[str] = []
        # What each phase measures the CPU of, and which of them are "the
        # server" (summed into server_cpu); a cluster run adds its nodes,
        # Redis and PostgreSQL (bench.cluster).
        self.meters: dict[str, Meter] = {"server": functools.partial(cpu_times, server.pid)}
        self.server_meters: tuple[str, ...] = ("server",)

    def _fits(self, systems: tuple[str, ...]) -> bool:
        return any(s in self.by_system for s in systems)

    # -- connections --------------------------------------------------------

    def _wants(self) -> list[Want]:
        """Every table's GM, players and spectators, on the one server."""
        url = self.server.ws_url
        wants: list[Want] = []
        for t in self.tables:
            wants.append(Want(t, "gm", t.gm_token, None, url))
            for token, char in t.player_tokens:
                wants.append(Want(t, "player", token, char, url))
            spectators = range(self._spectators(t))
            wants.extend(Want(t, "spectator", t.spectator_token, None, url) for _ in spectators)
        return wants

    async def connect_all(self, concurrency: int = 32) -> int:
        gate = asyncio.Semaphore(concurrency)

        async def one(want: Want) -> None:
            t, role, char = want.table, want.role, want.char
            async with gate:
                for attempt in range(5):
                    try:
                        ws = await LeanConnection.open(want.url)
                        break
                    except (OSError, Closed):
                        if attempt == 4:
                            raise
                        await asyncio.sleep(0.2 * (attempt + 1))
                hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "token": want.token}
                ws.send_text(_enc.encode(hello))
                welcome = msgspec.json.decode(await ws.recv())
                if welcome.get("type") != "welcome":
                    raise RuntimeError(f"refused: {welcome}")
                snapshot = msgspec.json.decode(await ws.recv())
                primary = want.primary
                is_gm = role == "gm" and primary
                conn = Conn(ws, t, role, char, rev=snapshot["rev"], is_gm=is_gm, node=want.node)
                if conn.is_gm:
                    t.gm = conn
                    t.view = snapshot["state"]
                if char is not None and primary:
                    t.owner_conn[char] = conn
                t.conns.append(conn)
                ws.on_message = functools.partial(self._on_message, conn)

        await asyncio.gather(*(one(want) for want in self._wants()))
        for t in self.tables:
            revs = {c.rev for c in t.conns}
            if len(revs) != 1:
                raise RuntimeError(f"table {t.id}: connections at different revs {revs}")
            t.done_rev = revs.pop()
        return sum(len(t.conns) for t in self.tables)

    def _spectators(self, t: TableRun) -> int:
        return self.spectators

    def closed_by_server(self) -> dict[str, int]:
        """How many connections the server closed so far, by code and reason
        (none, unless something went wrong: the generator does not reconnect,
        so their tables' commands stop finishing)."""
        return dict(Counter(r for t in self.tables for c in t.conns if (r := c.ws.closed_by_server)))

    async def close(self) -> None:
        conns = [c for t in self.tables for c in t.conns]
        for i in range(0, len(conns), 200):
            await asyncio.gather(*(c.ws.close() for c in conns[i : i + 200]))

    # -- receiving ----------------------------------------------------------

    def _on_message(self, conn: Conn, data: bytes) -> None:
        try:
            self._frame(conn, data)
        except Exception as exc:  # surfaced in the report, never silent
            self.failures.append(f"{type(exc).__name__}: {exc}")

    def _frame(self, conn: Conn, data: bytes) -> None:
        msg = _lean.decode(data)
        kind = msg.type
        if kind == "patch":
            phase = self.phase
            if conn.is_gm:
                full = msgspec.json.decode(data)
                table = conn.table
                assert table.view is not None
                if "changes" in full:
                    treepatch.apply_tree(table.view, full["changes"])
                else:  # the baseline server's one RFC 6902 op
                    table.view = jsonpatch.apply(table.view, full["ops"])
            if phase is not None:
                size = wire_bytes(len(data))
                phase.patch_msgs += 1
                phase.patch_bytes += size
            self._advance(conn, msg.rev or 0)
        elif kind == "ack":
            rec = self.inflight.get(msg.id or "")
            if rec is not None:
                rec.rev = msg.rev
                t = rec.table
                if msg.rev is None or msg.rev <= t.done_rev:
                    self._finish(rec, time.perf_counter(), None)
                else:
                    t.waiting.setdefault(msg.rev, []).append(rec)
        elif kind == "error":
            rec = self.inflight.get(msg.id or "")
            if rec is not None:
                self._finish(rec, time.perf_counter(), msg.code or "error")
        elif kind == "snapshot":
            if conn.is_gm:
                conn.table.view = msgspec.json.decode(data)["state"]
            self._advance(conn, msg.rev or 0)

    def _advance(self, conn: Conn, rev: int) -> None:
        t = conn.table
        n = len(t.conns)
        seen = t.seen
        for r in range(conn.rev + 1, rev + 1):
            count = seen.get(r, 0) + 1
            if count >= n:
                seen.pop(r, None)
                t.done_rev = r
                for rec in t.waiting.pop(r, ()):
                    self._finish(rec, time.perf_counter(), None)
            else:
                seen[r] = count
        if rev > conn.rev:
            conn.rev = rev

    def _finish(self, rec: Rec, now: float, error: str | None) -> None:
        self.inflight.pop(rec.id, None)
        t = rec.table
        if rec.char is None:
            t.table_busy = False
        else:
            t.busy.discard(rec.char)
        phase = self.phase
        if phase is None:
            return
        if error is not None:
            phase.errors[error] += 1
        else:
            phase.completed += 1
            phase.latencies.append(now - rec.scheduled)
        for tag in rec.tags:
            if error is None:
                phase.tagged[tag].append(now - rec.scheduled)
            else:
                phase.tag_errors[tag] += 1

    # -- sending ------------------------------------------------------------

    def _pick(self, scheduled: float) -> tuple[Rec, Conn, dict[str, Any]] | None:
        category = self.rng.choices(self.categories, self.weights)[0]
        systems = workload.MIX[category][1]
        pool = [t for s in systems for t in self.by_system.get(s, ())]
        for _ in range(8):
            t = self.rng.choice(pool)
            if category == "clock_combat":
                if t.table_busy:
                    continue
                local = t.local.setdefault("", workload.CharLocal())
                body = workload.table_command(t.view, local)
                assert t.gm is not None
                t.table_busy = True
                rec = Rec(f"b{next(self.ids)}", t, None, category, scheduled)
                return rec, self._route(rec, t.gm), body
            idle = [c for c in t.chars if c not in t.busy]
            if not idle:
                continue
            char = self.rng.choice(idle)
            local = t.local.setdefault(char, workload.CharLocal())
            owner = t.owner_conn.get(char)
            choice = workload.choose(category, t.system, char, owner is not None, t.view, local)
            sender = owner if (choice.by_owner and owner is not None) else t.gm
            assert sender is not None
            t.busy.add(char)
            rec = Rec(f"b{next(self.ids)}", t, char, category, scheduled)
            return rec, self._route(rec, sender), choice.body
        return None

    def _route(self, rec: Rec, sender: Conn) -> Conn:
        """The connection that sends ``rec`` (chosen for it: ``sender``);
        a cluster run may send it on another node's copy and tag it."""
        return sender

    async def run_phase(self, rate: float, duration: float, drain: float = 5.0) -> Phase:
        """Send ``rate`` commands/s for ``duration`` s on a fixed schedule,
        then wait up to ``drain`` s for the last ones to complete."""
        phase = Phase(rate=rate, duration=duration)
        self.phase = phase
        cpu0, wall0 = self_cpu(), time.perf_counter()
        before = {name: meter() for name, meter in self.meters.items()}
        start = time.perf_counter() + 0.02
        total = int(rate * duration)
        phase.scheduled = total
        due: deque[float] = deque()
        i = 0
        next_sample = start + 1.0
        give_up = start + duration + 2.0
        while i < total or due:
            now = time.perf_counter()
            while i < total and start + i / rate <= now:
                due.append(start + i / rate)
                i += 1
            while due:
                picked = self._pick(due[0])
                if picked is None:
                    break
                due.popleft()
                rec, sender, body = picked
                phase.categories[rec.category] += 1
                message = {"type": "cmd", "id": rec.id, "table": rec.table.id, "body": body}
                self.inflight[rec.id] = rec
                rec.sent = time.perf_counter()
                phase.send_lag.append(rec.sent - rec.scheduled)
                phase.sent += 1
                try:
                    sender.ws.send_text(_enc.encode(message))
                except Closed:
                    self._finish(rec, time.perf_counter(), "connection_closed")
            if now >= next_sample:
                phase.backlog.append(len(self.inflight) + len(due))
                next_sample += 1.0
            if now > give_up:
                phase.unsent = len(due) + (total - i)
                break
            wake = start + i / rate if i < total else now + 0.001
            await asyncio.sleep(min(max(wake - time.perf_counter(), 0.0005), 0.01))
        phase.backlog.append(len(self.inflight))
        end = time.perf_counter() + drain
        while self.inflight and time.perf_counter() < end:
            await asyncio.sleep(0.01)
        phase.unfinished = len(self.inflight)
        phase.wall = time.perf_counter() - wall0
        phase.gen_cpu = self_cpu() - cpu0
        for name, meter in self.meters.items():
            (user0, sys0), (user1, sys1) = before[name], meter()
            phase.cpu_by[name] = (user1 - user0) + (sys1 - sys0)
            if name in self.server_meters:
                phase.server_cpu += phase.cpu_by[name]
                phase.server_sys += sys1 - sys0
        self.phase = None
        # Forget what never finished so that its characters are usable again.
        for rec in list(self.inflight.values()):
            self._finish(rec, time.perf_counter(), None)
        return phase

    async def probe_single_field(self) -> tuple[int, int] | None:
        """One GM command that changes exactly one field of every audience's
        view (a DRYH table's hope, via ``correct``): its patch size on the
        wire at a spectator, and how many members it changes."""
        tables = self.by_system.get("dryh") or self.tables
        t = tables[0]
        hope = int(((t.view or {}).get("game") or {}).get("hope", 0))
        body = {"type": "correct", "field": "hope", "value": (hope + 1) % 50}
        assert t.gm is not None
        data = await self._patch_at_spectator(t, t.gm, body)
        return wire_bytes(len(data)), changed_members(msgspec.json.decode(data))

    async def probe_rest_toggle(self) -> dict[str, int] | None:
        """A Pain & Mettle player's rest start and stop (``mettle.rest_start``
        / ``rest_stop`` from the connection of the character's owner): each
        patch's size on the wire at a spectator. The character's rest ends
        as it began. None without a Pain & Mettle table with a player."""
        for t in self.by_system.get("mettle", ()):
            for char, owner in t.owner_conn.items():
                sheet = (((t.view or {}).get("characters") or {}).get(char) or {}).get("sheet") or {}
                order = ("rest_stop", "rest_start") if sheet.get("resting") else ("rest_start", "rest_stop")
                sizes: dict[str, int] = {}
                for kind in order:
                    body = {"type": f"mettle.{kind}", "char": char}
                    sizes[kind] = wire_bytes(len(await self._patch_at_spectator(t, owner, body)))
                return sizes
        return None

    async def _patch_at_spectator(self, t: TableRun, sender: Conn, body: dict[str, Any]) -> bytes:
        """Send one command from ``sender``; the patch of its rev as a
        spectator of its table received it (another rev's patch, a timer's,
        is not it). Refused: RuntimeError."""
        spectator = next((c for c in t.conns if c.role == "spectator"), t.conns[-1])
        probe_id = f"probe{next(self.ids)}"
        patches: dict[int, bytes] = {}
        reply: asyncio.Future[int] = self.loop.create_future()
        changed = asyncio.Event()
        original = self._frame

        def spy(conn: Conn, data: bytes) -> None:
            if conn is spectator and b'"patch"' in data:
                patches[_lean.decode(data).rev or 0] = data
                changed.set()
            elif conn is sender and not reply.done():
                msg = _lean.decode(data)
                if msg.id == probe_id and msg.type == "ack" and msg.rev is not None:
                    reply.set_result(msg.rev)
                elif msg.id == probe_id:
                    reply.set_exception(RuntimeError(f"probe {body['type']} refused: {data[:200]!r}"))
            original(conn, data)

        async def patch_of(rev: int) -> bytes:
            while rev not in patches:
                changed.clear()
                await changed.wait()
            return patches[rev]

        self._frame = spy  # type: ignore[method-assign]
        try:
            message = {"type": "cmd", "id": probe_id, "table": t.id, "body": body}
            sender.ws.send_text(_enc.encode(message))
            rev = await asyncio.wait_for(reply, 10)
            return await asyncio.wait_for(patch_of(rev), 10)
        finally:
            self._frame = original  # type: ignore[method-assign]


def changed_members(patch: dict[str, Any]) -> int:
    """How many members a patch sets or removes: the leaves of Vigil's
    ``changes`` tree, or the ops of the baseline's RFC 6902 patch."""
    if "changes" not in patch:
        return len(patch.get("ops", ()))

    def leaves(tree: dict[str, Any]) -> int:
        return sum(leaves(change) if isinstance(change, dict) else 1 for change in tree.values())

    return leaves(patch["changes"])
