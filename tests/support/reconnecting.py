"""A test client that reconnects as the Foundry module's client core does
(foundry-module/scripts/core/client.js), for the tests where a node or the
bus goes away under a client.

After a close that is not final (1013 "try again later", 1001, a dropped
socket: vigil.close_codes.FINAL says which are) it opens a new connection,
resumes from its view's ``{table, epoch, rev}`` (the server replays what it
missed, or sends a snapshot) and sends again every command it has had no
answer to, with the same id: the table's owner answers a repeated id with
its first ack and never applies it twice. A command answered
``outcome_unknown`` is sent again the same way after a pause (250 ms,
doubling). Every command thus ends with an answer, an ack or a refusal,
and :class:`Outcome` says how it got there; a reconnect or an answer that
never comes fails the test after a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.client import WAIT, Client
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from vigil.close_codes import FINAL

# How long a reconnect may take, over every attempt, before the test fails.
RECONNECT_BOUND = 30.0
# How often a command answered outcome_unknown is sent again at most, and
# the first pause before it is (doubling, up to the last).
UNKNOWN_RESENDS = 8
UNKNOWN_PAUSES = (0.25, 0.5, 1.0, 2.0)
# How long a command may wait for its answer, across reconnects and resends.
ANSWER_BOUND = 60.0


class _Connection(Client):
    """One connection of a reconnecting client: answers go to ``listener``."""

    listener: Callable[[dict[str, Any]], None] | None = None

    def handle(self, msg: dict[str, Any]) -> None:
        super().handle(msg)
        if self.listener is not None and msg["type"] in ("ack", "error") and msg.get("id") is not None:
            self.listener(msg)


@dataclass
class Outcome:
    """How a command ended: its answer (an ack or a refusal), how many
    times it was sent, and how many ``outcome_unknown`` answers came first."""

    id: str
    answer: dict[str, Any]
    sends: int
    unknown: int
    answered_at: float  # time.monotonic()

    @property
    def acked(self) -> bool:
        return bool(self.answer["type"] == "ack")


@dataclass
class _Pending:
    message: dict[str, Any]
    future: asyncio.Future[Outcome]
    sends: int = 0
    unknown: int = 0


@dataclass(eq=False)
class Reconnecting:
    url: str
    token: str
    name: str  # prefixes its message ids (clients may share a token), and is its session
    client: Client | None = None
    reconnects: int = 0
    # The close code of every connection it lost (None: dropped without one).
    closes: list[int | None] = field(default_factory=list)
    pending: dict[str, _Pending] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    # A view that went wrong on any of its connections (a gap in the revs).
    failures: list[Exception] = field(default_factory=list)
    _keeper: asyncio.Task[None] | None = None
    _resends: set[asyncio.Task[None]] = field(default_factory=set)
    _closing: bool = False

    @classmethod
    async def open(cls, url: str, token: str, name: str) -> Reconnecting:
        self = cls(url=url, token=token, name=name)
        await self._connect()
        self._keeper = asyncio.create_task(self._keep())
        return self

    @property
    def view(self) -> Client:
        """The current connection (its view is carried from one to the next)."""
        assert self.client is not None
        return self.client

    @property
    def token_id(self) -> str:
        assert self.client is not None and self.client.welcome is not None
        return str(self.client.welcome["token_id"])

    # -- connecting -----------------------------------------------------------

    async def _connect(self) -> None:
        """A connection resuming from the last one's view, within the bound;
        then every unanswered command again, with its id."""
        prior = self.client
        resume: dict[str, int | str] | None = None
        if prior is not None and prior.table is not None:
            resume = {"table": prior.table, "epoch": prior.epoch, "rev": prior.rev}
        deadline = time.monotonic() + RECONNECT_BOUND
        pause = 0.1
        while True:
            try:
                client = await _Connection.open(
                    self.url, self.token, resume=resume, prior=prior, session=self.name
                )
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
                client = None
            if client is not None and client.welcome is not None:
                break
            if client is not None:
                await asyncio.wait_for(client.ws.wait_closed(), WAIT)
                code = client.ws.close_code
                if code in FINAL:
                    raise AssertionError(f"{self.name}: refused for good ({code}): {client.errors}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: no connection within {RECONNECT_BOUND}s")
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)
        assert isinstance(client, _Connection)
        client.listener = self._answered
        self.client = client
        for pending in list(self.pending.values()):
            await self._send(pending)

    async def _keep(self) -> None:
        """Reconnect each time the connection is lost, unless for good."""
        while not self._closing:
            client = self.view
            # The reader ends once the connection is closed (what came
            # before the close handled first), or once the view went wrong.
            if client._reader is not None:
                await asyncio.gather(client._reader, return_exceptions=True)
            if _wrong(client):
                assert client.failure is not None
                self.failures.append(client.failure)
                await client.ws.close()  # not left unread: settle() reports it
                for pending in self.pending.values():
                    if not pending.future.done():
                        pending.future.set_exception(client.failure)
                return
            await client.ws.wait_closed()
            if self._closing:
                return
            code = client.ws.close_code
            self.closes.append(code)
            if code in FINAL:
                for pending in self.pending.values():
                    pending.future.set_exception(ConnectionError(f"{self.name}: closed for good ({code})"))
                return
            self.reconnects += 1
            try:
                await self._connect()
            except AssertionError as failure:
                for pending in self.pending.values():
                    if not pending.future.done():
                        pending.future.set_exception(failure)
                return

    async def close(self) -> None:
        self._closing = True
        if self.client is not None:
            await self.client.close()
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper

    # -- commands -------------------------------------------------------------

    async def command(self, body: dict[str, Any]) -> Outcome:
        """Send ``body`` to the client's table; its outcome, however many
        connections and sends it takes."""
        msg_id = f"{self.name}-{next(self._ids)}"
        message = {"type": "cmd", "id": msg_id, "table": self.view.table, "body": body}
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        pending = self.pending[msg_id] = _Pending(message, future)
        await self._send(pending)
        try:
            return await asyncio.wait_for(future, ANSWER_BOUND)
        finally:
            self.pending.pop(msg_id, None)

    async def _send(self, pending: _Pending) -> None:
        """On the current connection; one that is closing has it sent again
        by the next."""
        pending.sends += 1
        with contextlib.suppress(ConnectionClosed):
            await self.view.ws.send(json.dumps(pending.message))

    def _answered(self, msg: dict[str, Any]) -> None:
        pending = self.pending.get(msg["id"])
        if pending is None or pending.future.done():
            return  # a repeated id answered twice: the first answer counts
        if msg["type"] == "error" and msg["code"] == "outcome_unknown" and pending.unknown < UNKNOWN_RESENDS:
            pause = UNKNOWN_PAUSES[min(pending.unknown, len(UNKNOWN_PAUSES) - 1)]
            pending.unknown += 1
            asyncio.get_running_loop().call_later(pause, self._resend, msg["id"])
            return
        outcome = Outcome(msg["id"], msg, pending.sends, pending.unknown, time.monotonic())
        pending.future.set_result(outcome)

    def _resend(self, msg_id: str) -> None:
        pending = self.pending.get(msg_id)
        if pending is not None and not pending.future.done():
            task = asyncio.get_running_loop().create_task(self._send(pending))
            self._resends.add(task)
            task.add_done_callback(self._resends.discard)

    # -- the view -------------------------------------------------------------

    async def settle(self, predicate: Callable[[Client], bool], bound: float = WAIT) -> None:
        """Wait until the view satisfies ``predicate``, across reconnects."""
        deadline = time.monotonic() + bound
        while not (self.client is not None and not _wrong(self.client) and predicate(self.client)):
            if self.failures or (self.client is not None and _wrong(self.client)):
                raise AssertionError(
                    f"{self.name}: its view went wrong: {self.failures or self.view.failure}"
                )
            if self._keeper is not None and self._keeper.done():
                self._keeper.result()
                raise AssertionError(f"{self.name}: closed for good ({self.closes})")
            assert time.monotonic() < deadline, f"{self.name}: view at rev {self.view.rev} after {bound}s"
            await asyncio.sleep(0.05)


def _wrong(client: Client) -> bool:
    """Whether ``client``'s view went wrong (a closed connection is no failure)."""
    return client.failure is not None and not isinstance(client.failure, ConnectionClosed)
