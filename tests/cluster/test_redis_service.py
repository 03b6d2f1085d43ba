"""The tests' Redis (tests/support/redis.py) works as the bus needs it:
commands, a PUBLISH reaching a SUBSCRIBE over ``redis.asyncio``, and a
restart on the same port that a client already connected outlives."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from tests.support.redis import RedisServer

# Bounds the wait for a message; a message that never comes fails the test.
WAIT = 5.0


async def next_message(pubsub: PubSub) -> bytes:
    """The next published message's data (subscribe confirmations skipped)."""

    async def wait() -> bytes:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=WAIT)
            if message is not None:
                data = message["data"]
                assert isinstance(data, bytes)
                return data

    return await asyncio.wait_for(wait(), WAIT)


async def round_trip(client: aioredis.Redis, channel: str, payload: bytes) -> bytes:
    async with client.pubsub() as pubsub:
        await pubsub.subscribe(channel)
        assert await client.publish(channel, payload) == 1  # one subscriber: ours
        return await next_message(pubsub)


async def test_ping_and_publish_subscribe(redis_url: str) -> None:
    async with aioredis.from_url(redis_url) as client:
        assert await client.ping() is True
        assert await round_trip(client, "vigil-test", b"hello") == b"hello"


async def test_restart_on_the_same_port_keeps_working(redis_url: str, redis_server: RedisServer) -> None:
    async with aioredis.from_url(redis_url) as client:
        await client.set("before", b"1")
        redis_server.stop()
        with pytest.raises(RedisConnectionError):
            await client.ping()
        redis_server.start()
        assert redis_server.url == redis_url
        # The same client reconnects; nothing was saved, so the key is gone.
        assert await client.ping() is True
        assert await client.get("before") is None
        assert await round_trip(client, "vigil-test", b"again") == b"again"
