"""Soft state across a restart, with real signals: what a table rebuilt
from its snapshot and log does equals what it would have done before the
restart — the GM's undo included."""

from __future__ import annotations

import pathlib
import signal

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
        await gm.ok({"type": "undo"})
        assert gm.state is not None
        sheet = gm.state["characters"]["c"]["sheet"]
        assert (sheet["injuries"], sheet["rattle"]) == ([], 2), "the injury went, the rattle stayed"
        await gm.ok({"type": "undo"})
        assert gm.state["characters"]["c"]["sheet"]["rattle"] == 1, "then the second rattle"
        await gm.close()
    finally:
        server.stop()
