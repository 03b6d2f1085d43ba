"""One node of a cluster in this process (real PostgreSQL and Redis), its
bus messages fed by hand: interleavings a running cluster meets only by
chance (a Detach that overtakes its Attach, an owner change seen by a new
hello first) made deterministic, and what the node keeps afterwards read
from its own state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from vigil.net import cluster_wire as wire
from vigil.net.cluster import Cluster
from vigil.net.config import Config
from vigil.net.host import TableHost
from vigil.net.hub import Hub
from vigil.store.postgres import PostgresStore

pytestmark = pytest.mark.asyncio

INBOX = b"vigil:n:n1"
# Long enough that no sweep or beacon of the node's own runs during a test.
LEASE = 60.0


@dataclass
class Node:
    hub: Hub
    cluster: Cluster
    host: TableHost
    gm_token: str

    def feed(self, message: wire.Wire) -> None:
        """``message`` as the bus hands it to the node."""
        self.cluster._on_message(INBOX, wire.encoder.encode(message))

    async def settle(self) -> None:
        """Until every task the node spawned for what it was fed is done."""
        for _ in range(100):
            pending = [t for t in self.cluster._tasks if not t.done()]
            if not pending:
                return
            await asyncio.wait(pending, timeout=5)
        raise AssertionError("the node's tasks did not settle")


@pytest_asyncio.fixture
async def node(postgres_url: str, redis_url: str) -> AsyncIterator[Node]:
    config = Config(
        store=postgres_url, bus=redis_url, node_id="n1", lease_seconds=LEASE, beacon_seconds=LEASE, demo=False
    )
    store = PostgresStore(postgres_url)
    hub = Hub(config, store)
    try:
        await hub.start()
        assert hub.cluster is not None
        host = await hub.create_table("mettle", "Friday", {}, "t1")
        token, _record = await hub.mint(host, "gm", [], "gm", None)
        yield Node(hub=hub, cluster=hub.cluster, host=host, gm_token=token)
    finally:
        await hub.stop()
        store.close()


async def test_a_detach_that_overtakes_its_attach_leaves_no_connection_behind(node: Node) -> None:
    # The other node's client left as soon as it said hello: its Detach is
    # read before the Attach is entered (a task of its own).
    node.feed(wire.Attach(t="t1", node="n2", ref=7, token=node.gm_token, resume=None, session=""))
    node.feed(wire.Detach(t="t1", node="n2", ref=7))
    await node.settle()
    assert node.host.remote == {} and node.host.remote_keys == {}
    assert node.host.gm_count() == 0
