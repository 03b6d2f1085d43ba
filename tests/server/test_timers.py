"""Timed rules fire on the clock with nobody connected, and after a restart
in the middle of a countdown (a real subprocess server, killed for real)."""

from __future__ import annotations

import asyncio
import pathlib
import time

from tests.server.conftest import Running, make_config
from tests.support.client import Client
from tests.support.server import ServerProcess

from vigil.net.app import shutdown, start

RATE = 60.0  # one game minute per wall second: Mettle 3 dies in 3 s


async def _gm(server: ServerProcess) -> Client:
    return await Client.open(server.ws_url, server.gm_token)


async def _status(server: ServerProcess, char: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    gm = await _gm(server)
    assert gm.state is not None
    sheet = gm.state["characters"][char]["sheet"]
    page = await gm.request({"type": "history", "table": "demo", "limit": 20})
    await gm.close()
    departed = [e for entry in page["entries"] for e in entry["events"] if e["code"] == "departed"]
    return sheet["status"], {"sheet": sheet, "departed": departed}


async def test_dying_character_departs_on_time_with_no_client(tmp_path: pathlib.Path) -> None:
    """MET-10 through the server: the timer, not a client, moves the state."""
    server = ServerProcess(data_dir=tmp_path / "d").start()
    try:
        gm = await _gm(server)
        await gm.ok({"type": "table.options", "options": {"pause_without_gm": False}})
        await gm.ok({"type": "clock.run", "rate": RATE})
        await gm.ok({"type": "mettle.pain", "char": "raider", "amount": 5})
        assert gm.state is not None
        deadline = gm.state["characters"]["raider"]["sheet"]["departs_at"]
        await gm.close()  # nobody is connected from here on
        await asyncio.sleep(3.8)
        status, info = await _status(server, "raider")
        assert status == "departed"
        assert info["departed"] and info["departed"][0]["at"] == deadline
        assert info["departed"][0]["actor"] == "system"
    finally:
        server.stop()


async def test_countdown_survives_a_kill_in_the_middle(tmp_path: pathlib.Path) -> None:
    server = ServerProcess(data_dir=tmp_path / "d").start()
    try:
        gm = await _gm(server)
        await gm.ok({"type": "table.options", "options": {"pause_without_gm": False}})
        await gm.ok({"type": "clock.run", "rate": RATE})
        await gm.ok({"type": "mettle.pain", "char": "ysolde", "amount": 6})  # mettle 4: 4 s
        assert gm.state is not None
        deadline = gm.state["characters"]["ysolde"]["sheet"]["departs_at"]
        await gm.close()
        await asyncio.sleep(1.0)
        server.kill()  # SIGKILL mid-countdown
        banner = dict(server.banner)
        server.start()
        server.banner.update({k: v for k, v in banner.items() if k != "Operator token"})
        status, _ = await _status(server, "ysolde")
        assert status == "dying", "not yet: the deadline is still ahead"
        await asyncio.sleep(3.8)
        status, info = await _status(server, "ysolde")
        assert status == "departed" and info["departed"][0]["at"] == deadline
    finally:
        server.stop()


async def test_clock_pauses_without_a_gm(tmp_path: pathlib.Path) -> None:
    """Table option pause_without_gm (default on): nobody dies between sessions."""
    server = ServerProcess(data_dir=tmp_path / "d").start()
    try:
        gm = await _gm(server)
        await gm.ok({"type": "clock.run", "rate": RATE})
        await gm.ok({"type": "mettle.pain", "char": "raider", "amount": 5})
        await gm.close()
        await asyncio.sleep(3.8)
        gm = await _gm(server)
        assert gm.state is not None
        assert gm.state["characters"]["raider"]["sheet"]["status"] == "dying"
        page = await gm.request({"type": "history", "table": "demo", "limit": 5})
        codes = [e["code"] for entry in page["entries"] for e in entry["events"]]
        assert "clock_auto_paused" in codes
        await gm.wait_for(lambda c: c.state["clock"]["mode"] == "running")  # resumes with the GM
        await gm.close()
    finally:
        server.stop()


async def test_catch_up_beyond_the_work_bound_halts_the_clock(tmp_path: pathlib.Path) -> None:
    """DESIGN "Time": an advance does bounded work. When the server must
    catch up more effects than the bound (the loop was blocked, or the host
    was down with the clock running), it stops the clock and says so rather
    than spinning or computing without end."""
    config = make_config(tmp_path, max_effects_per_advance=3)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        table, gm = await run.table("hursagmu", {"juk": {"traits": {"constitution": 30}}})
        await gm.ok({"type": "table.options", "options": {"pause_without_gm": False}})
        await gm.ok(
            {
                "type": "hursagmu.poison",
                "char": "juk",
                "damage": 1,
                "interval": 6,
                "duration": 6000,
                "kind": "poison",
                "name": "slow",
            }
        )
        await gm.ok({"type": "clock.run", "rate": 1000.0})
        time.sleep(0.2)  # block the loop: ~33 doses fall due at once
        await gm.wait_for(lambda c: c.state["clock"]["mode"] == "paused", timeout=5)
        page = await gm.request({"type": "history", "table": table, "limit": 5})
        codes = [e["code"] for entry in page["entries"] for e in entry["events"]]
        assert "clock_halted" in codes
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
