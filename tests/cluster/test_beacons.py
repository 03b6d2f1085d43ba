"""An owner's beacon says how far a table is that other nodes watch; it must
never say a rev whose bundle is still to come. An edit commits its rev to
the table before the store's write and publishes its bundle after it: a
beacon in between made every other node think it had missed a bundle and
close its connections of that table ("resync") — under load, a steady
trickle of reconnects (found by the cluster bench)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from tests.support.client import Client
from tests.support.cluster import VigilCluster

pytestmark = pytest.mark.asyncio

# Vigil's default beacon period (Config.beacon_seconds); the store is held
# for a few of them, so that beacons certainly go out meanwhile.
BEACON_SECONDS = 1.0


async def test_no_beacon_runs_ahead_of_an_edit_waiting_for_the_store(vigil_cluster: VigilCluster) -> None:
    cluster = vigil_cluster.start(2)
    n1, n2 = cluster["n1"], cluster["n2"]
    assert cluster.owner_of("demo") == "n1"
    gm = await Client.open(n1.ws_url, n1.gm_token)
    near = await Client.open(n1.ws_url, n1.spectator_token)
    far = await Client.open(n2.ws_url, n1.spectator_token)
    try:
        start = far.rev
        with psycopg.connect(cluster.store) as conn:
            # The log cannot be written until this transaction ends: the
            # edit below waits between its commit to the table and its bundle.
            conn.execute("LOCK TABLE log IN SHARE MODE")
            sent = asyncio.create_task(gm.ok({"type": "mettle.pain", "char": "brannoc", "amount": 1}))
            await asyncio.sleep(BEACON_SECONDS * 3)
            assert not sent.done()
        await sent
        await far.wait_rev(start + 1)  # raises if n2 closed it meanwhile
        await near.wait_rev(start + 1)
        assert far.ws.close_code is None and far.snapshots == 1
        assert far.state == near.state and far.rev == near.rev
    finally:
        for client in (gm, near, far):
            await client.close()
