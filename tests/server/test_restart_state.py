"""Soft state across a restart, with real signals: what a table rebuilt
from its snapshot and log does equals what it would have done before the
restart — the GM's undo included."""

from __future__ import annotations

import asyncio
import pathlib
import signal
import time
from typing import Any

import pytest
from tests.support.client import Client
from tests.support.server import ServerProcess


async def _rattle_then_injury(server: ServerProcess) -> None:
    """Revs 4 to 7 of the demo table (three characters at revs 1-3): with a
    snapshot every 2 entries, the last one is taken at the second rattle and
    the injury is the log's tail."""
    gm = await Client.open(server.ws_url, server.gm_token)
    await gm.ok({"type": "character.create", "id": "c", "name": "Cara", "sheet": {"mettle": 9}})
    await gm.ok({"type": "mettle.rattle", "char": "c", "amount": 1})
    await gm.ok({"type": "mettle.rattle", "char": "c", "amount": 1})
    await gm.ok({"type": "mettle.injury_add", "char": "c", "label": "cut", "penalty": 1})
    await gm.close()


@pytest.mark.parametrize(
    ("sig", "snapshot_every"),
    [(signal.SIGTERM, "1000"), (signal.SIGKILL, "1000"), (signal.SIGKILL, "2")],
    ids=["sigterm", "sigkill", "sigkill-after-a-snapshot"],
)
async def test_undo_after_a_restart_undoes_the_latest_command(
    tmp_path: pathlib.Path, sig: int, snapshot_every: str
) -> None:
    env = {"VIGIL_SNAPSHOT_EVERY": snapshot_every}
    server = ServerProcess(data_dir=tmp_path / "d", env=env).start()
    try:
        await _rattle_then_injury(server)
        server.stop(sig)
        server.start()
        gm = await Client.open(server.ws_url, server.gm_token)
        assert gm.state is not None
        # The GM's view still says what the undo takes back (from the log).
        about = gm.state["undo"]
        assert (about["command"], about["char"], about["name"]) == ("mettle.injury_add", "c", "Cara")
        await gm.ok({"type": "undo"})
        assert gm.state["undo"]["command"] == "mettle.rattle"
        sheet = gm.state["characters"]["c"]["sheet"]
        assert (sheet["injuries"], sheet["rattle"]) == ([], 2), "the injury went, the rattle stayed"
        await gm.ok({"type": "undo"})
        assert gm.state["characters"]["c"]["sheet"]["rattle"] == 1, "then the second rattle"
        await gm.close()
    finally:
        server.stop()


RATE = 60.0  # one game minute per wall second: Mettle 5 departs in 5 s


def _game_at(clock: dict[str, Any], wall: float) -> float:
    if clock["mode"] != "running":
        return float(clock["game"])
    return float(clock["game"] + (wall - clock["wall"]) * clock["rate"])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
async def test_nobody_dies_while_the_server_is_down_and_the_clock_runs_again_with_a_gm(
    tmp_path: pathlib.Path, sig: int
) -> None:
    """A GM connected, the clock running and a character dying: stopped
    (cleanly or killed) and started again with no GM, the clock is paused
    where it stood while a GM was there — before the restart, so the
    downtime is not counted — and it runs again when a GM connects."""
    env = {"VIGIL_PRESENCE_MARK_SECONDS": "0.2"}
    server = ServerProcess(data_dir=tmp_path / "d", env=env).start()
    try:
        gm = await Client.open(server.ws_url, server.gm_token)
        await gm.ok({"type": "clock.run", "rate": RATE})
        await gm.ok({"type": "mettle.pain", "char": "brannoc", "amount": 6})
        assert gm.state is not None
        sheet = gm.state["characters"]["brannoc"]["sheet"]
        assert sheet["status"] == "dying"
        deadline = sheet["departs_at"]
        clock = gm.state["clock"]
        stopped_at = time.time()
        server.stop(sig)
        await gm.close()
        downtime = max(0.0, clock["wall"] + (deadline - clock["game"]) / RATE - time.time()) + 0.5
        await asyncio.sleep(downtime)  # past the deadline, had the clock run on
        server.start()
        watcher = await Client.open(server.ws_url, server.spectator_token)
        assert watcher.state is not None
        assert watcher.state["clock"]["mode"] == "paused"
        assert watcher.state["characters"]["brannoc"]["sheet"]["status"] == "dying"
        assert watcher.state["clock"]["game"] <= _game_at(clock, stopped_at), "not a second of downtime"
        gm = await Client.open(server.ws_url, server.gm_token)
        await watcher.wait_for(lambda c: c.state["clock"]["mode"] == "running")
        await gm.close()
        await watcher.close()
    finally:
        server.stop()
