"""SIGTERM: stop accepting, finish what is in flight, close clients with
1001, exit 0 — and everything acknowledged is there on the next start."""

from __future__ import annotations

import asyncio
import json
import pathlib
import urllib.request

import pytest
from tests.support.client import WAIT, Client
from tests.support.server import ServerProcess

from vigil import event_loop


async def test_sigterm_is_graceful(tmp_path: pathlib.Path) -> None:
    server = ServerProcess(data_dir=tmp_path / "d").start()
    with urllib.request.urlopen(f"{server.url}/healthz", timeout=WAIT) as reply:
        # The loop is uvloop wherever it is installed (vigil.event_loop).
        assert json.loads(reply.read()) == {"ok": True, "tables": 1, "loop": event_loop.factory("auto")[0]}
    gm = await Client.open(server.ws_url, server.gm_token)
    spectator = await Client.open(server.ws_url, server.spectator_token)
    sent = [
        asyncio.create_task(gm.cmd({"type": "mettle.rattle", "char": "brannoc", "amount": 1}))
        for _ in range(20)
    ]
    await asyncio.sleep(0.01)
    code = await asyncio.to_thread(server.stop)
    assert code == 0
    await spectator.wait_for(lambda c: c.ws.close_code is not None)
    assert spectator.ws.close_code == 1001
    replies = await asyncio.gather(*sent, return_exceptions=True)
    acked = sum(1 for r in replies if isinstance(r, dict) and r["type"] == "ack")
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{server.url}/healthz", timeout=1)
    server.start()
    again = await Client.open(server.ws_url, server.banner["GM dashboard"].split("#token=")[1])
    assert again.state is not None
    rattle = again.state["characters"]["brannoc"]["sheet"]["rattle"]
    assert acked <= rattle <= 20
    await again.close()
    server.stop()
