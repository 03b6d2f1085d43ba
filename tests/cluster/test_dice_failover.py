"""Dice anyone can verify across a failover (docs/dice.md): two real
``vigil serve`` nodes on a real PostgreSQL and Redis; the owner of a table
is killed (SIGKILL) in the middle of a dice period. The period lives in the
table's document in the store, so the new owner goes on with the same
commitment, and after the reveal every roll — before and after the kill —
verifies from the history alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.cluster.test_failover import acked, check_log, log_of
from tests.support.client import Client
from tests.support.cluster import VigilCluster
from tests.support.reconnecting import ReconnectingClient

from vigil import dice_verify

pytestmark = pytest.mark.asyncio


def _roll(i: int) -> dict[str, Any]:
    return {"type": "hursagmu.see_dim", "char": "juk", "challenge": 20, "nonce": f"{i:032x}"}


async def test_rolls_verify_after_the_owner_is_killed_mid_period(vigil_cluster: VigilCluster) -> None:
    cluster = vigil_cluster.start(2)
    op = await Client.open(cluster["n1"].ws_url, cluster.first.operator_token, expect_state=False)
    try:
        created = await op.ok({"type": "table.create", "system": "hursagmu", "name": "Proof"})
    finally:
        await op.close()
    table_id, gm_token = str(created["table"]), str(created["gm_token"])
    assert cluster.owner_of(table_id) == "n1"
    gm = await ReconnectingClient("gm", gm_token, lambda: [cluster["n2"].ws_url]).start()
    try:
        await acked(gm.send({"type": "character.create", "id": "juk", "name": "Juk"}))
        for i in range(3):
            await acked(gm.send(_roll(i)))
        assert gm.state is not None
        commitment = gm.state["dice"]["commitment"]
        await asyncio.to_thread(cluster.kill, "n1")
        owner = await asyncio.to_thread(cluster.wait_owner, table_id, other_than="n1")
        assert owner == "n2"
        for i in range(3, 6):
            await acked(gm.send(_roll(i)))
        assert gm.state["dice"]["commitment"] == commitment, "the period goes on after the failover"
        await acked(gm.send({"type": "dice.reveal"}))
        entries = log_of(cluster, table_id)
        check_log(entries, [gm])
        source = dice_verify.Source(
            table=table_id,
            epoch=entries[-1].epoch,
            entries=[
                {"rev": e.rev, "events": e.events, "dice": e.dice, "command": e.command} for e in entries
            ],
        )
        statuses = [f.status for f in dice_verify.verify(source)]
        assert statuses == ["verified"] * 6, statuses
        assert not gm.failures, gm.failures
    finally:
        await gm.close()
