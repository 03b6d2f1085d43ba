"""Tables in memory, their single writers, durable commits and fan-out.

For each command: the table's lock makes it the only writer; the table
prepares a change (pure); the commit group makes it durable (one SQLite
transaction for everything pending, across tables, in a thread so the event
loop keeps moving); only then is the change kept in memory, the sender
acked, and one patch per audience encoded once and written to every
subscriber of that audience.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
from websockets.asyncio.connection import broadcast
from websockets.asyncio.server import ServerConnection

import vigil.server_words  # noqa: F401 - registers the server's codes
from vigil import auth, jsonpatch, tokens
from vigil.net.config import Config
from vigil.protocol import Error, Patch, Snapshot, encoder
from vigil.rules.dice import SecureDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.outcome import Event, RuleError
from vigil.store.base import LogEntry, Store, TableRecord, TokenRecord
from vigil.table import Change, Table
from vigil.table_commands import ClockPause, ClockRun
from vigil.views import PUBLIC_AUDIENCE, Audience

log = structlog.get_logger("vigil")


class Refused(Exception):
    """A protocol-level refusal (not a rule's)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(eq=False)
class Conn:
    ws: ServerConnection
    role: str = ""
    table: str | None = None
    chars: frozenset[str] = frozenset()
    token_id: str = ""
    label: str = ""
    audience: Audience | None = None
    tokens: float = 0.0
    refilled: float = 0.0
    behind: bool = False
    behind_since: float = 0.0
    expires: float | None = None

    @property
    def actor(self) -> Actor:
        role = "gm" if self.role in ("gm", "operator") else "player"
        return Actor(id=f"{self.label or self.role}#{self.token_id}", role=role)  # type: ignore[arg-type]


@dataclass(eq=False)
class TableHost:
    table: Table
    record: TableRecord
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subs: dict[str, set[Conn]] = field(default_factory=dict)
    audiences: dict[str, Audience] = field(default_factory=dict)
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    idle_since: dict[str, float] = field(default_factory=dict)
    replay: deque[tuple[int, dict[str, bytes]]] = field(default_factory=deque)
    timer: asyncio.TimerHandle | None = None
    tokens: dict[str, TokenRecord] = field(default_factory=dict)
    auto_paused: bool = False
    since_snapshot: int = 0

    def conns(self) -> Iterable[Conn]:
        for group in self.subs.values():
            yield from group

    def gm_count(self) -> int:
        return sum(1 for c in self.conns() if c.role in ("gm",))


class Committer:
    """Commit groups: every entry waiting when the thread is free goes into
    one transaction, so many tables share one fsync in ``full`` mode while
    each ack still waits for its own entries to be durable."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # A store whose commit never waits on the disk (SQLite WAL with
        # synchronous=NORMAL: no fsync) commits on the loop: a thread hop
        # costs more than the commit. One that fsyncs commits in a thread.
        inline = bool(getattr(store, "inline_commits", False))
        self._append_nowait: Callable[[list[LogEntry]], bool] | None = (
            getattr(store, "append_nowait", None) if inline else None
        )
        self._pending: list[tuple[list[LogEntry], asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def commit(self, entries: list[LogEntry]) -> None:
        nowait = self._append_nowait
        if nowait is not None and not self._pending and nowait(entries):
            return  # committed on the spot: nothing to group, nobody to wake
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((entries, future))
        self._wake.set()
        await future

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            entries = [e for group, _ in batch for e in group]
            try:
                nowait = self._append_nowait
                if nowait is None or not nowait(entries):
                    await asyncio.to_thread(self.store.append, entries)
            except Exception as exc:  # every waiter learns its commit failed
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(None)

    async def stop(self) -> None:
        if self._task is not None:
            while self._pending:
                await asyncio.sleep(0.01)
            self._task.cancel()


class Hub:
    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.hosts: dict[str, TableHost] = {}
        self.committer = Committer(store)
        self.dice = SecureDice()
        self.server_key = store.server_secret()
        self.closing = False
        self._operator_tokens: dict[str, TokenRecord] = {}
        # The demo table's tokens on a first start, for the printed banner.
        self.demo_tokens: dict[str, tuple[str, str]] = {}
        self._watchdog: asyncio.Task[None] | None = None
        self._behind: set[Conn] = set()  # connections past their backlog

    # -- lifecycle ----------------------------------------------------------

    async def start(self) -> None:
        """Load every table and arm its timer (restart = recovery)."""
        self.committer.start()
        for record in self.store.tables():
            self._load(record)
        self._watchdog = asyncio.create_task(self._watch_backlogs())

    def _load(self, record: TableRecord) -> TableHost:
        loaded = self.store.load(record.id)
        system = GAMES[record.system]
        table = Table(
            id=record.id,
            system=system,
            epoch=record.epoch,
            rev=loaded.snapshot_rev + len(loaded.tail),
            doc=loaded.doc,
        )
        host = TableHost(table=table, record=record)
        host.tokens = {t.token_id: t for t in self.store.tokens(record.id)}
        host.since_snapshot = len(loaded.tail)
        self.hosts[record.id] = host
        self._arm(host)
        return host

    async def stop(self) -> None:
        """Finish in-flight commands, then stop timers and the committer."""
        self.closing = True
        for host in list(self.hosts.values()):
            async with host.lock:
                if host.timer:
                    host.timer.cancel()
        if self._watchdog:
            self._watchdog.cancel()
        await self.committer.stop()

    # -- tokens -------------------------------------------------------------

    def operator_token(self) -> str:
        return tokens.operator_token(self.store)

    def mint(
        self, host: TableHost, role: auth.Role, chars: list[str], label: str, ttl_days: float | None
    ) -> tuple[str, TokenRecord]:
        """A token for ``host``'s table; lifetimes default per role (DESIGN
        "Security": GM and player 30 days, spectator until revoked)."""
        if ttl_days is None:
            ttl_days = {
                "gm": self.config.gm_token_days,
                "player": self.config.player_token_days,
                "spectator": self.config.spectator_token_days,
            }.get(role)
        token, record = tokens.issue(
            self.store, host.record.key, host.record.id, role, chars, label, ttl_days
        )
        host.tokens[record.token_id] = record
        return token, record

    def authenticate(self, token: str) -> auth.Claims:
        """Verify the signature first; only a validly signed token costs a
        store read, and only when its id is not known yet (minted offline by
        ``vigil token`` while the server runs)."""
        scope = auth.scope_of(token)
        now = time.time()
        if scope == auth.OPERATOR_SCOPE:
            claims = auth.verify(self.server_key, token, now)
            known = self._operator_tokens
        else:
            host = self.hosts.get(scope)
            if host is None:
                raise auth.TokenError("bad_token")
            claims = auth.verify(host.record.key, token, now)
            known = host.tokens
        if claims.token_id not in known:
            known.update({t.token_id: t for t in self.store.tokens(scope)})
        record = known.get(claims.token_id)
        if record is None or record.revoked:
            raise auth.TokenError("token_revoked")
        return claims

    # -- subscribing --------------------------------------------------------

    def subscribe(self, host: TableHost, conn: Conn, resume: tuple[int, int] | None) -> None:
        """Add ``conn`` to its audience and bring it up to date: the missed
        patches from the replay buffer when they are all there, else a
        snapshot."""
        if sum(1 for _ in host.conns()) >= self.config.max_connections_per_table:
            raise Refused("table_full")
        audience = conn.audience or PUBLIC_AUDIENCE
        key = audience.key
        if key not in host.views:
            host.views[key] = host.table.view(audience)
            host.audiences[key] = audience
        host.subs.setdefault(key, set()).add(conn)
        host.idle_since.pop(key, None)
        table = host.table
        if resume is not None and resume[0] == table.epoch and resume[1] <= table.rev:
            missed = [msgs.get(key) for rev, msgs in host.replay if rev > resume[1]]
            first = host.replay[0][0] if host.replay else table.rev + 1
            if resume[1] + 1 >= first and all(m is not None for m in missed):
                for message in missed:
                    self.send(conn, message)  # type: ignore[arg-type]
                return
        self.send_snapshot(host, conn)
        if conn.role == "gm" and host.auto_paused:
            asyncio.get_running_loop().create_task(self._auto_resume(host))

    def send_snapshot(self, host: TableHost, conn: Conn) -> None:
        key = (conn.audience or PUBLIC_AUDIENCE).key
        message = Snapshot(
            table=host.table.id, epoch=host.table.epoch, rev=host.table.rev, state=host.views[key]
        )
        self.send(conn, encoder.encode(message))

    def unsubscribe(self, conn: Conn) -> None:
        host = self.hosts.get(conn.table or "")
        if host is None or conn.audience is None:
            return
        key = conn.audience.key
        group = host.subs.get(key)
        if group is not None:
            group.discard(conn)
            if not group:
                host.idle_since[key] = time.monotonic()
        if (
            conn.role == "gm"
            and host.gm_count() == 0
            and not self.closing
            and host.table.settings.get("pause_without_gm", True)
            and host.table.anchor.mode == "running"
        ):
            asyncio.get_running_loop().create_task(self._auto_pause(host))

    # -- applying -----------------------------------------------------------

    def ctx(self, actor: Actor) -> Ctx:
        return Ctx(dice=self.dice, actor=actor, max_effects=self.config.max_effects_per_advance)

    async def run(
        self,
        host: TableHost,
        actor: Actor,
        make: Callable[[Table, float, Ctx], Change],
        ack: Callable[[Change], None] | None = None,
    ) -> Change:
        """Apply one change made by ``make(table, wall, ctx)`` under the
        table's lock: advance the clock first (its own entry), commit both
        durably, then keep it, ``ack`` the sender, broadcast the patches and
        re-arm the timer — in that order, so a sender sees its ack before the
        patch its command caused."""
        if self.closing:
            raise Refused("shutting_down")
        async with host.lock:
            return await self._apply(host, time.time(), self.ctx(actor), make, ack)

    async def tick(self, host: TableHost) -> None:
        """A timer fired: apply every effect due by now, with nobody asking."""
        async with host.lock:
            try:
                await self._apply(host, time.time(), self.ctx(Actor()), None, None)
            except RuleError as exc:
                # Catching up would exceed the work bound: stop the clock
                # where it is instead of retrying forever; the GM decides.
                log.error("advance_refused", table=host.table.id, code=exc.code)
                params = {"code": exc.code, **exc.params}
                await self._apply(
                    host,
                    time.time(),
                    self.ctx(Actor()),
                    lambda t, w, c: t.halt(w, c, "clock_halted", params),
                    None,
                    advance=False,
                )

    async def _apply(
        self,
        host: TableHost,
        wall: float,
        ctx: Ctx,
        make: Callable[[Table, float, Ctx], Change] | None,
        ack: Callable[[Change], None] | None,
        advance: bool = True,
    ) -> Change:
        """The one path by which a table changes (caller holds its lock).

        Each change is kept in memory and rendered into its per-audience
        patches at once (so the next change sees it, and every rev gets its
        own patch), but nothing is sent until the whole group is durable; if
        the commit fails, table and views roll back as if nothing happened."""
        self._prune(host)
        table = host.table
        before = (table.doc, table.rev, dict(host.views))
        kept: list[Change] = []
        rendered: list[tuple[int, dict[str, bytes]]] = []
        try:
            due = table.advance(wall, self.ctx(Actor())) if advance else None
            if due is not None:
                table.commit(due)
                kept.append(due)
                rendered.append(self._render(host))
            if make is not None:
                change = make(table, wall, ctx)
                table.commit(change)
                kept.append(change)
                rendered.append(self._render(host))
            if not kept:
                self._arm(host)
                return Change("none", "system", table.game_now(wall), None, [], table.doc, [], [])
            entries = self._entries(host, kept)
            await self.committer.commit(entries)
        except BaseException:
            table._load_doc(before[0])
            table.rev = before[1]
            host.views = before[2]
            raise
        if ack is not None:
            ack(kept[-1])
        self._after_commit(host, entries, rendered)
        return kept[-1]

    def _entries(self, host: TableHost, changes: list[Change]) -> list[LogEntry]:
        wall = time.time()
        return [c.entry(host.table.id, host.table.epoch, wall) for c in changes]

    def _after_commit(
        self, host: TableHost, entries: list[LogEntry], rendered: list[tuple[int, dict[str, bytes]]]
    ) -> None:
        for entry in entries:
            log.info(
                "applied",
                table=entry.table,
                rev=entry.rev,
                kind=entry.kind,
                actor=entry.actor,
                events=[e["code"] for e in entry.events],
            )
        for rev, messages in rendered:
            for key, message in messages.items():
                group = host.subs.get(key)
                if group:
                    self._fan_out(group, message)
            host.replay.append((rev, messages))
        while len(host.replay) > self.config.replay_buffer:
            host.replay.popleft()
        host.since_snapshot += len(entries)
        if host.since_snapshot >= self.config.snapshot_every:
            host.since_snapshot = 0
            table = host.table
            doc = msgspec.json.decode(msgspec.json.encode(table.doc))
            asyncio.get_running_loop().create_task(
                asyncio.to_thread(self.store.snapshot, table.id, table.epoch, table.rev, doc)
            )
        self._arm(host)

    def _prune(self, host: TableHost) -> None:
        """Forget audiences nobody has watched for a minute. They are kept
        that long so that a quick reconnect can still be replayed."""
        now = time.monotonic()
        for key, idle in list(host.idle_since.items()):
            if not host.subs.get(key) and now - idle > 60:
                for store in (host.views, host.audiences, host.idle_since):
                    store.pop(key, None)

    def _render(self, host: TableHost) -> tuple[int, dict[str, bytes]]:
        """One view, one diff and one encoding per audience for the table's
        current rev; the same bytes go later to every connection of that
        audience. Every rev reaches every audience, even with no ops for it,
        so a client's revs are gapless and a gap always means a lost patch."""
        table = host.table
        messages: dict[str, bytes] = {}
        # Audiences that see the table the same way (typically every player
        # and the spectators) share one view object, so one diff and one
        # encoding serve them all; the memo diffs each pair of objects that
        # several views share once. ``olds`` keeps every old view alive until
        # the end, so that no id() in the keys is reused meanwhile.
        olds = dict(host.views)
        memo: jsonpatch.Memo = {}
        built: dict[tuple[str, ...], dict[str, Any]] = {}
        made: dict[tuple[int, tuple[str, ...]], bytes] = {}
        for key, old in olds.items():
            audience = host.audiences[key]
            sight = table.sight(audience)
            view = built.get(sight)
            if view is None:
                view = built[sight] = table.view(audience)
            message = made.get((id(old), sight))
            if message is None:
                ops = jsonpatch.diff(old, view, memo=memo)
                patch = Patch(table=table.id, epoch=table.epoch, rev=table.rev, ops=ops)
                message = made[(id(old), sight)] = encoder.encode(patch)
            host.views[key] = view
            messages[key] = message
        return table.rev, messages

    def _fan_out(self, group: Iterable[Conn], message: bytes) -> None:
        ready = []
        for conn in group:
            if conn.behind:
                continue
            transport = conn.ws.transport
            if transport is not None and transport.get_write_buffer_size() > self.config.backlog_bytes:
                # Past the backlog this client gets a snapshot when it drains
                # (or is dropped), never a gap in its patches.
                conn.behind = True
                conn.behind_since = time.monotonic()
                self._behind.add(conn)
                continue
            ready.append(conn.ws)
        broadcast(ready, message, text=True)

    def send(self, conn: Conn, message: bytes) -> None:
        """Queue one message for one connection, without waiting on it."""
        self._fan_out([conn], message)

    async def _watch_backlogs(self) -> None:
        """Every half second, only the connections marked behind: one that
        drained gets a snapshot, one stalled too long is dropped."""
        while True:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for conn in list(self._behind):
                host = self.hosts.get(conn.table or "")
                group = host.subs.get((conn.audience or PUBLIC_AUDIENCE).key) if host else None
                if host is None or not group or conn not in group or not conn.behind:
                    self._behind.discard(conn)  # gone (or caught up) meanwhile
                    continue
                transport = conn.ws.transport
                size = transport.get_write_buffer_size() if transport else 0
                if size <= self.config.backlog_bytes // 4:
                    conn.behind = False
                    self._behind.discard(conn)
                    self.send_snapshot(host, conn)
                elif now - conn.behind_since > self.config.stall_seconds:
                    log.warning("dropping_stalled", table=host.table.id, token=conn.token_id)
                    if transport:
                        transport.abort()

    def _arm(self, host: TableHost) -> None:
        if host.timer is not None:
            host.timer.cancel()
            host.timer = None
        if self.closing:
            return
        wake = host.table.next_wake()
        if wake is None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, wake - time.time())
        host.timer = loop.call_later(delay, lambda: loop.create_task(self.tick(host)))

    async def _auto_pause(self, host: TableHost) -> None:
        try:
            await self.run(host, Actor(), lambda t, w, c: _auto(t, ClockPause(), w, c, "clock_auto_paused"))
            host.auto_paused = True
        except (RuleError, Refused):
            pass

    async def _auto_resume(self, host: TableHost) -> None:
        if not host.auto_paused:
            return
        host.auto_paused = False
        with contextlib.suppress(RuleError, Refused):
            await self.run(host, Actor(), lambda t, w, c: t.prepare(ClockRun(rate=t.anchor.rate), w, c))

    # -- tables -------------------------------------------------------------

    async def create_table(
        self,
        system: str,
        name: str,
        options: dict[str, Any],
        table_id: str | None,
        doc: dict[str, Any] | None = None,
    ) -> TableHost:
        table_id = table_id or secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        if table_id in self.hosts:
            raise Refused("table_exists", table=table_id)
        wall = time.time()
        if doc is None:
            table = Table.new(table_id, GAMES[system], name, options, wall)
        else:
            table = Table(id=table_id, system=GAMES[system], epoch=1, rev=0, doc=doc)
        record = TableRecord(id=table_id, system=system, name=name, key=auth.new_key(), epoch=1, created=wall)
        await asyncio.to_thread(self.store.create_table, record, table.doc)
        host = TableHost(table=table, record=record)
        self.hosts[table_id] = host
        self._arm(host)
        return host

    def error(
        self, code: str, params: dict[str, Any], msg_id: str | None, message: str | None = None
    ) -> bytes:
        from vigil.rules.words import english_error

        text = message or english_error(code, params)
        return encoder.encode(Error(id=msg_id, code=code, message=text, params=_plain(params)))


def _auto(table: Table, body: Any, wall: float, ctx: Ctx, code: str) -> Change:
    change = table.prepare(body, wall, ctx)
    change.events.insert(0, Event(code=code, at=change.game))
    return change


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    """Error parameters as plain JSON (anything unusual becomes its str)."""
    plain: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(params, enc_hook=str))
    return plain
