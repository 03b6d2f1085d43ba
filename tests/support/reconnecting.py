"""A test client that survives its node, or the bus, going away under it, as
the Foundry module's client core does (foundry-module/scripts/core/client.js):
the one reconnecting client of the cluster tests.

What it follows of client.js, the public behaviour a real client relies on:
after a close that is not final (1013 "try again later", 1001, a dropped
socket; vigil.close_codes.FINAL says which are final) it connects again, to
any node it may use now, after a pause that doubles (with jitter) until a
welcome; it resumes from its view's ``{table, epoch, rev}``, so that the
server replays what it missed or sends a snapshot; and it sends again, with
the same ids, every command it has had no answer to. An ``outcome_unknown``
answer is sent again the same way after a pause (250 ms, doubling). The
owner of a table answers a repeated id with its first ack and never applies
it twice (vigil.net.writer), so none of this may apply a command twice —
which is what the cluster tests check, from what this client records.

Where it goes beyond client.js, for the tests: it also sends again after
``table_unavailable`` and ``rate_limited`` (nothing was applied; a person
would click again), and every :class:`Outcome` says which of these answers
came first, so that a test that must never see one can say so. A final
close ends it, as it ends client.js. A view is kept by
:class:`tests.support.client.Client` (one per connection, each resuming
from the last one's view), whose patches must come in rev order.

Commands may be pipelined: :meth:`ReconnectingClient.send` returns at once,
with a future of the command's outcome. Anything a correct cluster never
does is recorded in ``failures`` rather than raised, so that a test
reports all of it at the end: a gap in the revs or a patch of a rev already
seen (the view then resumes from where it was), a snapshot older than the
view, one command acknowledged at two revs (or after a refusal), a refusal
that is no "try again" or one left after every resend, a hello refused for
good or a final close. Every wait is bounded, in count and in time: a
reconnect that takes more than ``RECONNECT_BOUND`` ends the client (its
commands fail), a wait for an answer or a view more than its timeout fails
the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from tests.support.client import WAIT, Client
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from vigil.close_codes import FINAL

# The errors after which the same command is sent again: nothing was applied
# (table_unavailable, bus_unavailable, store_unavailable, rate_limited), or
# nobody knows (outcome_unknown).
AGAIN = frozenset(
    {"outcome_unknown", "table_unavailable", "bus_unavailable", "store_unavailable", "rate_limited"}
)
# How often a command is sent again after such an answer at most, and the
# pauses before it (doubling, up to the last).
AGAIN_RESENDS = 8
AGAIN_PAUSES = (0.25, 0.5, 1.0, 2.0)
# How long a reconnect may take, over every attempt, before the client ends;
# the pause before an attempt (doubling from the first, up to the last,
# each with jitter), and how long opening one connection may take.
RECONNECT_BOUND = 30.0
RECONNECT_PAUSES = (0.1, 1.0)
OPEN_TIMEOUT = 5.0
# How long a command's answer, or a view's catching up, may take across
# reconnects and resends before the test fails.
BOUND = 60.0


@dataclass
class Outcome:
    """How a command ended: its answer (an ack or a refusal), how many times
    it was sent, and the "try again" answers (``AGAIN``) that came first."""

    id: str
    answer: dict[str, Any]
    sends: int
    again: tuple[str, ...]
    answered_at: float  # time.monotonic()

    @property
    def acked(self) -> bool:
        return bool(self.answer["type"] == "ack")

    @property
    def unknown(self) -> int:
        """How many ``outcome_unknown`` answers came before its answer."""
        return self.again.count("outcome_unknown")


@dataclass
class Pending:
    """A command sent and not answered yet."""

    message: dict[str, Any]
    future: asyncio.Future[Outcome]
    sends: int = 0
    again: list[str] = field(default_factory=list)


@dataclass
class Stats:
    connects: int = 0  # welcomes
    # The close code of every welcomed connection it lost (None: dropped
    # without one); not those it closed itself.
    closes: list[int | None] = field(default_factory=list)
    refused_hellos: int = 0
    resends: int = 0
    again: dict[str, int] = field(default_factory=dict)
    repeated_acks: int = 0
    # Acks of a rev the view already had: the command was applied before
    # the connection that sent it again (its patch came with the resume),
    # and the owner answered the repeated id from its memory of the log.
    from_log: int = 0

    @property
    def reconnects(self) -> int:
        """Welcomes after the first."""
        return max(0, self.connects - 1)


class _Connection(Client):
    """One connection of a reconnecting client, which hears its frames."""

    client: ReconnectingClient | None = None

    def handle(self, msg: dict[str, Any]) -> None:
        client = self.client
        if client is not None and msg["type"] == "snapshot":
            client._snapshot(self, msg)
        super().handle(msg)
        if client is not None:
            if msg["type"] in ("ack", "error") and msg.get("id") is not None:
                client._answered(self, msg)
            client._changed.set()


class ReconnectingClient:
    def __init__(
        self, name: str, token: str, urls: str | Callable[[], list[str]], rng: random.Random | None = None
    ) -> None:
        # Prefixes its message ids (clients may share a token) and is its
        # session (the server deduplicates a resend by token, session and id).
        self.name = name
        self.token = token
        # The nodes it may connect to now (a test may change them).
        self.urls: Callable[[], list[str]] = urls if callable(urls) else (lambda: [urls])
        self.rng = rng or random.Random(name)
        self.conn: _Connection | None = None  # the last welcomed; its view is the client's
        self.pending: dict[str, Pending] = {}
        self.outcomes: dict[str, Outcome] = {}  # msg id -> how it ended (its first answer)
        self.failures: list[str] = []
        self.stats = Stats()
        self._live: _Connection | None = None  # welcomed and not closed
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # sends, kept until done

    # -- the view (the last connection's) -------------------------------------

    @property
    def table(self) -> str | None:
        return None if self.conn is None else self.conn.table

    @property
    def state(self) -> dict[str, Any] | None:
        return None if self.conn is None else self.conn.state

    @property
    def epoch(self) -> int:
        return 0 if self.conn is None else self.conn.epoch

    @property
    def rev(self) -> int:
        return 0 if self.conn is None else self.conn.rev

    @property
    def token_id(self) -> str | None:
        welcome = None if self.conn is None else self.conn.welcome
        return None if welcome is None else str(welcome["token_id"])

    @property
    def acks(self) -> dict[str, dict[str, Any]]:
        """Msg id -> its ack, of every command acknowledged."""
        return {msg_id: o.answer for msg_id, o in self.outcomes.items() if o.acked}

    def request(self, msg_id: str) -> str:
        """What the log names a command of this client by (vigil.net.routing.request_key)."""
        assert self.token_id is not None
        return f"{self.token_id}/{self.name}/{msg_id}"

    # -- use ------------------------------------------------------------------

    async def start(self, timeout: float = BOUND) -> ReconnectingClient:
        """Connect (retrying) and wait for the first view of the table."""
        self._task = asyncio.create_task(self._run())
        await self.wait_for(lambda c: c.state is not None, timeout)
        return self

    def send(self, body: dict[str, Any]) -> asyncio.Future[Outcome]:
        """Send a command at once (others may be in flight); the future is
        its outcome, whatever the reconnects and resends in between."""
        return self._submit(body).future

    async def command(self, body: dict[str, Any], timeout: float = BOUND) -> Outcome:
        """Send a command and wait for its outcome (given up past ``timeout``)."""
        pending = self._submit(body)
        try:
            return await asyncio.wait_for(pending.future, timeout)
        finally:
            self.pending.pop(pending.message["id"], None)

    def _submit(self, body: dict[str, Any]) -> Pending:
        msg_id = f"{self.name}-{next(self._ids)}"
        message: dict[str, Any] = {"type": "cmd", "id": msg_id, "body": body}
        if self.table is not None:
            message["table"] = self.table
        pending = self.pending[msg_id] = Pending(message, asyncio.get_running_loop().create_future())
        if self._live is not None:
            self._write(self._live, pending)
        return pending

    async def wait_for(self, predicate: Callable[[ReconnectingClient], bool], timeout: float = BOUND) -> None:
        """Until the view satisfies ``predicate``, across reconnects; an
        AssertionError once the client went wrong, ended, or the time ran out."""

        async def loop() -> None:
            while not predicate(self):
                if self.failures:
                    raise AssertionError(f"{self.name} went wrong: {self.failures}")
                if self._task is not None and self._task.done():
                    raise AssertionError(f"{self.name} ended (closes {self.stats.closes})")
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(loop(), timeout)
        except TimeoutError:
            raise AssertionError(f"{self.name}: view at rev {self.rev} after {timeout} s") from None

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.close()
        for pending in self.pending.values():
            pending.future.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- the connection loop --------------------------------------------------

    async def _run(self) -> None:
        """Connect, keep the connection until it closes, and again, until
        ``close()``, a final close, or a reconnect past its bound."""
        try:
            while True:
                conn = await self._connect()
                assert conn._reader is not None
                # The reader ends once the connection is closed (what came
                # before the close handled first), or once the view went wrong.
                await asyncio.gather(conn._reader, return_exceptions=True)
                self._live = None
                if conn.failure is not None and not isinstance(conn.failure, ConnectionClosed):
                    self.failures.append(f"{self.name}: {conn.failure!r}")
                    await conn.ws.close()  # resume from where the view is
                    continue
                await conn.ws.wait_closed()
                code = conn.ws.close_code
                self.stats.closes.append(code)
                if code in FINAL:
                    raise _Ended(f"closed {code} {conn.ws.close_reason!r}")
        except _Ended as ended:
            self.failures.append(f"{self.name}: {ended}")
            for pending in self.pending.values():
                if not pending.future.done():
                    pending.future.set_exception(AssertionError(f"{self.name}: {ended}"))
        finally:
            self._live = None
            self._changed.set()

    async def _connect(self) -> _Connection:
        """A welcomed connection resuming from the last one's view, within
        the bound; every unanswered command is sent on it again."""
        prior = self.conn
        resume: dict[str, int | str] | None = None
        if prior is not None and prior.table is not None and prior.state is not None:
            resume = {"table": prior.table, "epoch": prior.epoch, "rev": prior.rev}
        deadline = time.monotonic() + RECONNECT_BOUND
        for attempt in itertools.count():
            if prior is not None or attempt:
                first, last = RECONNECT_PAUSES
                await asyncio.sleep(min(last, first * 2**attempt) * self.rng.uniform(0.5, 1.0))
            conn = await self._open(resume, prior)
            if conn is not None:
                self._welcomed(conn)
                return conn
            if time.monotonic() > deadline:
                raise _Ended(f"no connection within {RECONNECT_BOUND} s")
        raise AssertionError("unreachable")

    async def _open(self, resume: dict[str, int | str] | None, prior: Client | None) -> _Connection | None:
        """One attempt, on a node it may use now: the connection once
        welcomed, or None (a refused hello is waited out to its close)."""
        urls = self.urls()
        if not urls:
            return None
        url = self.rng.choice(urls)
        try:
            conn = await _Connection.open(
                url,
                self.token,
                resume=resume,
                expect_state=False,
                prior=prior,
                session=self.name,
                open_timeout=OPEN_TIMEOUT,
                ping_interval=None,
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed):
            return None
        assert isinstance(conn, _Connection)
        if conn.welcome is not None:
            return conn
        self.stats.refused_hellos += 1
        code = conn.errors[0]["code"] if conn.errors else None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.ws.wait_closed(), WAIT)
        await conn.ws.close()  # closed already, unless the server never did
        if conn.ws.close_code in FINAL:
            raise _Ended(f"hello refused for good ({conn.ws.close_code}, {code}) by {url}")
        if code not in AGAIN:
            self.failures.append(f"{self.name}: hello refused {code} by {url}")
        return None

    def _welcomed(self, conn: _Connection) -> None:
        """Before any frame after the welcome is handled (nothing awaited
        since it came): the same token and table, then every unanswered
        command again."""
        assert conn.welcome is not None
        welcome = conn.welcome
        if self.token_id is not None and welcome.get("token_id") != self.token_id:
            self.failures.append(f"{self.name}: welcomed as {welcome.get('token_id')}")
        if self.table is not None and conn.table != self.table:
            self.failures.append(f"{self.name}: welcomed to table {conn.table}")
        conn.client = self
        self.conn = self._live = conn
        self.stats.connects += 1
        for pending in list(self.pending.values()):
            pending.message.setdefault("table", conn.table)
            self._write(conn, pending)
        self._changed.set()

    def _write(self, conn: _Connection, pending: Pending) -> None:
        pending.sends += 1
        if pending.sends > 1:
            self.stats.resends += 1
        self._spawn(self._send(conn, json.dumps(pending.message)))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(conn: _Connection, data: str) -> None:
        """On ``conn``; one that is closing has it sent again by the next."""
        with contextlib.suppress(ConnectionClosed):
            await conn.ws.send(data)

    # -- what the connections hear --------------------------------------------

    def _snapshot(self, conn: _Connection, msg: dict[str, Any]) -> None:
        """Before ``conn``'s view takes it: never older than the view."""
        if conn.state is not None and msg["epoch"] == conn.epoch and msg["rev"] < conn.rev:
            self.failures.append(f"{self.name}: snapshot at rev {msg['rev']} after {conn.rev}")

    def _answered(self, conn: _Connection, msg: dict[str, Any]) -> None:
        msg_id = msg["id"]
        first = self.outcomes.get(msg_id)
        if first is not None:
            if msg["type"] == "ack":
                # Sent again (a reconnect, a resend) and answered twice: the
                # second must be the first ack, not a second application.
                self.stats.repeated_acks += 1
                if not first.acked or first.answer.get("rev") != msg.get("rev"):
                    self.failures.append(f"{self.name}: {msg_id} answered {first.answer} and then {msg}")
            return  # a late error (outcome_unknown): the first answer counts
        pending = self.pending.get(msg_id)
        if pending is None:
            return  # given up (its wait timed out)
        code = msg.get("code")
        if msg["type"] == "error" and code in AGAIN and len(pending.again) < AGAIN_RESENDS:
            self.stats.again[code] = self.stats.again.get(code, 0) + 1
            pause = AGAIN_PAUSES[min(len(pending.again), len(AGAIN_PAUSES) - 1)]
            pending.again.append(code)
            asyncio.get_running_loop().call_later(pause, self._again, conn, pending)
            return
        if msg["type"] == "error":
            after = f" after {len(pending.again)} resends" if code in AGAIN else ""
            self.failures.append(f"{self.name}: {msg_id} refused {code} {msg.get('params')}{after}")
        elif msg.get("rev") is not None and msg["rev"] <= conn.rev:
            self.stats.from_log += 1
        outcome = Outcome(msg_id, msg, pending.sends, tuple(pending.again), time.monotonic())
        self.outcomes[msg_id] = outcome
        del self.pending[msg_id]
        if not pending.future.done():
            pending.future.set_result(outcome)

    def _again(self, conn: _Connection, pending: Pending) -> None:
        """Send again on the same connection, if it is still the one (a new
        one sends every pending command after its welcome anyway)."""
        if self.pending.get(pending.message["id"]) is pending and self._live is conn:
            self._write(conn, pending)


class _Ended(Exception):
    """Why the client stopped reconnecting."""
