"""The Redis bus between the nodes of a cluster: ordered publishing and
one subscriber connection, and nothing else (what travels on it is
:mod:`vigil.net.cluster_wire`, what it means :mod:`vigil.net.cluster`).

Two properties of Redis pub/sub carry the design. Messages one client
publishes reach each subscriber in the order published, across channels,
when both sides keep one connection: so a node publishes from one task,
batch after batch, and reads on one connection; a command's ack, the
patches it caused and a beacon after them arrive in that order. And
pub/sub is at most once: a message published while a subscriber is
disconnected is lost. Nothing here hides that (a lost connection and its
return are logged), and the owners' beacons tell every node how far each
table is, so a node that missed a patch notices and its clients catch up
(vigil.net.cluster).

``PUBLISH`` answers how many subscribers got the message: zero to a node's
inbox means that node is gone (not subscribed), so a request sent there was
certainly not handled; :meth:`Bus.request` returns that count.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

import structlog
from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

log = structlog.get_logger("vigil")

# What a lost or refused Redis connection raises, and any error Redis
# answers (a command refused: an ACL, a server in trouble): each is a bus
# that did not carry the message, never the end of the task that met it.
BUS_ERRORS = (redis_errors.RedisError, OSError)
# How long a subscription waits for Redis to confirm it.
SUBSCRIBE_SECONDS = 5.0
# The most messages one pipelined batch publishes.
BATCH = 512
# The most messages queued for Redis; past it a published message is
# dropped (pub/sub is at most once anyway; requests are never dropped).
MAX_QUEUED = 100_000
# How long a stop waits for the reader and the publisher to end.
STOP_SECONDS = 2.0

Handler = Callable[[bytes, bytes], None]


class NotSent(redis_errors.ConnectionError):
    """A request refused before anything was queued: the bus is known to be
    down (its subscriber connection lost, not back yet) or stopped, so the
    message certainly reached nobody. Unlike any other bus error, whose
    message may or may not have gone out, its sender knows nothing was done."""


def inbox(node: str) -> str:
    """The channel a node reads the requests and answers sent to it on."""
    return f"vigil:n:{node}"


def table_channel(table: str) -> str:
    """The channel a table's owner publishes its patches and beacons on."""
    return f"vigil:t:{table}"


def location(url: str) -> str:
    """``url`` without its password, for the banner, logs and /healthz."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, f"{user}{host}{port}", parts.path, "", ""))


class Bus:
    def __init__(self, url: str, node: str, on_message: Handler) -> None:
        self.location = location(url)
        self.node = node
        self._on_message = on_message
        self._redis: Redis = Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self._pubsub: PubSub = self._redis.pubsub()
        self._out: list[tuple[str, bytes, asyncio.Future[int] | None]] = []
        self._dropped = 0
        self._sending: list[tuple[str, bytes, asyncio.Future[int] | None]] = []  # the batch under way
        self._stopped = False
        self._wake = asyncio.Event()
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = False

    async def start(self) -> None:
        """Connect and subscribe to this node's inbox (raises if Redis
        cannot be reached: a node of a cluster does not start without it)."""
        await self._redis.ping()
        self.connected = True  # before the reader runs: not "back" at the start
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._publish())]
        await self.subscribe(inbox(self.node))

    async def stop(self) -> None:
        for _ in range(100):  # what is queued goes out first (bounded)
            if not self._out:
                break
            await asyncio.sleep(0.01)
        self._stopped = True
        self._wake.set()
        for task in self._tasks:
            task.cancel()
        # Each task also ends by itself once stopped: a cancellation can be
        # lost inside redis-py (seen: the publisher went on waiting).
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=STOP_SECONDS)
        # What was not sent never will be: its requests fail now (a bus
        # error, as when Redis is lost) instead of waiting for ever.
        for _, _, future in [*self._sending, *self._out]:
            if future is not None and not future.done():
                future.set_exception(redis_errors.ConnectionError("the bus is stopped"))
        self._sending, self._out = [], []
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    # -- subscribing ----------------------------------------------------------

    async def subscribe(self, channel: str) -> None:
        """Subscribe, and return once Redis confirmed it: from then on every
        message published on ``channel`` reaches this node."""
        waiter = self._confirmed.get(channel)
        try:
            if waiter is None:
                waiter = self._confirmed[channel] = asyncio.get_running_loop().create_future()
                await self._pubsub.subscribe(channel)
            await asyncio.wait_for(asyncio.shield(waiter), SUBSCRIBE_SECONDS)
        except BaseException:
            # Not subscribed, or not known to be (the command failed: redis-py
            # then does not subscribe again on reconnecting; or no
            # confirmation came in time): the next call sends it again,
            # instead of waiting on a confirmation that may never come.
            if waiter is not None and not waiter.done() and self._confirmed.get(channel) is waiter:
                del self._confirmed[channel]
            raise

    async def unsubscribe(self, channel: str) -> None:
        self._confirmed.pop(channel, None)
        with contextlib.suppress(*BUS_ERRORS):
            await self._pubsub.unsubscribe(channel)

    async def _read(self) -> None:
        """The one subscriber connection: every message to the handler, in
        order. A lost connection is reconnected (redis-py subscribes again
        to every channel on reconnecting) and reported: what was published
        meanwhile is lost."""
        while not self._stopped:
            try:
                if not self._pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await self._pubsub.get_message(timeout=1.0)
            except BUS_ERRORS as exc:
                if self.connected:
                    log.warning("bus_lost", bus=self.location, error=str(exc))
                    self.connected = False
                await asyncio.sleep(0.5)
                continue
            if not self.connected:
                log.info("bus_back", bus=self.location)
                self.connected = True
            if message is None:
                continue
            kind = message["type"]
            if kind == "message":
                try:
                    self._on_message(message["channel"], message["data"])
                except Exception:  # one bad message never stops the bus
                    log.exception("bus_message_failed")
            elif kind == "subscribe":
                waiter = self._confirmed.get(message["channel"].decode())
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)

    # -- publishing -----------------------------------------------------------

    @property
    def queued(self) -> int:
        """Messages published and not yet handed to Redis."""
        return len(self._out)

    def publish(self, channel: str, data: bytes) -> None:
        """Queue ``data`` for ``channel`` (in order with everything this
        node publishes); lost if Redis is unreachable (or the bus stopped)."""
        if self._stopped:
            return
        if self.queued >= MAX_QUEUED:
            # Redis unreachable without refusing (packets dropped): what it
            # would carry is lost anyway, and the beacons tell the other
            # nodes what they missed once it is back; memory stays bounded.
            self._dropped += 1
            if self._dropped == 1:
                log.warning("bus_queue_full", bus=self.location, queued=self.queued)
            return
        self._dropped = 0
        self._out.append((channel, data, None))
        self._wake.set()

    async def request(self, channel: str, data: bytes) -> int:
        """Publish in order with the rest and wait for it: how many
        subscribers got it (0: nobody listens there). Raises a bus error if
        Redis could not be reached (it may or may not have been sent), or
        :class:`NotSent` if it certainly was not (the bus is down or stopped)."""
        if self._stopped:
            raise NotSent("the bus is stopped")
        if not self.connected:
            raise NotSent(f"the bus at {self.location} is not reachable")
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._out.append((channel, data, future))
        self._wake.set()
        return await future

    async def _publish(self) -> None:
        while not self._stopped:
            await self._wake.wait()
            self._wake.clear()
            while self._out and not self._stopped:
                batch, self._out = self._out[:BATCH], self._out[BATCH:]
                self._sending = batch
                try:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for channel, data, _ in batch:
                            pipe.publish(channel, data)
                        counts = await pipe.execute()
                except BUS_ERRORS as exc:
                    self._sending = []
                    log.warning("bus_publish_failed", bus=self.location, error=str(exc), lost=len(batch))
                    for _, _, future in batch:
                        if future is not None and not future.done():
                            future.set_exception(exc)
                    continue
                self._sending = []  # (kept if cancelled under way: stop() fails its requests)
                for (_, _, future), count in zip(batch, counts, strict=True):
                    if future is not None and not future.done():
                        future.set_result(int(count))
