"""The bus's bookkeeping without Redis (vigil.net.bus): its Redis client
and subscriber connection replaced by fakes that fail as a lost
connection does."""

from __future__ import annotations

import asyncio

import pytest
from redis import exceptions as redis_errors

from vigil.net.bus import Bus, NotSent

pytestmark = pytest.mark.asyncio


def new_bus() -> Bus:
    """A bus that never connects (its Redis client is made, not used),
    believed up, as after its start (a bus known down refuses requests)."""
    bus = Bus("redis://127.0.0.1:1/0", "n1", lambda channel, data: None)
    bus.connected = True
    return bus


async def test_a_bus_known_down_refuses_a_request_as_certainly_not_sent() -> None:
    """While its subscriber connection is lost (connected is False), a
    request is refused NotSent at once and nothing is queued: its sender
    can tell its client that nothing was done (bus_unavailable)."""
    bus = new_bus()
    bus.connected = False
    with pytest.raises(NotSent):
        await bus.request("vigil:n:n2", b"never queued")
    assert bus.queued == 0


class FlakySubscriber:
    """A subscriber connection whose first SUBSCRIBE fails (Redis lost as it
    was sent); later ones are confirmed, as the bus's reader would."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.sent: list[str] = []

    async def subscribe(self, channel: str) -> None:
        self.sent.append(channel)
        if len(self.sent) == 1:
            raise redis_errors.ConnectionError("lost")
        asyncio.get_running_loop().call_soon(self.bus._confirmed[channel].set_result, None)


async def test_a_subscription_that_failed_is_sent_again_by_the_next_call() -> None:
    bus = new_bus()
    subscriber = FlakySubscriber(bus)
    bus._pubsub = subscriber  # type: ignore[assignment]
    with pytest.raises(redis_errors.ConnectionError):
        await bus.subscribe("vigil:t:t1")
    assert bus._confirmed == {}  # nothing left to wait on
    await bus.subscribe("vigil:t:t1")  # sent again, and confirmed
    assert subscriber.sent == ["vigil:t:t1", "vigil:t:t1"]
    await bus.subscribe("vigil:t:t1")  # confirmed already: not sent a third time
    assert subscriber.sent == ["vigil:t:t1", "vigil:t:t1"]


class RefusingPipeline:
    """A pipeline whose batch Redis answers with an error (not a lost
    connection) the first time; later batches reach one subscriber each."""

    def __init__(self, batches: list[int]) -> None:
        self.batches = batches  # shared by the pipelines of one test
        self.sent: list[str] = []

    async def __aenter__(self) -> RefusingPipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def publish(self, channel: str, data: bytes) -> None:
        self.sent.append(channel)

    async def execute(self) -> list[int]:
        self.batches.append(len(self.sent))
        if len(self.batches) == 1:
            raise redis_errors.ResponseError("NOPERM no permissions to run the 'publish' command")
        return [1] * len(self.sent)


async def test_an_error_answered_by_redis_fails_its_batch_and_the_publisher_goes_on() -> None:
    bus = new_bus()
    batches: list[int] = []
    bus._redis.pipeline = lambda transaction=False: RefusingPipeline(batches)  # type: ignore[method-assign]
    publisher = asyncio.create_task(bus._publish())
    try:
        with pytest.raises(redis_errors.ResponseError):
            await asyncio.wait_for(bus.request("vigil:n:n2", b"first"), 5)
        # Still publishing (a dead publisher would leave it unanswered).
        assert await asyncio.wait_for(bus.request("vigil:n:n2", b"second"), 5) == 1
        assert batches == [1, 1]
    finally:
        publisher.cancel()


class StuckPipeline(RefusingPipeline):
    """A pipeline whose batch never gets Redis's answer."""

    async def execute(self) -> list[int]:
        self.batches.append(len(self.sent))
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_a_stopped_bus_fails_every_request_it_will_never_send() -> None:
    bus = new_bus()
    batches: list[int] = []
    bus._redis.pipeline = lambda transaction=False: StuckPipeline(batches)  # type: ignore[method-assign]
    bus._tasks = [asyncio.create_task(bus._publish())]
    under_way = asyncio.create_task(bus.request("vigil:n:n2", b"sent, never answered"))
    for _ in range(100):  # until the publisher has taken it
        if batches:
            break
        await asyncio.sleep(0.01)
    assert batches == [1]
    await asyncio.wait_for(bus.stop(), 5)
    with pytest.raises(redis_errors.ConnectionError):
        await asyncio.wait_for(under_way, 5)
    with pytest.raises(redis_errors.ConnectionError):
        await bus.request("vigil:n:n2", b"after the stop")
