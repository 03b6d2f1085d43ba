"""What a node of a cluster answers when the table's owner cannot answer:
``table_unavailable`` when nobody listens where the table's lease says it
is (certainly not done: try again), ``outcome_unknown`` when the owner got
a command and never answered (it may have been applied: send it again with
the same id). The owner here is a fake node speaking the bus protocol
(vigil.net.cluster_wire) that takes connections and swallows commands —
what a real owner does when it is SIGSTOPped or dies mid-command — so that
both answers come deterministically, from a real node over real sockets,
Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import json

import psycopg
import pytest
import redis.asyncio as aioredis
from tests.support.client import Client
from tests.support.cluster import VigilCluster

from vigil.net import bus, cluster_wire
from vigil.protocol import PROTOCOL_VERSION

pytestmark = pytest.mark.asyncio

GHOST = "ghost"


def hand_to_ghost(store_url: str, table: str) -> None:
    """The table's lease now names a node that never existed, for an hour
    (its real owner learns it lost the table at its next renewal)."""
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE owners SET node = %s, fence = fence + 1, expires = now() + interval '1 hour' "
            "WHERE table_id = %s",
            (GHOST, table),
        )


async def fake_owner(redis_url: str, table: str, seen: list[str]) -> None:
    """Welcome every connection attached to ``table`` with a snapshot, and
    never answer a forwarded request (recording the kinds it got)."""
    client = aioredis.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.subscribe(bus.inbox(GHOST))
    try:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is None:
                continue
            m = cluster_wire.decoder.decode(message["data"])
            seen.append(type(m).__name__)
            if isinstance(m, cluster_wire.Attach):
                welcome = {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "server": "ghost",
                    "role": "gm",
                    "table": table,
                }
                view = {"characters": {}}
                snapshot = {"type": "snapshot", "table": table, "epoch": 1, "rev": 0, "state": view}
                messages = [json.dumps(welcome).encode(), json.dumps(snapshot).encode()]
                for reply in (
                    cluster_wire.Attached(t=table, ref=m.ref, key="gm"),
                    cluster_wire.Deliver(t=table, ref=m.ref, msgs=messages, rev=0, epoch=1),
                ):
                    await client.publish(bus.inbox(m.node), cluster_wire.encoder.encode(reply))
    finally:
        await pubsub.aclose()
        await client.aclose()


async def test_no_owner_listening_is_table_unavailable_and_no_answer_is_outcome_unknown(
    vigil_cluster: VigilCluster, redis_url: str
) -> None:
    cluster = vigil_cluster.start(1)
    n1 = cluster["n1"]
    hand_to_ghost(cluster.store, "demo")
    # n1 gives the table up at its next renewal (every third of a lease).
    for _ in range(100):
        if cluster.healthz("n1")["owned"] == 0:
            break
        await asyncio.sleep(0.1)
    assert cluster.healthz("n1")["owned"] == 0
    # Nobody listens on the ghost's inbox: the hello is refused, try again.
    refused = await Client.open(n1.ws_url, n1.gm_token)
    assert [e["code"] for e in refused.errors] == ["table_unavailable"]
    await refused.ws.wait_closed()
    assert refused.ws.close_code == 1013
    # The ghost takes connections and swallows commands: no answer in
    # lease + 5 s is outcome_unknown, never a refusal.
    seen: list[str] = []
    ghost = asyncio.create_task(fake_owner(redis_url, "demo", seen))
    try:
        for _ in range(50):  # until it listens
            if await aioredis.Redis.from_url(redis_url).pubsub_numsub(bus.inbox(GHOST)) == [
                (bus.inbox(GHOST).encode(), 1)
            ]:
                break
            await asyncio.sleep(0.1)
        gm = await Client.open(n1.ws_url, n1.gm_token)
        assert gm.state == {"characters": {}} and gm.welcome["server"] == "ghost"
        reply = await gm.cmd({"type": "mettle.pain", "char": "brannoc", "amount": 1}, "demo")
        assert (reply["type"], reply["code"]) == ("error", "outcome_unknown")
        assert "could not tell" in reply["message"]
        assert seen == ["Attach", "Forward"]
        await gm.close()
    finally:
        ghost.cancel()
