"""One node of a cluster in this process (real PostgreSQL and Redis), its
bus messages fed by hand: what its driver (vigil.net.cluster) does with
interleavings a running cluster meets only by chance (a Detach that
overtakes its Attach, an owner change seen by a new hello first). What the
follower of another node's table decides (gaps, beacons, attaches) is
tested as pure code in tests/unit/test_follower.py."""

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
from vigil.config import Config
from vigil.net import bus
from vigil.net import cluster_wire as wire
from vigil.net.app import make_hub
from vigil.net.cluster import Cluster
from vigil.net.host import Conn, RemoteConn, TableHost
from vigil.net.hub import Hub
from vigil.net.writer import GivenUp
from vigil.protocol import PROTOCOL_VERSION, Hello
from vigil.rules.games import GAMES
from vigil.store.base import TableRecord
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
        self.cluster.receive(INBOX, wire.encoder.encode(message))

    async def settle(self) -> None:
        """Until every task the node spawned for what it was fed is done."""
        for _ in range(100):
            pending = [
                t for tasks in (self.cluster.tasks, self.hub.fanout.ending) for t in tasks if not t.done()
            ]
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


async def attached_elsewhere(cluster: Cluster, url: str, table: str, owner: str) -> Conn:
    """A connection of this node attached to ``table``, which ``owner``
    owns (its lease in the store, its inbox listened to: ``listening``), by
    a hello as a client sends it; the owner's answers are the test's to feed."""
    orphans(url, table)
    lease_to(url, table, owner)
    conn = Conn(ws=StubSocket(), sockets=cluster.hub.fanout)  # type: ignore[arg-type]
    token = tokens.sign("k", tokens.new_record(table, "gm", [], "gm", 30))
    hello = Hello(protocol=PROTOCOL_VERSION, token=token, session="s")
    assert await cluster.hello(conn, hello, table) is None
    return conn


@pytest_asyncio.fixture
async def listening(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """Other nodes (n2, n3) listening on their inboxes: a hello's Attach
    is received (and never answered but by the test)."""
    redis = aioredis.Redis.from_url(redis_url)
    others = redis.pubsub()
    await others.subscribe(bus.inbox("n2"), bus.inbox("n3"))
    try:
        yield redis
    finally:
        await others.aclose()
        await redis.aclose()


def orphans(url: str, *ids: str) -> None:
    """Tables made in the store by no node (nobody holds their lease)."""
    store = PostgresStore(url)
    try:
        for table_id in ids:
            if store.table(table_id) is not None:
                continue
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
        token, _record = await hub.access.mint(host, "gm", [], "gm", None)
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
    monkeypatch.setattr("vigil.net.hub.presence.held_since", lambda table, mark: time.time())
    held: list[str] = []

    async def hold(host: TableHost, at: float | None) -> None:
        held.append(host.record.id)
        if host.record.id == "o1":
            node.hub.writer.give_up(host, "conflict")
            raise GivenUp()

    monkeypatch.setattr(node.hub.writer, "hold", hold)
    await node.cluster.sweep()
    assert held == ["o1", "o2"]
    fences = node.cluster.leases.store.fences
    assert "o2" in node.hub.hosts and "o2" in fences  # served
    assert "o1" not in node.hub.hosts and "o1" not in fences  # left for a later sweep


async def test_an_operator_request_for_a_table_nobody_owns_leaves_nothing_behind(
    node: Node, monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    """A table that exists but is moving (no live lease) is
    ``table_unavailable`` (try again); one that does not exist is
    ``unknown_table``, as a node alone says."""
    orphans(postgres_url, "nobodys")
    sent: list[bytes] = []
    monkeypatch.setattr(node.hub.fanout, "send", lambda conn, message, *rest: sent.append(message))
    operator = Conn(ws=StubSocket(), sockets=node.hub.fanout, role="operator", token_id="op")  # type: ignore[arg-type]
    for table in ("nobodys", "nowhere"):
        frame = b'{"type":"cmd","id":"m1","table":"%s","body":{"type":"table.export"}}' % table.encode()
        await node.cluster.forward(operator, "m1", frame, table)
    assert [(a["id"], a["code"]) for a in map(json.loads, sent)] == [
        ("m1", "table_unavailable"),
        ("m1", "unknown_table"),
    ]
    assert node.cluster.waiting() == 0


def lease_to(url: str, table: str, node: str) -> None:
    """``node`` holds ``table``'s lease, for an hour."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO owners VALUES (%s, %s, 1, now() + interval '1 hour') ON CONFLICT (table_id) "
            "DO UPDATE SET node = excluded.node, fence = owners.fence + 1, expires = excluded.expires",
            (table, node),
        )


async def test_a_hello_that_finds_the_table_moved_sends_the_connections_of_its_former_owner_elsewhere(
    node: Node, postgres_url: str, listening: aioredis.Redis
) -> None:
    cluster = node.cluster
    channel = bus.table_channel("far")
    # A connection of this node attached to n3, the table's owner then.
    before = await attached_elsewhere(cluster, postgres_url, "far", "n3")
    # n2 owns it now (n3 died): a new hello is attached there.
    after = await attached_elsewhere(cluster, postgres_url, "far", "n2")
    await node.settle()
    # The one attached to n3 is closed to resume (at n2); the new one waits for n2.
    assert before.ws.closed == [(1013, "table moved")]  # type: ignore[attr-defined]
    assert not cluster.remote(before) and cluster.remote(after)
    assert cluster.followed["far"].owner[0] == "n2"
    # The channel is still this node's: n2's patches reach the new connection.
    assert await listening.pubsub_numsub(channel) == [(channel.encode(), 1)]


def beacons(node: Node) -> list[wire.Beacon]:
    """The beacons the node publishes on its bus in one round (recorded in
    place of being sent: Bus.publish is the node's one way out)."""
    published: list[bytes] = []
    bus = node.cluster.bus
    send = bus.publish
    bus.publish = lambda channel, data: published.append(data)  # type: ignore[method-assign]
    try:
        node.cluster.beacons()
    finally:
        bus.publish = send  # type: ignore[method-assign]
    decoded = [wire.decoder.decode(data) for data in published]
    return [m for m in decoded if isinstance(m, wire.Beacon)]


def later(node: Node, seconds: float) -> None:
    """The node's clock moved on by ``seconds`` (as over a pause of the
    process: nothing of it ran meanwhile)."""
    clock = node.cluster.clock
    node.cluster.clock = lambda: clock() + seconds


async def test_a_node_whose_leases_are_in_doubt_sends_no_beacon(node: Node) -> None:
    # Another node watches t1.
    node.host.join(RemoteConn(node="n2", ref=1, link=node.cluster, role="spectator"))
    assert [(b.t, b.owner) for b in beacons(node)] == [("t1", "n1")]
    # Its last renewal began two leases ago (it was paused): t1 may be another's.
    later(node, 2 * LEASE)
    assert beacons(node) == []


async def test_a_node_back_after_a_lease_without_heartbeat_attaches_its_connections_again(
    node: Node, postgres_url: str, listening: aioredis.Redis
) -> None:
    cluster = node.cluster
    watching = await attached_elsewhere(cluster, postgres_url, "far", "n2")
    await cluster.sweep()  # renewed in time: kept
    assert cluster.remote(watching)
    # Paused for two leases: n2 saw no heartbeat and let the connection go.
    later(node, 2 * LEASE)
    await cluster.sweep()
    await node.settle()
    assert watching.ws.closed == [(1013, "resync")]  # type: ignore[attr-defined]
    assert cluster.count() == 0 and cluster.followed == {}


async def test_what_the_follower_decides_is_done_to_the_connections(
    node: Node, postgres_url: str, listening: aioredis.Redis
) -> None:
    """The driver feeds the owner's messages to the follower and does what
    it answers: a beacon of the same node under a new fence (a restart)
    closes the connection to resume."""
    conn = await attached_elsewhere(node.cluster, postgres_url, "far", "n3")
    fence = node.cluster.followed["far"].owner[1]
    node.feed(wire.Attached(t="far", ref=conn.ref, key="gm"))
    node.feed(wire.Deliver(t="far", ref=conn.ref, msgs=[], rev=10, epoch=1))
    node.feed(wire.Beacon(t="far", epoch=1, rev=10, owner="n3", fence=fence))
    await node.settle()
    assert conn.ws.closed == [] and node.cluster.remote(conn)  # type: ignore[attr-defined]
    node.feed(wire.Beacon(t="far", epoch=1, rev=10, owner="n3", fence=fence + 1))
    await node.settle()
    assert conn.ws.closed == [(1013, "table moved")]  # type: ignore[attr-defined]
    assert not node.cluster.remote(conn)


async def test_a_table_just_taken_is_announced_even_with_no_other_node_watching(
    node: Node, postgres_url: str
) -> None:
    """Another node may hold connections attached to the table's former
    owner (a process of this node's name, before a restart) that this one
    does not know: its beacons go out for a lease after the take."""
    assert beacons(node) == []  # nobody attached, nothing taken lately
    orphans(postgres_url, "o1")
    assert await node.cluster.claim("o1")  # a hello found it orphaned
    fence = node.cluster.leases.store.fences["o1"]
    assert [(b.t, b.owner, b.fence) for b in beacons(node)] == [("o1", "n1", fence)]
