"""Two nodes sharing PostgreSQL and Redis: a client of either node works
the same on a table only one of them owns (forwarded commands, patches
relayed once per audience, the ack before its patch, refusals as such,
a repeated command id answered without applying twice)."""

from __future__ import annotations

import pytest
from tests.support.client import Client
from tests.support.cluster import VigilCluster

pytestmark = pytest.mark.asyncio


async def test_a_client_of_another_node_plays_the_owners_table(vigil_cluster: VigilCluster) -> None:
    cluster = vigil_cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    assert cluster.owner_of("demo") == "n1"
    gm_far = await Client.open(n2.ws_url, n1.gm_token, session="gm-far")
    gm_near = await Client.open(n1.ws_url, n1.gm_token)
    player_far = await Client.open(n2.ws_url, n1.player_token)
    spectator_far = await Client.open(n2.ws_url, n1.spectator_token)
    try:
        assert gm_far.welcome["role"] == "gm" and player_far.welcome["characters"] == ["brannoc"]
        assert gm_far.state == gm_near.state and gm_far.rev == gm_near.rev
        start = gm_far.rev
        # Forwarded from n2: acked at the next rev, its patch reaches both nodes.
        await gm_far.ok({"type": "mettle.pain", "char": "brannoc", "amount": 2})
        for c in (gm_near, player_far, spectator_far):
            await c.wait_rev(start + 1)
        assert gm_near.state == gm_far.state
        assert gm_far.state is not None and gm_far.state["characters"]["brannoc"]["sheet"]["pain"] == 2
        # A player of n2 acts on its own character; a refusal comes back as one.
        await player_far.ok({"type": "mettle.effort", "char": "brannoc", "effort": 4})
        refused = await player_far.cmd({"type": "mettle.effort", "char": "ysolde", "effort": 4})
        assert (refused["type"], refused["code"]) == ("error", "forbidden")
        await gm_near.wait_rev(start + 2)
        assert gm_near.state == gm_far.state
        # The same id again in the same session: its first ack, not a second
        # application (from a new connection too, as after a lost one).
        body = {"type": "mettle.pain", "char": "brannoc", "amount": 1}
        first = await gm_far.request({"type": "cmd", "id": "same-id", "table": "demo", "body": body})
        again = await gm_far.request({"type": "cmd", "id": "same-id", "table": "demo", "body": body})
        assert first["type"] == again["type"] == "ack" and first["rev"] == again["rev"]
        retry = await Client.open(n2.ws_url, n1.gm_token, session="gm-far")
        once_more = await retry.request({"type": "cmd", "id": "same-id", "table": "demo", "body": body})
        assert (once_more["type"], once_more["rev"]) == ("ack", first["rev"])
        await retry.close()
        await gm_near.wait_rev(first["rev"])
        assert gm_near.state is not None and gm_near.state["characters"]["brannoc"]["sheet"]["pain"] == 3
        # Without a session an id means nothing past its answer: applied each time.
        twice = [
            await gm_near.request({"type": "cmd", "id": "reused", "table": "demo", "body": body})
            for _ in range(2)
        ]
        assert [r["type"] for r in twice] == ["ack", "ack"] and twice[1]["rev"] == twice[0]["rev"] + 1
        await gm_far.wait_rev(twice[1]["rev"])
        assert gm_far.state is not None and gm_far.state["characters"]["brannoc"]["sheet"]["pain"] == 5
        # History through the owner, as a player of n2 reads it.
        page = await player_far.request({"type": "history", "id": "h1", "table": "demo", "limit": 5})
        assert page["type"] == "history_page" and page["entries"]
        # Every client agrees with a fresh snapshot from either node.
        fresh = await Client.open(n2.ws_url, n1.gm_token)
        assert fresh.state == gm_near.state == gm_far.state and fresh.rev == gm_near.rev
        await fresh.close()
        health = cluster.healthz("n2")
        assert health["node"] == "n2" and health["owned"] == 0
        assert cluster.healthz("n1")["owned"] == 1
    finally:
        for c in (gm_far, gm_near, player_far, spectator_far):
            await c.close()
