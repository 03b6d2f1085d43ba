"""Dice anyone can verify, in Chromium (docs/dice.md): a whole scene of each
game with a GM, a player and a spectator page open (the pages' client
library sends a nonce with every rolling command; timed effects roll by the
clock), then the GM reveals from the dashboard. The /verify page, opened
from each page's own button or link, recomputes every die it was shown in
plain JavaScript and reports it verified (the GM's manual dice flagged
not verifiable); a tampered export fails both ``vigil verify`` and the page.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect
from tests.browser.test_dashboard import act
from tests.browser.test_session import new_table, three_pages
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

VIGIL = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "vigil"

SCENES: dict[str, dict[str, Any]] = {
    "hursagmu": {
        "chars": {"juk": {"traits": {"constitution": 5, "perception": 4}}, "raider": {}},
        "gm": [
            {"type": "hursagmu.see_dim", "char": "raider", "challenge": 30},
            {"type": "hursagmu.harm", "char": "juk", "stuns": 2},
            {"type": "hursagmu.poison", "char": "juk", "damage": 1, "interval": 60, "duration": 600},
            {"type": "clock.set", "to": 400.0},
        ],
        "player": [{"type": "hursagmu.rest", "char": "juk"}],
        "manual": {"type": "hursagmu.see_dim", "char": "raider", "challenge": 30, "faces": [2, 5]},
    },
    "mettle": {
        "chars": {"ysolde": {"mettle": 5}, "bran": {"mettle": 3}},
        "gm": [
            {"type": "table.options", "options": {"lot_weights": {"crit": 1, "plain": 10, "fail": 1}}},
            {"type": "mettle.check", "char": "bran", "stat": 3, "tn": 4},
            {"type": "mettle.pain", "char": "ysolde", "amount": 1},
            {"type": "mettle.rattle", "char": "ysolde", "amount": 3},
        ],
        "player": [{"type": "mettle.shake_off", "char": "ysolde", "effort": 1}],
        "manual": {"type": "mettle.check", "char": "bran", "stat": 3, "tn": 4, "lots": [1]},
    },
    "dryh": {
        "chars": {"mina": {}, "jack": {}},
        "gm": [{"type": "dryh.session_start"}, {"type": "dryh.open", "char": "mina", "pain": 3}],
        "player": [{"type": "dryh.roll", "char": "mina"}],
        "after": [{"type": "dryh.resolve", "char": "mina"}, {"type": "dryh.open", "char": "jack", "pain": 2}],
        "manual": {"type": "dryh.roll", "char": "jack", "faces": [1, 2, 3, 4, 5]},
    },
}


async def send(page: Page, body: dict[str, Any]) -> None:
    """A command through the page's own client library (which adds a nonce
    to a rolling one), waited for until the page has its patch."""
    rev = await page.evaluate("(body) => window.vigil.send(body).then((ack) => ack.rev)", body)
    await page.wait_for_function("(rev) => window.vigil.rev >= rev", arg=rev)


async def verified(page: Page) -> dict[str, int]:
    await expect(page.locator("body[data-verify=done]")).to_have_count(1)
    counts = await page.evaluate(
        "() => { const d = document.body.dataset;"
        " return {verified: +d.verified, unverifiable: +d.unverifiable, failed: +d.failed}; }"
    )
    assert page.vigil_errors == []  # type: ignore[attr-defined]
    return dict(counts)


async def opened(page: Page, link: Any) -> Page:
    """The page a link opens in a new tab (its target is _blank)."""
    async with page.context.expect_page() as info:
        await link.click()
    new = await info.value
    new.vigil_errors = []  # type: ignore[attr-defined]
    new.on("pageerror", lambda exc: new.vigil_errors.append(str(exc)))  # type: ignore[attr-defined]
    return new


@pytest.mark.parametrize("system", list(SCENES))
async def test_a_scene_then_a_reveal_verifies_on_every_page(
    vigil_server: ServerProcess, new_page: Any, system: str, tmp_path: Path
) -> None:
    scene = SCENES[system]
    tokens = await new_table(vigil_server, system, f"proof-{system}", scene["chars"])
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    fingerprint = await gm.evaluate("window.vigil.state.dice.fingerprint")
    await expect(gm.locator("#dice-proof")).to_contain_text(fingerprint)
    await expect(watch.locator("#watch-dice")).to_contain_text(fingerprint)
    for body in scene["gm"]:
        await send(gm, body)
    for body in scene["player"]:
        await send(player, body)
    for body in scene.get("after", []):
        await send(gm, body)
    await send(gm, {"type": "table.options", "options": {"manual_dice": True}})
    await send(gm, scene["manual"])
    # The GM reveals from the dashboard's own control for dice.reveal.
    await act(gm, "dice.reveal")
    await watch.wait_for_function("() => window.vigil.state.dice.revealed?.period === 1")
    await expect(watch.locator("#watch-dice")).not_to_contain_text(fingerprint)

    spectator_check = await opened(watch, watch.locator("#watch-dice a"))
    seen = await verified(spectator_check)
    assert seen["verified"] > 0 and seen["failed"] == 0, seen
    # Every roll it saw is verified but the GM's manual dice, flagged as such.
    assert seen["unverifiable"] == await spectator_check.locator("li.finding.manual_dice").count()

    gm_check = await opened(gm, gm.locator("#history-verify"))
    everything = await verified(gm_check)
    assert everything["failed"] == 0 and everything["verified"] >= seen["verified"], everything
    assert await gm_check.locator("li.finding.manual_dice").count() == 1

    player_check = await opened(player, player.locator("#history-verify"))
    mine = await verified(player_check)
    assert mine["verified"] > 0 and mine["failed"] == 0, mine

    # Tampering with one face of the export: the CLI and the page both fail, naming the roll.
    exported = (await ws_command(vigil_server, tokens["gm"], {"type": "table.export"}, f"proof-{system}"))[
        "result"
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported))
    assert subprocess.run([str(VIGIL), "verify", str(path)], capture_output=True).returncode == 0
    entry = next(e for e in exported["history"] if e[-1] and e[-1].get("draws") and not e[-1].get("manual"))
    sides, face = entry[-1]["draws"][0]
    entry[-1]["draws"][0][1] = (face % sides) + 1 if isinstance(sides, int) else (face + 1) % len(sides)
    path.write_text(json.dumps(exported))
    done = subprocess.run([str(VIGIL), "verify", str(path)], capture_output=True, text=True)
    assert done.returncode == 1 and f"Rev {entry[2]}" in done.stdout and "MISMATCH" in done.stdout
    offline = await new_page()
    await offline.goto(f"{vigil_server.url}/verify")
    await offline.locator("#verify-file").set_input_files(str(path))
    await expect(offline.locator("body[data-verify=done]")).to_have_count(1)
    mismatch = offline.locator("li.finding.mismatch")
    await expect(mismatch).to_have_count(1)
    await expect(mismatch).to_have_attribute("data-rev", str(entry[2]))
    assert offline.vigil_errors == []  # type: ignore[attr-defined]
