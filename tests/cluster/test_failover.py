"""Failover under fire: real ``vigil serve`` nodes (lease 2 s) sharing a real
PostgreSQL and a real Redis, killed (SIGKILL) and frozen (SIGSTOP) while
reconnecting clients (tests/support/reconnecting.py) keep sending commands.

What must hold whatever the timing: every acknowledged command is in the
log exactly once, at the rev it was acknowledged at; a table's revs have
no gap; every command is acknowledged in the end (sent again with its id
as often as needed); every client's view ends equal to a fresh snapshot;
a timed effect fires at its game time across a failover; a node frozen
past its lease never writes again.

Moments are drawn from a seeded random.Random (``VIGIL_TEST_SEED``), so
that a run can be replayed; nothing is timed against a bound (the waits end as soon as
what they wait for happens, and are bounded only to fail instead of
hanging). The kills, the takeover delays, how late a deadline fired and
each test's wall time are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import asyncio
import collections
import os
import random
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

import msgspec
import psycopg
import pytest
from tests.support.client import Client
from tests.support.cluster import VigilCluster
from tests.support.reconnecting import BOUND, Outcome, ReconnectingClient

from vigil.changes import LogEntry

pytestmark = pytest.mark.asyncio

# Another seed replays other moments: VIGIL_TEST_SEED=7 pytest ...
SEED = int(os.environ.get("VIGIL_TEST_SEED", "1916"))
TABLES = 4
CLIENTS = 8  # two per table, spread over the nodes
COMMANDS = 240  # per client
WINDOW = 4  # commands in flight per client, at most
PACE = (0.3, 0.7)  # seconds between two bursts of a client
KILLS = 10
TIME_LIMIT = 150.0  # the whole stream, kills included
# A crit keeps the character on its feet (MET-06), so every pain counts.
PAIN = {"type": "mettle.pain", "char": "c", "amount": 1, "lot": "crit"}

_entry = msgspec.json.Decoder(LogEntry)


# -- reading what happened ----------------------------------------------------


def log_of(cluster: VigilCluster, table_id: str) -> list[LogEntry]:
    """The table's log as PostgreSQL holds it, oldest first."""
    with psycopg.connect(cluster.store, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT entry FROM log WHERE table_id = %s ORDER BY epoch, rev", (table_id,)
        ).fetchall()
    return [_entry.decode(row[0]) for row in rows]


def presence_of(cluster: VigilCluster, table_id: str) -> float | None:
    """The table's last presence mark (a GM known connected, vigil.net.timers)."""
    with psycopg.connect(cluster.store, autocommit=True) as conn:
        row = conn.execute("SELECT wall FROM presence WHERE table_id = %s", (table_id,)).fetchone()
    return None if row is None else float(row[0])


def check_log(entries: list[LogEntry], clients: list[ReconnectingClient]) -> None:
    """Revs 1..N in each epoch, each once; every command ``clients`` got
    an ack for is in the log once, at its ack's rev."""
    revs: dict[int, list[int]] = collections.defaultdict(list)
    for entry in entries:
        revs[entry.epoch].append(entry.rev)
    for epoch, seen in revs.items():
        assert seen == list(range(1, len(seen) + 1)), f"epoch {epoch}: revs {seen}"
    at = collections.defaultdict(list)
    for entry in entries:
        if entry.request is not None:
            at[entry.request].append(entry.rev)
    for client in clients:
        for msg_id, ack in client.acks.items():
            assert at[client.request(msg_id)] == [ack["rev"]], (client.name, msg_id, ack)


async def fresh_view(url: str, token: str) -> tuple[int, int, dict[str, Any]]:
    """Epoch, rev and state of a new connection's snapshot."""
    fresh = await Client.open(url, token)
    try:
        assert fresh.state is not None
        return fresh.epoch, fresh.rev, fresh.state
    finally:
        await fresh.close()


async def converge(client: ReconnectingClient, url: str) -> None:
    """The client's view catches up with a fresh snapshot and equals it."""
    epoch, rev, state = await fresh_view(url, client.token)
    await client.wait_for(lambda c: (c.epoch, c.rev) >= (epoch, rev))
    assert (client.epoch, client.rev) == (epoch, rev), client.name
    assert client.state == state, client.name


def sheet(client: ReconnectingClient, char: str = "c") -> dict[str, Any]:
    assert client.state is not None
    found: dict[str, Any] = client.state["characters"][char]["sheet"]
    return found


# -- setting up ---------------------------------------------------------------


async def make_table(cluster: VigilCluster, node: str, name: str, sheet: dict[str, Any]) -> tuple[str, str]:
    """A Pain & Mettle table made by the operator through ``node`` (the
    node that makes a table owns it) with one character ``c``; its id and
    its GM's token."""
    server = cluster[node]
    op = await Client.open(server.ws_url, cluster.first.operator_token, expect_state=False)
    try:
        created = await op.ok({"type": "table.create", "system": "mettle", "name": name})
    finally:
        await op.close()
    gm = await Client.open(server.ws_url, created["gm_token"])
    try:
        await gm.ok({"type": "character.create", "id": "c", "name": "Cato", "sheet": sheet})
    finally:
        await gm.close()
    return str(created["table"]), str(created["gm_token"])


async def mint_gm(url: str, gm_token: str, label: str) -> str:
    gm = await Client.open(url, gm_token)
    try:
        minted = await gm.ok({"type": "token.mint", "role": "gm", "label": label})
    finally:
        await gm.close()
    return str(minted["token"])


def live_urls(cluster: VigilCluster, down: set[str]) -> list[str]:
    return [node.ws_url for name, node in cluster.nodes.items() if name not in down and node.proc is not None]


async def acked(future: asyncio.Future[Outcome]) -> dict[str, Any]:
    """The command's ack (a refusal fails the test)."""
    outcome = await asyncio.wait_for(future, BOUND)
    assert outcome.acked, outcome
    return outcome.answer


# -- 1. SIGKILL chaos ---------------------------------------------------------


@dataclass
class Kill:
    node: str
    table: str
    in_flight: int  # commands of the table's clients unanswered at the kill
    takeover: float  # seconds from the kill to another node's lease
    new_owner: str


async def test_sigkill_chaos_every_acked_command_once(vigil_cluster: VigilCluster) -> None:
    """Three nodes, four tables, eight pipelining clients; the owner of a
    busy table is killed ten times at seeded moments (and restarted before
    the next kill, rejoining as any node)."""
    started = time.monotonic()
    rng = random.Random(SEED)
    cluster = vigil_cluster.start(3)
    names = list(cluster.nodes)
    tables = [
        await make_table(cluster, names[i % len(names)], f"Chaos {i}", {"mettle": 5}) for i in range(TABLES)
    ]
    assert {cluster.owner_of(t) for t, _ in tables} == set(names), "the operator's tables spread"
    down: set[str] = set()
    clients: list[ReconnectingClient] = []
    for k in range(CLIENTS):
        table_id, gm_token = tables[k % TABLES]
        home = cluster[names[k % len(names)]].ws_url  # where it connects first
        token = await mint_gm(home, gm_token, f"client {k}")
        client = ReconnectingClient(f"c{k}", token, home, random.Random(k))
        clients.append(await client.start())
        client.urls = lambda: live_urls(cluster, down)

    async def stream(client: ReconnectingClient, pace: random.Random) -> None:
        """Bursts: the window filled up to WINDOW commands in flight, then a pause."""
        sent: list[asyncio.Future[Outcome]] = []
        while len(sent) < COMMANDS:
            while len(client.pending) < WINDOW and len(sent) < COMMANDS:
                sent.append(client.send(dict(PAIN)))
            await asyncio.sleep(pace.uniform(*PACE))
        await asyncio.gather(*sent)

    kills: list[Kill] = []

    async def chaos() -> None:
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.3, 1.5))
            owners = {t: await asyncio.to_thread(cluster.wait_owner, t) for t, _ in tables}
            # The next moment a table has commands in flight (bounded: a
            # stream that has ended has none).
            busy_until = time.monotonic() + 3.0
            while True:
                in_flight = {t: sum(len(c.pending) for c in clients if c.table == t) for t in owners}
                busiest = max(in_flight.values())
                if busiest or time.monotonic() > busy_until:
                    break
                await asyncio.sleep(0.005)
            table_id = rng.choice(sorted(t for t, n in in_flight.items() if n == busiest))
            victim = owners[table_id]
            at = time.monotonic()
            down.add(victim)
            await asyncio.to_thread(cluster.kill, victim)
            owner = await asyncio.to_thread(cluster.wait_owner, table_id, other_than=victim)
            kills.append(Kill(victim, table_id, in_flight[table_id], time.monotonic() - at, owner))
            await asyncio.to_thread(cluster.restart, victim)  # rejoins as any node does
            down.discard(victim)

    try:
        async with asyncio.timeout(TIME_LIMIT):
            streams = [stream(c, random.Random(SEED + k)) for k, c in enumerate(clients)]
            await asyncio.gather(chaos(), *streams)
        failures = [f for c in clients for f in c.failures]
        assert not failures, failures
        assert all(len(c.acks) == COMMANDS and not c.pending for c in clients)
        for table_id, gm_token in tables:
            mine = [c for c in clients if c.table == table_id]
            check_log(log_of(cluster, table_id), mine)
            _, _, state = await fresh_view(rng.choice(live_urls(cluster, down)), gm_token)
            assert state["characters"]["c"]["sheet"]["pain"] == sum(len(c.acks) for c in mine)
        for client in clients:
            await converge(client, rng.choice(live_urls(cluster, down)))
    finally:
        for client in clients:
            await client.close()
        print(f"\nSIGKILL chaos: {len(kills)} kills")
        for n, kill in enumerate(kills, 1):
            print(
                f"  {n:2}. killed {kill.node}, owner of {kill.table} ({kill.in_flight} commands in flight):"
                f" {kill.new_owner} took it over after {kill.takeover:.2f} s"
            )
        if kills:
            delays = sorted(k.takeover for k in kills)
            print(
                f"  takeover: min {delays[0]:.2f} s, median {delays[len(delays) // 2]:.2f} s,"
                f" max {delays[-1]:.2f} s"
            )
        for client in clients:
            s = client.stats
            print(
                f"  {client.name}: {len(client.acks)} acked, {s.connects} welcomes, {s.resends} sent again,"
                f" {s.from_log} answered from the log, {s.repeated_acks} acked twice,"
                f" sent again after an error {dict(s.again) or 'never'},"
                f" {s.refused_hellos} hellos refused (table unavailable)"
            )
        print(f"  wall: {time.monotonic() - started:.1f} s")
    assert len(kills) == KILLS


# -- 2. a deadline across a failover ------------------------------------------

RATE = 45.0  # game seconds per wall second: mettle 3 departs 4 s after dying


@pytest.mark.parametrize(
    "presence",
    [
        pytest.param(None, id="killed-before-any-presence-mark"),
        pytest.param(0.5, id="killed-after-a-presence-mark"),
    ],
)
async def test_a_dying_character_departs_at_its_deadline_across_a_failover(
    vigil_cluster: VigilCluster, presence: float | None
) -> None:
    """MET-10 across a SIGKILL of the table's node, its GM connected to the
    other node: the new owner loads the countdown and the character departs
    at the deadline's game time. Whether the clock ran on meanwhile depends
    on the last presence mark (vigil.net.hub.adopt): without one it stopped
    at the last change, and the GM's return started it again; either way
    the deadline is a game time."""
    started = time.monotonic()
    if presence is not None:
        vigil_cluster.env["VIGIL_PRESENCE_MARK_SECONDS"] = str(presence)
    cluster = vigil_cluster.start(2)
    table_id, gm_token = await make_table(cluster, "n1", "Countdown", {"mettle": 3})
    assert cluster.owner_of(table_id) == "n1"
    gm = await ReconnectingClient("gm", gm_token, lambda: [cluster["n2"].ws_url]).start()
    try:
        ran = time.time()
        await acked(gm.send({"type": "clock.run", "rate": RATE}))
        if presence is not None:  # the owner has marked the GM present since the clock ran
            for _ in range(100):
                mark = await asyncio.to_thread(presence_of, cluster, table_id)
                if mark is not None and mark > ran:
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("no presence mark")
        ack = await acked(gm.send({"type": "mettle.pain", "char": "c", "amount": 5, "lot": "fail"}))
        await gm.wait_for(lambda c: c.rev >= ack["rev"])
        assert sheet(gm)["status"] == "dying"  # MET-06: pain above mettle
        deadline = sheet(gm)["departs_at"]
        assert gm.state is not None
        clock = gm.state["clock"]
        due = clock["wall"] + (deadline - clock["game"]) / clock["rate"]  # wall time of the deadline
        await asyncio.to_thread(cluster.kill, "n1")
        killed = time.time()
        owner = await asyncio.to_thread(cluster.wait_owner, table_id, other_than="n1")
        took = time.time() - killed
        await gm.wait_for(lambda c: sheet(c)["status"] == "departed")
        assert sheet(gm)["departed_at"] == deadline
        entries = log_of(cluster, table_id)
        check_log(entries, [gm])
        departures = [(e, ev) for e in entries for ev in e.events if ev["code"] == "departed"]
        assert len(departures) == 1, departures
        entry, event = departures[0]
        assert event["at"] == deadline and event["params"]["cause"] == "time"
        assert entry.game >= deadline, "never before its game time"
        assert entry.wall > killed, "applied by the new owner"
        paused = [e.rev for e in entries if any(ev["code"] == "clock_auto_paused" for ev in e.events)]
        await converge(gm, cluster["n2"].ws_url)
        assert not gm.failures, gm.failures
    finally:
        await gm.close()
    print(
        f"\ndeadline across a failover ({'no presence mark' if presence is None else 'presence marked'}):"
        f" {owner} took over {took:.2f} s after the kill, the deadline was {due - killed:+.2f} s from it;"
        f" departed {entry.wall - due:+.2f} s (wall) past the deadline,"
        f" {entry.game - deadline:.1f} game s past it;"
        f" clock {'paused at the takeover, run again by the GM' if paused else 'ran on'};"
        f" wall {time.monotonic() - started:.1f} s"
    )


# -- 3. split brain ----------------------------------------------------------

FREEZE = 4.0  # seconds n1 is stopped: twice its lease


async def test_a_node_frozen_past_its_lease_never_writes_again(vigil_cluster: VigilCluster) -> None:
    """SIGSTOP the demo table's owner past its lease; another node takes the
    table and commits; SIGCONT: a command that reached the frozen node
    meanwhile is not applied there (its fence is stale), only by the new
    owner, once, after the client sends it again; the log holds only the
    new owner's entries; every client converges; the old owner says it
    owns nothing once it has renewed."""
    started = time.monotonic()
    vigil_cluster.env["VIGIL_METRICS_PORT"] = "0"  # to read how n1 gave the table up
    cluster = vigil_cluster.start(3)
    assert cluster.owner_of("demo") == "n1"
    token = cluster.first.gm_token
    frozen: set[str] = set()
    near = await ReconnectingClient("near", token, lambda: [cluster["n1"].ws_url]).start()
    far = await ReconnectingClient("far", token, lambda: [cluster["n3"].ws_url]).start()
    clients = [near, far]
    brannoc = {"type": "mettle.pain", "char": "brannoc", "amount": 1, "lot": "crit"}
    try:
        pain = sheet(near, "brannoc")["pain"]
        before = await acked(near.send(brannoc))
        await far.wait_for(lambda c: c.rev >= before["rev"])
        await asyncio.to_thread(cluster.pause, "n1")
        frozen.add("n1")
        stopped = time.monotonic()
        # Read by n1 only when it wakes: in flight across the freeze.
        stale = near.send(brannoc)
        stale_id = next(reversed(near.pending))
        for client in clients:
            client.urls = lambda: live_urls(cluster, frozen)
        owner = await asyncio.to_thread(cluster.wait_owner, "demo", other_than="n1")
        took = time.monotonic() - stopped
        other = next(n for n in cluster.nodes if n not in ("n1", owner))
        new = await ReconnectingClient("new", token, lambda: [cluster[other].ws_url]).start()
        clients.append(new)
        committed = await acked(new.send(brannoc))
        assert committed["rev"] == before["rev"] + 1
        await asyncio.sleep(max(0.0, stopped + FREEZE - time.monotonic()))
        frozen.discard("n1")
        await asyncio.to_thread(cluster.resume, "n1")
        woke = time.monotonic()
        resent = await acked(stale)
        # n1 learns it lost the table at its next renewal (a third of a lease).
        for _ in range(100):
            health = await asyncio.to_thread(cluster.healthz, "n1")
            if health["owned"] == 0:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"n1 still owns {health['owned']} table(s)")
        dropped = time.monotonic() - woke
        for client in clients:
            await converge(client, cluster[owner].ws_url)
        entries = log_of(cluster, "demo")
        check_log(entries, clients)
        # After the freeze: the new owner's commit, then the stale command
        # applied once, by it; nothing else (n1 wrote nothing).
        after = [e.request for e in entries if e.rev > before["rev"]]
        assert after == [new.request(next(iter(new.acks))), near.request(stale_id)]
        assert resent["rev"] == committed["rev"] + 1
        assert sheet(near, "brannoc")["pain"] == pain + 3  # each of the three commands once
        failures = [f for c in clients for f in c.failures]
        assert not failures, failures
        assert cluster.owner_of("demo") == owner
    finally:
        for client in clients:
            await client.close()
    # How n1 found out: its sweep's renewal (logged table_lost) and/or a
    # commit refused by its stale fence; each gives the table up once.
    renewal = '"table_lost"' in cluster["n1"].log_path.read_text() if cluster["n1"].log_path else False
    moved = moved_count(cluster["n1"].banner["Metrics"])
    print(
        f"\nsplit brain: {owner} took the table {took:.2f} s into n1's {FREEZE:.0f} s freeze;"
        f" n1 owned nothing {dropped:.2f} s after waking (given up {moved:.0f} time(s):"
        f" {'its renewal' if renewal else 'no renewal'}"
        f"{' and a fenced commit' if moved > renewal else ''});"
        f" the stale command was sent {near.stats.resends} more time(s), applied once at rev {resent['rev']};"
        f" wall {time.monotonic() - started:.1f} s"
    )


def moved_count(metrics_url: str) -> float:
    """How many times the node gave a table up (vigil_tables_moved, any reason)."""
    with urllib.request.urlopen(metrics_url, timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("vigil_tables_moved_total")
    )


# -- the first node, restarted into a populated cluster -----------------------


async def test_the_first_node_restarted_while_others_hold_every_table_starts(
    vigil_cluster: VigilCluster,
) -> None:
    """n1 makes the demo table on a first start; killed, and started again
    once n2 holds every table, it finds no table of its own to load and
    must not make the demo again (it exited with table_exists)."""
    cluster = vigil_cluster.start(2)
    await asyncio.to_thread(cluster.kill, "n1")
    assert await asyncio.to_thread(cluster.wait_owner, "demo", other_than="n1") == "n2"
    await asyncio.to_thread(cluster.restart, "n1")
    health = await asyncio.to_thread(cluster.healthz, "n1")
    assert (health["node"], health["owned"]) == ("n1", 0)
    with psycopg.connect(cluster.store, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM tables").fetchone()
    assert row is not None and row[0] == 1
