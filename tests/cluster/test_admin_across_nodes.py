"""A table's administration, presence and limits are the owner's, and hold
for the connections every node holds: with two nodes and the demo table
owned by ``n1``, a revoked token, a rotated key, an archived or deleted
table end the matching connections of ``n2`` with the same close codes as
on a node alone (tests/server/test_permissions.py, test_undo_history.py),
whichever node the command was sent to, and every node then refuses the
dead token as a node alone does; a GM connected only to ``n2`` keeps the
owner's clock running, and its leaving (or its node dying) pauses it; the
per-table limits count the connections of both nodes."""

from __future__ import annotations

import asyncio
import functools
import time

import pytest
from tests.support.client import WAIT, Client
from tests.support.cluster import LEASE_SECONDS, TAKEOVER_BOUND, VigilCluster
from tests.support.server import ServerProcess

from vigil.close_codes import CloseCode

pytestmark = pytest.mark.asyncio


async def close_code(client: Client) -> int | None:
    """The code ``client``'s connection was closed with (it waits for it)."""
    await asyncio.wait_for(client.ws.wait_closed(), WAIT)
    return client.ws.close_code


async def refusal(node: ServerProcess, token: str) -> tuple[list[str], int | None]:
    """The error codes and close code a hello with ``token`` gets from
    ``node``; it is never welcomed."""
    client = await Client.open(node.ws_url, token, expect_state=False)
    code = await close_code(client)
    assert client.welcome is None, f"welcomed by {node.url}: {client.welcome}"
    return [e["code"] for e in client.errors], code


async def refused_everywhere(cluster: VigilCluster, token: str) -> set[tuple[tuple[str, ...], int | None]]:
    """What every node answers a hello with ``token`` (one answer if they agree)."""
    answers = [await refusal(node, token) for node in cluster.nodes.values()]
    return {(tuple(codes), code) for codes, code in answers}


async def still_served(gm: Client, *watchers: Client) -> None:
    """The watchers are still connected and sent the table's patches: a
    change by ``gm`` reaches each of them."""
    await gm.ok({"type": "mettle.rattle", "char": "raider", "amount": 1})
    for watcher in watchers:
        await watcher.wait_rev(gm.rev)
        assert watcher.ws.close_code is None


async def mint(gm: Client, role: str, chars: list[str] | None = None) -> tuple[str, str]:
    """A new token of the GM's table: the token and its id."""
    result = await gm.ok({"type": "token.mint", "role": role, "chars": chars or []})
    return str(result["token"]), str(result["token_id"])


async def welcomed(opened: list[Client], node: ServerProcess, token: str) -> Client:
    """A client of ``node`` with ``token``, welcomed; kept in ``opened``, which
    the test closes at its end."""
    client = await Client.open(node.ws_url, token)
    opened.append(client)
    assert client.welcome is not None, client.errors
    return client


@pytest.mark.parametrize("sent_to", ["n1", "n2"])
async def test_admin_commands_end_the_other_nodes_connections(
    vigil_cluster: VigilCluster, sent_to: str
) -> None:
    """Each command sent to ``sent_to`` (``n2``: forwarded to the owner)."""
    cluster = vigil_cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    assert cluster.owner_of("demo") == "n1"
    issuer = cluster[sent_to]
    opened: list[Client] = []
    connect = functools.partial(welcomed, opened)

    try:
        gm = await connect(issuer, n1.gm_token)

        # token.revoke: the revoked token's connection on n2 ends (4003),
        # the other token's stays; every node refuses the token.
        player_token, player_id = await mint(gm, "player", ["brannoc"])
        player = await connect(n2, player_token)
        spectator = await connect(n2, n1.spectator_token)
        await gm.ok({"type": "token.revoke", "token_id": player_id})
        assert await close_code(player) == CloseCode.TOKEN_REVOKED
        await still_served(gm, spectator)
        assert await refused_everywhere(cluster, player_token) == {(("token_revoked",), CloseCode.REFUSED)}

        # table.archive: the non-GM connections on n2 end (4005), a GM's
        # stays; every node refuses a spectator, and still lets a GM in.
        player = await connect(n2, n1.player_token)
        far_gm = await connect(n2, n1.gm_token)
        await gm.ok({"type": "table.archive", "archived": True})
        assert await close_code(player) == CloseCode.TABLE_ARCHIVED
        assert await close_code(spectator) == CloseCode.TABLE_ARCHIVED
        await still_served(gm, far_gm)
        assert await refused_everywhere(cluster, n1.spectator_token) == {(("archived",), CloseCode.REFUSED)}
        for node in (n1, n2):
            await connect(node, n1.gm_token)
        await gm.ok({"type": "table.archive", "archived": False})

        # table.rotate_key: every connection but the sender's ends (4003),
        # on both nodes; every node refuses the old tokens as forged, and
        # takes the new GM token.
        player = await connect(n2, n1.player_token)
        spectator = await connect(n2, n1.spectator_token)
        others = [c for c in opened if c is not gm and c.ws.close_code is None]
        rotated = await gm.ok({"type": "table.rotate_key"})
        for client in others:
            assert await close_code(client) == CloseCode.TOKEN_REVOKED
        assert gm.ws.close_code is None
        for old in (n1.gm_token, n1.player_token, n1.spectator_token):
            assert await refused_everywhere(cluster, old) == {(("bad_token",), CloseCode.REFUSED)}
        new_gm = str(rotated["token"])
        far_gm = await connect(n2, new_gm)
        near_gm = await connect(n1, new_gm)
        await still_served(gm, far_gm, near_gm)

        # table.delete (the operator's): every connection of the table ends
        # (4004), on both nodes; every node refuses its tokens as unknown.
        player_token, _ = await mint(gm, "player", ["brannoc"])
        spectator_token, _ = await mint(gm, "spectator")
        player = await connect(n2, player_token)
        spectator = await connect(n2, spectator_token)
        table = [gm, far_gm, near_gm, player, spectator]
        operator = await Client.open(issuer.ws_url, issuer.operator_token, expect_state=False)
        opened.append(operator)
        await operator.ok({"type": "table.delete", "table": "demo"})
        for client in table:
            assert await close_code(client) == CloseCode.TABLE_DELETED
        for token in (new_gm, player_token, spectator_token):
            assert await refused_everywhere(cluster, token) == {(("bad_token",), CloseCode.REFUSED)}
        assert await operator.ok({"type": "table.list"}) == []
    finally:
        for client in opened:
            await client.close()


def clock_mode(client: Client) -> str:
    assert client.state is not None
    return str(client.state["clock"]["mode"])


async def test_a_gm_of_another_node_keeps_the_clock_running(vigil_cluster: VigilCluster) -> None:
    """pause_without_gm across nodes: the owner counts the GMs every node
    holds for its table; a GM leaving ``n2``, or ``n2`` dying with it,
    pauses the clock (awaiting a GM), and a GM back on ``n2`` runs it."""
    cluster = vigil_cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    assert cluster.owner_of("demo") == "n1"
    watcher = await Client.open(n1.ws_url, n1.spectator_token)  # sees the owner's clock
    gm = await Client.open(n2.ws_url, n1.gm_token)
    try:
        await gm.ok({"type": "clock.run", "rate": 1.0})
        await watcher.wait_for(lambda c: clock_mode(c) == "running")
        # Several lease sweeps of the owner with its only GM on n2: still running.
        await asyncio.sleep(LEASE_SECONDS)
        await still_served(gm, watcher)
        assert clock_mode(watcher) == clock_mode(gm) == "running"

        # The GM leaves n2: the owner pauses the clock for want of one.
        await gm.close()
        await watcher.wait_for(lambda c: clock_mode(c) == "paused")
        # A GM back on n2 runs it again (it was paused awaiting a GM: a
        # pause of the GM's own would stay).
        gm = await Client.open(n2.ws_url, n1.gm_token)
        await watcher.wait_for(lambda c: clock_mode(c) == "running")
        await gm.wait_for(lambda c: clock_mode(c) == "running")

        # n2 dies with the table's only GM: once n2's heartbeat is older
        # than a lease, the owner forgets its connections and pauses.
        cluster.kill("n2")
        await watcher.wait_for(lambda c: clock_mode(c) == "paused", timeout=TAKEOVER_BOUND + WAIT)
        assert cluster.owner_of("demo") == "n1"
        page = await Client.open(n1.ws_url, n1.gm_token)
        history = await page.request({"type": "history", "table": "demo", "limit": 5})
        codes = [e["code"] for entry in history["entries"] for e in entry["events"]]
        assert "clock_auto_paused" in codes
        await page.close()
    finally:
        await gm.close()
        await watcher.close()


async def test_the_connection_limits_count_every_nodes_connections(vigil_cluster: VigilCluster) -> None:
    """max_connections_per_table and max_spectators_per_table are the
    table's, not a node's: the owner counts the connections both nodes
    hold, and refuses a hello on either as a node alone does (1013)."""
    cluster = vigil_cluster
    cluster.env.update({"VIGIL_MAX_CONNECTIONS_PER_TABLE": "4", "VIGIL_MAX_SPECTATORS_PER_TABLE": "2"})
    cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    try_again = CloseCode.TRY_AGAIN_LATER
    opened: list[Client] = []
    connect = functools.partial(welcomed, opened)

    try:
        await connect(n1, n1.gm_token)
        await connect(n2, n1.spectator_token)
        await connect(n1, n1.spectator_token)
        for node in (n1, n2):  # the spectators' places are taken, one on each node
            assert await refusal(node, n1.spectator_token) == (["spectators_full"], try_again)
        player = await connect(n2, n1.player_token)
        for node in (n1, n2):  # every place is taken
            assert await refusal(node, n1.gm_token) == (["table_full"], try_again)
        # A place freed on n2 is free for a hello on n1 once the owner
        # heard of it (the leaving crosses the bus: waited for, bounded).
        await player.close()
        deadline = time.monotonic() + WAIT
        while True:
            client = await Client.open(n1.ws_url, n1.gm_token)
            opened.append(client)
            if client.welcome is not None:
                break
            assert [e["code"] for e in client.errors] == ["table_full"]
            assert time.monotonic() < deadline, "the place freed on n2 was never free on n1"
            await asyncio.sleep(0.1)
        assert await refusal(n2, n1.player_token) == (["table_full"], try_again)
    finally:
        for client in opened:
            await client.close()
