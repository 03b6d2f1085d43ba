"""Reconnecting clients catch up without reloading: replay from the buffer,
a snapshot when the gap is too old or the epoch differs."""

from __future__ import annotations

import pytest
from tests.server.conftest import Running, make_config

from vigil.net.app import shutdown, start

CHARS = {"a": {"mettle": 50}}


async def test_resume_replays_missed_patches(running: Running) -> None:
    table, gm = await running.table("mettle", CHARS)
    token = await running.mint(gm, "spectator")
    watcher = await running.connect(token)
    epoch, rev = watcher.epoch, watcher.rev
    await watcher.close()
    for _ in range(5):
        await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})
    back = await running.connect(
        token, resume={"table": table, "epoch": epoch, "rev": rev}, expect_state=False, prior=watcher
    )
    await back.wait_rev(gm.rev)
    assert back.snapshots == 0 and len(back.patches) == 5
    fresh = await running.connect(token)
    assert back.state == fresh.state


@pytest.mark.parametrize(
    "bound",
    [{"replay_buffer": 3}, {"replay_buffer_bytes": 600}],
    ids=["entries", "bytes"],
)
async def test_gap_older_than_the_buffer_gets_a_snapshot(tmp_path, bound) -> None:  # type: ignore[no-untyped-def]
    """Past either bound of the replay buffer (revs or bytes: a rattle's
    patch is over 100 bytes per audience, so 600 bytes keep fewer than the
    6 revs missed) a resume gets a snapshot instead of a gap."""
    config = make_config(tmp_path, **bound)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        table, gm = await run.table("mettle", CHARS)
        token = await run.mint(gm, "spectator")
        watcher = await run.connect(token)
        epoch, rev = watcher.epoch, watcher.rev
        await watcher.close()
        for _ in range(6):
            await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})
        back = await run.connect(token, resume={"table": table, "epoch": epoch, "rev": rev})
        assert back.snapshots == 1 and back.rev == gm.rev
        assert back.state is not None and back.state["characters"]["a"]["sheet"]["rattle"] == 6
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)


async def test_wrong_epoch_gets_a_snapshot(running: Running) -> None:
    table, gm = await running.table("mettle", CHARS)
    token = await running.mint(gm, "spectator")
    watcher = await running.connect(token)
    await watcher.close()
    result = await gm.ok({"type": "table.reset_history"})
    assert result["epoch"] == 2
    await gm.wait_for(lambda c: c.epoch == 2)
    back = await running.connect(token, resume={"table": table, "epoch": 1, "rev": watcher.rev})
    assert back.snapshots == 1 and back.epoch == 2
    page = await gm.request({"type": "history", "table": table})
    assert page["epoch"] == 2 and page["entries"] == []
