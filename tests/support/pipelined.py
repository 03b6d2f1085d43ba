"""A test client that survives its node going away, as a real client does
(foundry-module/scripts/core/client.js): on any close it reconnects to a
random live node, resumes from its ``{table, epoch, rev}`` and sends its
unanswered commands again with the same ids; ``outcome_unknown`` (and
``table_unavailable``, ``rate_limited``: nothing was applied) is answered by
sending the same command again. The server deduplicates by token id and
message id, so none of this may apply a command twice — which is what the
failover tests check, from the acks this client records.

Anything a correct cluster never does is recorded in ``failures`` (a gap in
the revs, a patch of a rev already seen, a snapshot older than the view, a
second ack of one command at another rev, an error that is no "try again",
a final close) rather than raised, so that the test reports all of it at
the end.

Reconnecting goes on until ``close()``; every wait takes a timeout, so the
tests' own bounds end it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from vigil import treepatch
from vigil.close_codes import CloseCode

# The errors after which the same command is sent again: nothing was applied
# (table_unavailable, rate_limited), or nobody knows (outcome_unknown).
AGAIN = frozenset({"outcome_unknown", "table_unavailable", "rate_limited"})
# The pause before such a resend, and between two connection attempts.
RESEND_DELAY = 0.2
RECONNECT_DELAY = (0.05, 0.3)
OPEN_TIMEOUT = 5.0
WAIT = 60.0


@dataclass
class Pending:
    """A command sent and not answered yet."""

    message: dict[str, Any]
    future: asyncio.Future[dict[str, Any]]
    sends: int = 0


@dataclass
class Stats:
    connects: int = 0
    refused_hellos: int = 0
    resends: int = 0
    again: dict[str, int] = field(default_factory=dict)
    repeated_acks: int = 0
    # Acks of a rev the view already had: the command was applied before
    # the connection that sent it again (its patch came with the resume),
    # and the owner answered the repeated id from its memory of the log.
    from_log: int = 0


class ReconnectingClient:
    def __init__(
        self, name: str, token: str, urls: Callable[[], list[str]], rng: random.Random | None = None
    ) -> None:
        self.name = name
        self.token = token
        self.urls = urls  # the nodes it may connect to now
        self.rng = rng or random.Random(name)
        self.token_id: str | None = None
        self.table: str | None = None
        self.state: dict[str, Any] | None = None
        self.epoch = 0
        self.rev = 0
        self.pending: dict[str, Pending] = {}
        self.acks: dict[str, dict[str, Any]] = {}  # msg id -> its (first) ack
        self.failures: list[str] = []
        self.stats = Stats()
        self.url: str | None = None  # the node of the connection welcomed last
        self._ws: ClientConnection | None = None  # welcomed and open
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # sends and closes, kept until done
        self._closing = False

    # -- use ---------------------------------------------------------------

    async def start(self, timeout: float = WAIT) -> ReconnectingClient:
        """Connect (retrying) and wait for the first view of the table."""
        self._task = asyncio.create_task(self._run())
        await self.wait_for(lambda c: c.state is not None, timeout)
        return self

    def send(self, body: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send a command; the future is its ack (once, whatever the
        reconnects and resends in between), or fails with a refusal."""
        msg_id = f"{self.name}-{next(self._ids)}"
        message: dict[str, Any] = {"type": "cmd", "id": msg_id, "body": body}
        if self.table is not None:
            message["table"] = self.table
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        pending = Pending(message, future)
        self.pending[msg_id] = pending
        if self._ws is not None:
            self._write(self._ws, pending)
        return future

    def request(self, msg_id: str) -> str:
        """What the log names a command of this client by (vigil.net.commands)."""
        assert self.token_id is not None
        return f"{self.token_id}/{self.name}/{msg_id}"

    async def wait_for(self, predicate: Callable[[ReconnectingClient], bool], timeout: float = WAIT) -> None:
        async def loop() -> None:
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def close(self) -> None:
        self._closing = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for pending in self.pending.values():
            if not pending.future.done():
                pending.future.cancel()

    # -- the connection loop ------------------------------------------------

    async def _run(self) -> None:
        while not self._closing:
            urls = self.urls()
            if urls:
                await self._session(self.rng.choice(urls))
            if not self._closing:
                await asyncio.sleep(self.rng.uniform(*RECONNECT_DELAY))

    async def _session(self, url: str) -> None:
        """One connection: hello (resuming), then frames until it closes."""
        try:
            ws = await connect(url, max_size=2**22, open_timeout=OPEN_TIMEOUT, ping_interval=None)
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI):
            return
        try:
            resume = None
            if self.table is not None and self.state is not None:
                resume = {"table": self.table, "epoch": self.epoch, "rev": self.rev}
            hello = {
                "type": "hello",
                "protocol": 1,
                "token": self.token,
                "resume": resume,
                "session": self.name,
            }
            await ws.send(json.dumps(hello))
            async for frame in ws:
                self._handle(ws, url, json.loads(frame))
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None
            code = ws.close_code
            if code is not None and code in {int(c) for c in CloseCode if c.final}:
                self.failures.append(f"{self.name}: closed {code} {ws.close_reason!r} by {url}")
            self._changed.set()

    def _write(self, ws: ClientConnection, pending: Pending) -> None:
        pending.sends += 1
        if pending.sends > 1:
            self.stats.resends += 1
        self._spawn(self._send(ws, json.dumps(pending.message)))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(ws: ClientConnection, data: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(data)

    def _handle(self, ws: ClientConnection, url: str, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "welcome":
            self.stats.connects += 1
            if self.token_id is not None and msg.get("token_id") != self.token_id:
                self.failures.append(f"{self.name}: welcomed as {msg.get('token_id')} by {url}")
            self.token_id = msg.get("token_id")
            if self.table is not None and msg.get("table") != self.table:
                self.failures.append(f"{self.name}: welcomed to table {msg.get('table')} by {url}")
            self.table = msg.get("table")
            self._ws, self.url = ws, url
            for pending in list(self.pending.values()):
                pending.message.setdefault("table", self.table)
                self._write(ws, pending)
        elif kind == "snapshot":
            if self.state is not None and msg["epoch"] == self.epoch and msg["rev"] < self.rev:
                self.failures.append(f"{self.name}: snapshot at rev {msg['rev']} after {self.rev} ({url})")
            self.state, self.epoch, self.rev = msg["state"], msg["epoch"], msg["rev"]
        elif kind == "patch":
            if self.state is None or msg["rev"] != self.rev + 1:
                self.failures.append(f"{self.name}: patch rev {msg['rev']} after {self.rev} ({url})")
                self._spawn(ws.close())  # resume from where the view is
                return
            self.state = treepatch.apply_tree(self.state, msg["changes"])
            self.rev = msg["rev"]
        elif kind == "ack":
            self._acked(msg)
        elif kind == "error":
            self._refused(ws, url, msg)
        self._changed.set()

    def _acked(self, msg: dict[str, Any]) -> None:
        msg_id = msg["id"]
        first = self.acks.get(msg_id)
        if first is not None:
            # Sent again (outcome_unknown, a reconnect) and answered twice:
            # the second must be the first ack, not a second application.
            self.stats.repeated_acks += 1
            if first.get("rev") != msg.get("rev"):
                self.failures.append(
                    f"{self.name}: {msg_id} acked at rev {first.get('rev')} and {msg.get('rev')}"
                )
            return
        self.acks[msg_id] = msg
        if msg.get("rev") is not None and msg["rev"] <= self.rev:
            self.stats.from_log += 1
        pending = self.pending.pop(msg_id, None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(msg)

    def _refused(self, ws: ClientConnection, url: str, msg: dict[str, Any]) -> None:
        code = msg.get("code", "")
        msg_id = msg.get("id")
        if msg_id is None:  # a refused hello (the close follows) or a note
            self.stats.refused_hellos += 1
            if code not in AGAIN:
                self.failures.append(f"{self.name}: hello refused {code} by {url}")
            return
        pending = self.pending.get(msg_id)
        if pending is None:
            return  # answered already (a late outcome_unknown)
        if code in AGAIN:
            self.stats.again[code] = self.stats.again.get(code, 0) + 1
            asyncio.get_running_loop().call_later(RESEND_DELAY, self._again, ws, pending)
            return
        self.failures.append(f"{self.name}: {msg_id} refused {code} {msg.get('params')} by {url}")
        del self.pending[msg_id]
        if not pending.future.done():
            pending.future.set_exception(AssertionError(f"{msg_id} refused: {code}"))

    def _again(self, ws: ClientConnection, pending: Pending) -> None:
        """Send again on the same connection, if it is still the one (a new
        one sends every pending command after its welcome anyway)."""
        if self.pending.get(pending.message["id"]) is pending and self._ws is ws:
            self._write(ws, pending)
