"""Dice anyone can verify, over real sockets (docs/dice.md): a scene of
each game with a GM, a player and a spectator connected, clock-rolled dice
included, then a reveal; what each of them may read of the history
verifies (``vigil verify`` on the downloaded history and on the export),
and nothing any of them was sent, nor the server's log and metrics, held
the seed before its reveal. Bad input changes nothing."""

from __future__ import annotations

import asyncio
import json
import pathlib
import urllib.request
from typing import Any

import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import Client

from vigil import dice_verify
from vigil.cli import main as cli
from vigil.net.app import shutdown, start

NONCE = "5a" * 16


async def _history(client: Client) -> dict[str, Any]:
    """Everything ``client`` may read of its table's history, as the
    /verify page downloads it (``vigil-history``)."""
    entries: list[dict[str, Any]] = []
    before = None
    while True:
        page = await client.request(
            {"type": "history", "table": client.table, "before": before, "limit": 200}
        )
        entries.extend(page["entries"])
        before = page.get("next_before")
        if before is None:
            break
    entries.sort(key=lambda e: e["rev"])
    assert client.state is not None
    names = {cid: ch["name"] for cid, ch in client.state["characters"].items()}
    return {
        "format": "vigil-history",
        "table": client.table,
        "epoch": client.epoch,
        "entries": entries,
        "names": names,
    }


def _statuses(document: dict[str, Any]) -> list[str]:
    return [f.status for f in dice_verify.verify(dice_verify.read(document))]


async def _people(run: Running, gm: Client, char: str) -> tuple[Client, Client]:
    player = await run.connect(await run.mint(gm, "player", [char]))
    spectator = await run.connect(await run.mint(gm, "spectator"))
    return player, spectator


def _seed(run: Running, table: str) -> str:
    """The current period's seed, read from the server (what must not leak)."""
    seed: str = run.hub.hosts[table].table.doc["dice"]["seed"]
    return seed


def _frames(*clients: Client) -> str:
    return json.dumps([[c.state, c.patches, list(c.replies.values())] for c in clients])


SCENES: dict[str, Any] = {
    "hursagmu": {
        "chars": {"juk": {"traits": {"constitution": 5, "perception": 4}}, "raider": {}},
        "hidden": {"raider": "hidden"},
        "gm": [
            {"type": "hursagmu.see_dim", "char": "raider", "challenge": 30},
            {
                "type": "hursagmu.poison",
                "char": "juk",
                "damage": 1,
                "interval": 60,
                "duration": 600,
                "name": "Adder",
            },
            {"type": "clock.set", "to": 400.0},
            {"type": "hursagmu.harm", "char": "juk", "stuns": 2},
        ],
        "player": [{"type": "hursagmu.rest", "char": "juk", "nonce": NONCE}],
    },
    "mettle": {
        "chars": {"ysolde": {"mettle": 5}, "bran": {"mettle": 3}},
        "hidden": {},
        "gm": [
            {"type": "table.options", "options": {"lot_weights": {"crit": 1, "plain": 10, "fail": 1}}},
            {"type": "mettle.check", "char": "bran", "stat": 3, "tn": 4},
            {"type": "mettle.pain", "char": "bran", "amount": 2},
            {"type": "mettle.rattle", "char": "ysolde", "amount": 3},
        ],
        "player": [{"type": "mettle.shake_off", "char": "ysolde", "effort": 1}],
    },
    "dryh": {
        "chars": {"mina": {}, "jack": {}},
        "hidden": {},
        "gm": [{"type": "dryh.session_start"}, {"type": "dryh.open", "char": "mina", "pain": 3}],
        "player": [{"type": "dryh.roll", "char": "mina", "nonce": NONCE}],
        "after": [{"type": "dryh.resolve", "char": "mina"}, {"type": "dryh.session_end"}],
    },
}


@pytest.mark.parametrize("system", list(SCENES))
async def test_a_scene_then_a_reveal_verifies_for_everyone(
    running: Running, system: str, tmp_path: pathlib.Path
) -> None:
    scene = SCENES[system]
    table, gm = await running.table(system, scene["chars"], **scene["hidden"])
    first = next(iter(scene["chars"]))
    player, spectator = await _people(running, gm, first)
    commitment = gm.state["dice"]["commitment"] if gm.state else None
    for who in (player, spectator):
        assert who.state is not None and who.state["dice"]["commitment"] == commitment
    seed = _seed(running, table)
    for body in scene["gm"]:
        await gm.ok(body)
    for body in scene["player"]:
        await player.ok(body)
    for body in scene.get("after", []):
        await gm.ok(body)
    gm_before = await _history(gm)
    if system != "dryh":  # DRYH's session end revealed already (reveal_dice_at_session_end)
        assert "unrevealed" in _statuses(gm_before)
        assert seed not in _frames(gm, player, spectator)
        await gm.ok({"type": "dice.reveal"})
    await spectator.wait_rev(gm.rev)
    assert spectator.state is not None and spectator.state["dice"]["revealed"]["seed"] == seed
    assert spectator.state["dice"]["commitment"] != commitment
    for who in (gm, player, spectator):
        history = await _history(who)
        statuses = _statuses(history)
        assert statuses and set(statuses) == {"verified"}, (who.welcome, statuses)
        path = tmp_path / f"{who.welcome and who.welcome['role']}.json"
        path.write_text(json.dumps(history))
        assert cli(["verify", str(path)]) == 0
    gm_rolls = len(_statuses(await _history(gm)))
    assert gm_rolls >= len(_statuses(await _history(spectator)))
    exported = await gm.ok({"type": "table.export"})
    assert _statuses(exported).count("verified") == gm_rolls
    assert _seed(running, table) not in json.dumps(exported)


async def test_clock_rolled_dice_carry_no_nonce(running: Running) -> None:
    _, gm = await running.table("hursagmu", {"juk": {"traits": {"constitution": 5}}})
    await gm.ok({"type": "hursagmu.poison", "char": "juk", "damage": 1, "interval": 60, "duration": 600})
    await gm.ok({"type": "clock.set", "to": 200.0})
    await gm.ok({"type": "dice.reveal"})
    history = await _history(gm)
    clock = [e for e in history["entries"] if e["kind"] == "clock" and e.get("dice")]
    assert clock and all(e["dice"]["nonce"] is None for e in clock)
    assert set(_statuses(history)) == {"verified"}


async def test_bad_input_is_refused_and_changes_nothing(running: Running) -> None:
    _, gm = await running.table("hursagmu", {"juk": {}})
    player, spectator = await _people(running, gm, "juk")
    rev = gm.rev
    for bad in ("zz" * 16, "ab" * 8, 12345):
        reply = await player.cmd({"type": "hursagmu.see_dim", "char": "juk", "challenge": 3, "nonce": bad})
        assert reply["type"] == "error" and "nonce" in json.dumps(reply["params"]), reply
    for who in (player, spectator):
        reply = await who.cmd({"type": "dice.reveal"})
        assert reply["type"] == "error" and reply["code"] == "forbidden"
    assert gm.rev == rev
    assert gm.state is not None and gm.state["dice"]["period"] == 1
    await gm.ok({"type": "dice.reveal"})
    await gm.ok({"type": "dice.reveal"})  # twice in a row: the second reveals an empty period
    assert gm.state["dice"]["period"] == 3
    reveals = [
        e for e in (await _history(player))["entries"] for ev in e["events"] if ev["code"] == "dice_revealed"
    ]
    assert len(reveals) == 2


async def test_the_period_survives_a_restart(tmp_path: pathlib.Path) -> None:
    """The seed is kept with the table in the store: after a restart the
    period goes on, and the rolls of before and after verify together."""
    config = make_config(tmp_path)
    hub, server = await start(config)
    run = Running(config, hub, server)
    _, gm = await run.table("hursagmu", {"juk": {}})
    await gm.ok({"type": "hursagmu.see_dim", "char": "juk", "challenge": 3, "nonce": NONCE})
    commitment = gm.state["dice"]["commitment"] if gm.state else None
    token = await run.mint(gm, "gm")
    await gm.close()
    await shutdown(hub, server)
    config = make_config(tmp_path)
    hub, server = await start(config)
    again = Running(config, hub, server)
    try:
        gm = await again.connect(token)
        assert gm.state is not None and gm.state["dice"]["commitment"] == commitment
        await gm.ok({"type": "hursagmu.see_dim", "char": "juk", "challenge": 3})
        await gm.ok({"type": "dice.reveal"})
        assert _statuses(await _history(gm)) == ["verified", "verified"]
    finally:
        await gm.close()
        await shutdown(hub, server)


async def test_no_metric_holds_the_seed(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path, metrics_port=0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        table, gm = await run.table("hursagmu", {"juk": {}})
        await gm.ok({"type": "hursagmu.see_dim", "char": "juk", "challenge": 3})
        seed = _seed(run, table)
        assert config.metrics_url is not None
        url = config.metrics_url
        text = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read().decode())
        assert "vigil" in text and seed not in text
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
