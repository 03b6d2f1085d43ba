"""One node of a cluster in this process (real PostgreSQL and Redis), its
bus messages fed by hand: interleavings a running cluster meets only by
chance (a Detach that overtakes its Attach, an owner change seen by a new
hello first) made deterministic, and what the node keeps afterwards read
from its own state."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import psycopg
import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from websockets.protocol import State

from vigil import tokens
from vigil.net import bus
from vigil.net import cluster_wire as wire
from vigil.net.app import make_hub
from vigil.net.cluster import Cluster, Mirror
from vigil.net.config import Config
from vigil.net.host import Conn, RemoteConn, TableHost
from vigil.net.hub import Hub
from vigil.net.writer import Moved
from vigil.protocol import PROTOCOL_VERSION, Hello
from vigil.rules.games import GAMES
from vigil.store.base import TableRecord
from vigil.store.leases import Lease
from vigil.store.postgres import PostgresStore
from vigil.table import Table

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


class StubSocket:
    """A client's socket that takes nothing (it is never open) and records
    how it was closed."""

    protocol = type("Protocol", (), {"state": State.CLOSED})()
    transport = None

    def __init__(self) -> None:
        self.closed: list[tuple[int, str]] = []

    async def close(self, code: int, reason: str) -> None:
        self.closed.append((code, reason))


def attached_elsewhere(cluster: Cluster, table: str, owner: str, fence: int = 1) -> Conn:
    """A connection of this node attaching to ``table``, which ``owner``
    owns (under ``fence``), as Cluster.hello leaves it once its Attach is sent."""
    conn = Conn(ws=StubSocket(), role="gm", table=table)  # type: ignore[arg-type]
    conn.ref = next(cluster._refs)
    mirror = cluster.mirrors.setdefault(table, Mirror(lease=Lease(owner, fence)))
    mirror.conns[conn.ref] = conn
    mirror.attaching[conn.ref] = time.monotonic() + 60
    cluster.conns[conn.ref] = conn
    return conn


def orphans(url: str, *ids: str) -> None:
    """Tables made in the store by no node (nobody holds their lease)."""
    store = PostgresStore(url)
    try:
        for table_id in ids:
            wall = time.time()
            table = Table.new(table_id, GAMES["mettle"], table_id, {}, wall, undo_depth=20)
            record = TableRecord(id=table_id, system="mettle", name=table_id, key="k", epoch=1, created=wall)
            store.create_table(record, table.doc)
    finally:
        store.close()


@pytest_asyncio.fixture
async def node(postgres_url: str, redis_url: str) -> AsyncIterator[Node]:
    config = Config(
        store=postgres_url, bus=redis_url, node_id="n1", lease_seconds=LEASE, beacon_seconds=LEASE, demo=False
    )
    store = PostgresStore(postgres_url)
    hub = make_hub(config, store)
    try:
        await hub.start()
        assert isinstance(hub.placement, Cluster)
        host = await hub.create_table("mettle", "Friday", {}, "t1")
        token, _record = await hub.mint(host, "gm", [], "gm", None)
        yield Node(hub=hub, cluster=hub.placement, host=host, gm_token=token)
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


async def test_a_table_whose_pause_fails_as_it_is_taken_does_not_stop_the_sweep(
    node: Node, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    orphans(postgres_url, "o1", "o2")
    # Both were left running by a node gone for long: each is paused as it
    # is taken, and the first one's pause cannot be committed (the store
    # holds another entry at its rev, or its outcome is unknown).
    monkeypatch.setattr("vigil.net.hub.timers.held_since", lambda table, mark: time.time())
    held: list[str] = []

    async def hold(host: TableHost, at: float | None) -> None:
        held.append(host.record.id)
        if host.record.id == "o1":
            node.hub.writer.give_up(host, "conflict")
            raise Moved()

    monkeypatch.setattr(node.hub.writer, "hold", hold)
    await node.cluster._sweep()
    assert held == ["o1", "o2"]
    fences = node.cluster.leases.store.fences
    assert "o2" in node.hub.hosts and "o2" in fences  # served
    assert "o1" not in node.hub.hosts and "o1" not in fences  # left for a later sweep


async def test_an_attach_is_done_only_once_its_audience_and_its_first_view_came(node: Node) -> None:
    cluster = node.cluster
    lost_view = attached_elsewhere(cluster, "far", "n2")
    lost_audience = attached_elsewhere(cluster, "far", "n2")
    whole = attached_elsewhere(cluster, "far", "n2")
    mirror = cluster.mirrors["far"]
    # The owner's answers, one of each lost on the bus (at most once).
    node.feed(wire.Attached(t="far", ref=lost_view.ref, key="gm"))
    node.feed(wire.Deliver(t="far", ref=lost_audience.ref, msgs=[], rev=3, epoch=1))
    node.feed(wire.Attached(t="far", ref=whole.ref, key="gm"))
    node.feed(wire.Deliver(t="far", ref=whole.ref, msgs=[], rev=3, epoch=1))
    # Those left half attached still have a deadline (they are closed 1013
    # at it and resume); a view never sent would otherwise wait for ever.
    assert set(mirror.attaching) == {lost_view.ref, lost_audience.ref}


async def test_an_operator_request_for_a_table_nobody_owns_leaves_nothing_behind(
    node: Node, monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    """A table that exists but is moving (no live lease) is
    ``table_unavailable`` (try again); one that does not exist is
    ``unknown_table``, as a node alone says."""
    orphans(postgres_url, "nobodys")
    sent: list[bytes] = []
    monkeypatch.setattr(node.hub.fanout, "send", lambda conn, message, *rest: sent.append(message))
    operator = Conn(ws=StubSocket(), role="operator", token_id="op")  # type: ignore[arg-type]
    for table in ("nobodys", "nowhere"):
        frame = b'{"type":"cmd","id":"m1","table":"%s","body":{"type":"table.export"}}' % table.encode()
        await node.cluster.forward(operator, "m1", frame, table)
    assert [(a["id"], a["code"]) for a in map(json.loads, sent)] == [
        ("m1", "table_unavailable"),
        ("m1", "unknown_table"),
    ]
    assert node.cluster._operators == {} and node.cluster._waiting == {}


def lease_to(url: str, table: str, node: str) -> None:
    """``node`` holds ``table``'s lease, for an hour."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO owners VALUES (%s, %s, 1, now() + interval '1 hour') ON CONFLICT (table_id) "
            "DO UPDATE SET node = excluded.node, fence = owners.fence + 1, expires = excluded.expires",
            (table, node),
        )


async def test_a_hello_that_finds_the_table_moved_sends_the_connections_of_its_former_owner_elsewhere(
    node: Node, postgres_url: str, redis_url: str
) -> None:
    cluster = node.cluster
    orphans(postgres_url, "far")
    channel = bus.table_channel("far")
    # A connection of this node attached to n3, the table's owner then.
    await cluster.bus.subscribe(channel)
    before = attached_elsewhere(cluster, "far", "n3")
    # n2 owns it now (n3 died): a new hello is attached there.
    lease_to(postgres_url, "far", "n2")
    redis = aioredis.Redis.from_url(redis_url)
    n2 = redis.pubsub()
    try:
        await n2.subscribe(bus.inbox("n2"))  # n2 listens (the attach is received)
        token = tokens.sign("k", tokens.new_record("far", "gm", [], "gm", 30))
        after = Conn(ws=StubSocket())  # type: ignore[arg-type]
        hello = Hello(protocol=PROTOCOL_VERSION, token=token, session="s")
        assert await cluster.hello(after, hello, "far") is None
        await node.settle()
        # The one attached to n3 is closed to resume (at n2); the new one waits for n2.
        assert before.ws.closed == [(1013, "table moved")]  # type: ignore[attr-defined]
        mirror = cluster.mirrors["far"]
        assert mirror.lease.node == "n2" and list(mirror.conns) == [after.ref]
        # The channel is still this node's: n2's patches reach the new connection.
        assert channel in cluster.bus._confirmed
        assert await redis.pubsub_numsub(channel) == [(channel.encode(), 1)]
    finally:
        await n2.aclose()
        await redis.aclose()


def beacons(node: Node) -> list[wire.Beacon]:
    """The beacons the node has queued on its bus (and forgets them)."""
    queued, node.cluster.bus._out[:] = list(node.cluster.bus._out), []
    decoded = [wire.decoder.decode(data) for _, data, _ in queued]
    return [m for m in decoded if isinstance(m, wire.Beacon)]


async def test_a_node_whose_leases_are_in_doubt_sends_no_beacon(node: Node) -> None:
    node.host.join(RemoteConn(node="n2", ref=1, role="spectator"))  # another node watches t1
    node.cluster.beacons()
    assert [(b.t, b.owner) for b in beacons(node)] == [("t1", "n1")]
    # Its last renewal began a lease ago (it was paused): t1 may be another's.
    node.cluster._renewed = time.monotonic() - 2 * LEASE
    node.cluster.beacons()
    assert beacons(node) == []


async def test_a_node_back_after_a_lease_without_heartbeat_attaches_its_connections_again(node: Node) -> None:
    cluster = node.cluster
    watching = attached_elsewhere(cluster, "far", "n2")
    await cluster._sweep()  # renewed in time: kept
    assert watching.ref in cluster.conns
    # Paused for two leases: n2 saw no heartbeat and let the connection go.
    cluster._renewed = time.monotonic() - 2 * LEASE
    await cluster._sweep()
    await node.settle()
    assert watching.ws.closed == [(1013, "resync")]  # type: ignore[attr-defined]
    assert cluster.conns == {} and cluster.mirrors == {}


async def test_a_beacon_of_the_same_owner_under_a_new_fence_resumes_its_connections(node: Node) -> None:
    """A node restarted under its own id owns the table under a new fence:
    the name in its beacon is the same, the fence is not, and this node's
    connections attached to the former process resume (1013)."""
    conn = attached_elsewhere(node.cluster, "far", "n3", fence=4)
    node.cluster.mirrors["far"].seen[conn.ref] = (1, 10)
    node.cluster._beacon(wire.Beacon(t="far", epoch=1, rev=10, owner="n3", fence=4))
    await node.settle()
    assert conn.ws.closed == []  # type: ignore[attr-defined]
    node.cluster._beacon(wire.Beacon(t="far", epoch=1, rev=10, owner="n3", fence=5))
    await node.settle()
    assert conn.ws.closed == [(1013, "table moved")]  # type: ignore[attr-defined]


async def test_a_table_just_taken_is_announced_even_with_no_other_node_watching(node: Node) -> None:
    """Another node may hold connections attached to the table's former
    owner (a process of this node's name, before a restart) that this one
    does not know: its beacons go out for a lease after the take."""
    node.cluster.beacons()
    assert beacons(node) == []  # nobody attached, nothing taken lately
    node.cluster._announce["t1"] = time.monotonic() + LEASE
    node.cluster.beacons()
    fence = node.cluster.leases.store.fences["t1"]
    assert [(b.t, b.owner, b.fence) for b in beacons(node)] == [("t1", "n1", fence)]
