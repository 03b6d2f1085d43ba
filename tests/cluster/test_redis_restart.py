"""Redis stops for a few seconds under load, and starts again (empty, on the
same port): two nodes, the demo table owned by ``n1``, clients of both nodes
sending it commands all along, and clients that only watch.

Nothing is silently lost, nothing is done twice: every command (each one
valid) ends acknowledged, an ``outcome_unknown`` on the way sent again with
the same id, as is a command whose connection was closed 1013; each is in
the log exactly once, at its ack's rev. Once Redis is back every view
converges to a fresh snapshot, without further commands (a watcher of ``n2``
that missed patches during the outage learns so from the owner's beacon: its
connection is closed 1013 and it resumes) and with them.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec
import psycopg
import pytest
from tests.support.client import WAIT, Client
from tests.support.cluster import VigilCluster
from tests.support.reconnecting import BOUND, Outcome, ReconnectingClient
from tests.support.redis import RedisServer
from tests.support.server import ServerProcess

from vigil.changes import LogEntry
from vigil.close_codes import CloseCode

pytestmark = pytest.mark.asyncio

# The load: each sender one command at a time, a pause between them, for
# BEFORE seconds, the OUTAGE, then AFTER seconds (bounded by MAX_COMMANDS).
PACE = 0.05
BEFORE = 1.0
OUTAGE = 2.0
AFTER = 2.0
MAX_COMMANDS = 200
FURTHER = 3  # commands each sender sends once the views have converged


def demo_senders(
    n1: ServerProcess, n2: ServerProcess
) -> dict[str, tuple[ServerProcess, str, dict[str, Any]]]:
    """Who sends what: a GM on the owner, a GM and a player on the other
    node (their commands forwarded), each on a character of its own."""
    return {
        "near-gm": (n1, n1.gm_token, {"type": "mettle.rattle", "char": "ysolde", "amount": 1}),
        "far-gm": (n2, n1.gm_token, {"type": "mettle.rattle", "char": "raider", "amount": 1}),
        "far-player": (n2, n1.player_token, {"type": "mettle.effort", "char": "brannoc", "effort": 1}),
    }


def logged_requests(store: str) -> dict[str, list[int]]:
    """Every request the demo table's log names, with the revs of its entries."""
    decoder = msgspec.json.Decoder(LogEntry)
    with psycopg.connect(store, autocommit=True) as conn:
        rows = conn.execute("SELECT entry FROM log WHERE table_id = 'demo'").fetchall()
    found: dict[str, list[int]] = {}
    for (text,) in rows:
        entry = decoder.decode(text)
        if entry.request is not None:
            found.setdefault(entry.request, []).append(entry.rev)
    return found


async def fresh_views(cluster: VigilCluster, tokens: dict[str, str]) -> dict[str, Client]:
    """A fresh snapshot of each role's view, from each node (they agree)."""
    views: dict[str, Client] = {}
    for role, token in tokens.items():
        near = await Client.open(cluster["n1"].ws_url, token)
        far = await Client.open(cluster["n2"].ws_url, token)
        assert (near.epoch, near.rev, near.state) == (far.epoch, far.rev, far.state), role
        await far.close()
        views[role] = near
    return views


def at(target: Client) -> Callable[[ReconnectingClient], bool]:
    """Whether a view is at ``target``'s epoch and rev."""
    return lambda c: (c.epoch, c.rev) == (target.epoch, target.rev)


async def converge(cluster: VigilCluster, clients: dict[str, tuple[str, ReconnectingClient]]) -> int:
    """Every client's view becomes a fresh snapshot of its role's; the rev."""
    tokens = {role: rc.token for role, rc in clients.values()}
    fresh = await fresh_views(cluster, tokens)
    try:
        for name, (role, rc) in clients.items():
            target = fresh[role]
            await rc.wait_for(at(target), WAIT)
            assert rc.state == target.state, f"{name}: its view differs from a fresh snapshot"
        return fresh["gm"].rev
    finally:
        for view in fresh.values():
            await view.close()


async def test_no_command_is_lost_when_redis_restarts(
    vigil_cluster: VigilCluster, redis_server: RedisServer
) -> None:
    cluster = vigil_cluster
    # The senders go far above a person's pace (the rate limit is tested alone).
    cluster.env.update({"VIGIL_RATE_PER_S": "1000", "VIGIL_RATE_BURST": "1000"})
    cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    assert cluster.owner_of("demo") == "n1"
    senders = demo_senders(n1, n2)
    clients: dict[str, tuple[str, ReconnectingClient]] = {}
    try:
        for name, (node, token, _body) in senders.items():
            role = "player" if token == n1.player_token else "gm"
            clients[name] = (role, await ReconnectingClient(name, token, node.ws_url).start(WAIT))
        # Watchers only: one on each node.
        for name, node in (("far-watcher", n2), ("near-watcher", n1)):
            watcher = ReconnectingClient(name, n1.spectator_token, node.ws_url)
            clients[name] = ("spectator", await watcher.start(WAIT))
        outcomes: dict[str, list[Outcome]] = {name: [] for name in senders}
        stop = asyncio.Event()

        async def send(name: str, body: dict[str, Any]) -> None:
            rc = clients[name][1]
            for _ in range(MAX_COMMANDS):
                if stop.is_set():
                    return
                outcomes[name].append(await rc.command(body))
                await asyncio.sleep(PACE)

        workers = [asyncio.create_task(send(name, body)) for name, (_n, _t, body) in senders.items()]
        await asyncio.sleep(BEFORE)
        down = time.monotonic()
        await asyncio.to_thread(redis_server.stop)
        await asyncio.sleep(OUTAGE)
        await asyncio.to_thread(redis_server.start)
        back = time.monotonic()
        await asyncio.sleep(AFTER)
        stop.set()
        # Every command ends: an answer, within the bound, however many sends.
        await asyncio.wait_for(asyncio.gather(*workers), BOUND + WAIT)

        every = [o for name in senders for o in outcomes[name]]
        kinds = Counter(o.answer["type"] if o.acked else o.answer["code"] for o in every)
        print(
            f"outcomes {dict(kinds)}; sent again: {sum(o.sends > 1 for o in every)}; "
            f"outcome_unknown first: {sum(o.unknown > 0 for o in every)}; "
            f"reconnects: { {n: rc.stats.reconnects for n, (_r, rc) in clients.items()} }"
        )
        # Every command is valid and far below the rate limit: a refusal
        # would be a wrong answer (the client sends one again after
        # table_unavailable or rate_limited: none may come), and an
        # outcome_unknown left after the resends a command still in doubt.
        assert set(kinds) == {"ack"}, [(o.id, o.answer, o.sends) for o in every if not o.acked]
        # While Redis is down a node that knows it answers bus_unavailable
        # (certainly not forwarded, nothing done) and the client sends it
        # again; no other refusal may come.
        expected = {"outcome_unknown", "bus_unavailable"}
        assert all(set(o.again) <= expected for o in every), [
            (o.id, o.again) for o in every if set(o.again) - expected
        ]
        for name in senders:  # the table was served again once Redis was back
            assert any(o.acked and o.answered_at > back for o in outcomes[name]), name

        # Each command is in the log once, at its ack's rev (whatever the
        # sends and reconnects were).
        logged = logged_requests(cluster.store)
        for name in senders:
            rc = clients[name][1]
            for o in outcomes[name]:
                assert logged.get(rc.request(o.id)) == [o.answer["rev"]], (name, o)

        # A connection was only ever closed to be resumed (1013), never for
        # good nor failing (no view went wrong: no gap, no stale patch or
        # snapshot, no command acked at two revs, no hello refused); the
        # watcher of n2 missed the owner's patches of the outage and was
        # told so.
        for name, (_role, rc) in clients.items():
            assert set(rc.stats.closes) <= {CloseCode.TRY_AGAIN_LATER}, (name, rc.stats.closes)
            assert not rc.failures, rc.failures
        assert any(down < o.answered_at < back and o.acked for o in outcomes["near-gm"])
        assert clients["far-watcher"][1].stats.reconnects >= 1

        # Converged without a further command (the watchers, through the
        # beacons), then with further commands from every sender.
        rev = await converge(cluster, clients)
        for name, (_n, _t, body) in senders.items():
            for _ in range(FURTHER):
                assert (await clients[name][1].command(body)).acked, name
        assert await converge(cluster, clients) == rev + FURTHER * len(senders)
        assert not [f for _role, rc in clients.values() for f in rc.failures]
    finally:
        for _role, rc in clients.values():
            await rc.close()
