"""Timed rules fire on the clock with nobody connected, and after a restart
in the middle of a countdown (a real subprocess server, killed for real).

The tests wait for what the timer does (with a generous bound) rather than
sleep a fixed time and assume it has happened; when the departure is
checked against the clock it is a lower bound ("not before the deadline"),
which a slow machine cannot break.
"""

from __future__ import annotations

import asyncio
import pathlib
import time
from typing import Any

from tests.server.conftest import Running, make_config
from tests.support.client import Client
from tests.support.server import ServerProcess

from vigil.net.app import shutdown, start

RATE = 60.0  # one game minute per wall second: Mettle 3 dies in 3 s
SLACK = 1e-3  # float rounding between game and wall time (s)


async def _gm(server: ServerProcess) -> Client:
    return await Client.open(server.ws_url, server.gm_token)


def _wall_at(clock: dict[str, Any], game: float) -> float:
    """When (wall time) a running clock with this anchor reaches ``game``."""
    assert clock["mode"] == "running"
    return float(clock["wall"] + (game - clock["game"]) / clock["rate"])


def _game_at(clock: dict[str, Any], wall: float) -> float:
    return float(clock["game"] + (wall - clock["wall"]) * clock["rate"])


def _status(gm: Client, char: str) -> str:
    assert gm.state is not None
    return str(gm.state["characters"][char]["sheet"]["status"])


async def _departure(gm: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """The history entry with the (one) departure, and its event."""
    page = await gm.request({"type": "history", "table": "demo", "limit": 20})
    found = [(entry, e) for entry in page["entries"] for e in entry["events"] if e["code"] == "departed"]
    assert len(found) == 1, found
    return found[0]


async def _wait_departed(server: ServerProcess, char: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Connect (sending no command: only the timer may move the state) and
    wait until ``char`` has departed; returns its departure."""
    gm = await _gm(server)
    try:
        await gm.wait_for(lambda c: _status(c, char) == "departed")
        return await _departure(gm)
    finally:
        await gm.close()


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
        due = _wall_at(gm.state["clock"], deadline)
        await gm.close()  # nobody is connected from here on
        await asyncio.sleep(max(0.0, due - time.time()) + 0.5)  # past the deadline, alone
        entry, event = await _wait_departed(server, "raider")
        assert event["at"] == deadline and event["actor"] == "system"
        assert entry["wall"] >= due - SLACK, "not before the deadline"
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
        clock = gm.state["clock"]
        due = _wall_at(clock, deadline)
        await gm.close()
        server.kill()  # SIGKILL mid-countdown (the pain is acknowledged, hence durable)
        killed_at = time.time()
        banner = dict(server.banner)
        server.start()
        server.banner.update({k: v for k, v in banner.items() if k != "Operator token"})
        # The restarted server's clock continues the old one: it ran on
        # while the server was down (the same game time at any wall time).
        back = await _gm(server)
        assert back.state is not None
        after = back.state["clock"]
        await back.close()
        assert after["mode"] == "running" and after["rate"] == clock["rate"]
        assert abs(_game_at(after, due) - _game_at(clock, due)) < SLACK * RATE
        entry, event = await _wait_departed(server, "ysolde")
        assert event["at"] == deadline
        assert entry["wall"] > killed_at, "recorded by the restarted server: the countdown survived"
        # Not early, whether the restart took a moment or the whole countdown.
        assert entry["wall"] >= due - SLACK, "not before the deadline"
    finally:
        server.stop()


async def test_clock_pauses_without_a_gm(tmp_path: pathlib.Path) -> None:
    """Table option pause_without_gm (default on): nobody dies between sessions."""
    server = ServerProcess(data_dir=tmp_path / "d").start()
    try:
        gm = await _gm(server)
        await gm.ok({"type": "clock.run", "rate": RATE})
        await gm.ok({"type": "mettle.pain", "char": "raider", "amount": 5})
        assert gm.state is not None
        deadline = gm.state["characters"]["raider"]["sheet"]["departs_at"]
        due = _wall_at(gm.state["clock"], deadline)
        await gm.close()
        await asyncio.sleep(max(0.0, due - time.time()) + 0.5)  # past where the deadline was
        gm = await _gm(server)
        assert _status(gm, "raider") == "dying"
        page = await gm.request({"type": "history", "table": "demo", "limit": 5})
        paused = [
            entry
            for entry in page["entries"]
            if any(e["code"] == "clock_auto_paused" for e in entry["events"])
        ]
        assert paused and paused[0]["at"] < deadline, "paused before the deadline"
        await gm.wait_for(lambda c: c.state["clock"]["mode"] == "running")  # resumes with the GM
        assert _status(gm, "raider") == "dying"
        await gm.close()
    finally:
        server.stop()


async def test_catch_up_beyond_the_work_bound_halts_the_clock(tmp_path: pathlib.Path) -> None:
    """docs/design.md "Time": an advance does bounded work. When the server must
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
        await gm.wait_for(lambda c: c.state["clock"]["mode"] == "paused")
        page = await gm.request({"type": "history", "table": table, "limit": 5})
        codes = [e["code"] for entry in page["entries"] for e in entry["events"]]
        assert "clock_halted" in codes
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
