"""The Foundry module's token overlays, drawn by real pixi.js 7 in real
Chromium, fed live by a real ``vigil serve``.

Foundry itself needs a licence, so the harness page
(foundry-module/test/harness/overlay.html) stands in for the canvas: it runs
the module's own client core, overlay model and PIXI drawing code on a
stand-in token. Screenshots go to artifacts/overlays/ for a person to look
at; the assertions check the overlay's scene graph and real pixels.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import websockets
from playwright.async_api import Page
from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "foundry-module"
SHOTS = ROOT / "artifacts" / "overlays"

# Pool colours of foundry-module/scripts/overlay/model.js (POOLS[*].fill).
POOL_RGB = {
    "discipline": (0xF4, 0xF1, 0xE8),
    "exhaustion": (0x2B, 0x2B, 0x2B),
    "madness": (0xC6, 0x28, 0x28),
    "pain": (0x1E, 0x5F, 0xBF),
}
RING_RGB = (0xE5, 0x39, 0x35)


class _Handler(http.server.SimpleHTTPRequestHandler):
    # ES modules need a JavaScript MIME type; Python does not map .mjs.
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
    }

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def module_site() -> Iterator[str]:
    """foundry-module/ served over HTTP (the harness imports scripts/,
    lang/ and node_modules/pixi.js from it)."""
    if not (MODULE / "node_modules" / "pixi.js" / "dist" / "pixi.min.mjs").exists():
        pytest.skip("run `npm ci` in foundry-module/ first (pixi.js)")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Handler, directory=str(MODULE))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def commands(
    ws_url: str, token: str, table: str | None, *bodies: dict[str, Any]
) -> list[dict[str, Any]]:
    """Send commands with one token; return the acks (fails on an error reply)."""
    out = []
    async with websockets.connect(ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token, "client": "test"}))
        for n, body in enumerate(bodies):
            msg: dict[str, Any] = {"type": "cmd", "id": f"c{n}", "body": body}
            if table:
                msg["table"] = table
            await ws.send(json.dumps(msg))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("id") == f"c{n}":
                    assert reply["type"] == "ack", reply
                    out.append(reply)
                    break
    return out


async def open_harness(
    page: Page, site: str, server: ServerProcess, token: str, char: str, zoom: float = 1
) -> None:
    await page.goto(
        f"{site}/test/harness/overlay.html#url={quote(server.ws_url)}&token={quote(token)}&char={char}&zoom={zoom}"
    )
    await page.wait_for_function(
        "window.harness && window.harness.status === 'connected' && window.harness.draws > 0"
    )


class Pixels:
    """The canvas's real pixels, read back in the page (WebGL canvas drawn
    into a 2D canvas), so the test sees what a person would."""

    def __init__(self, data: list[int]) -> None:
        self.data = data

    def count_near(self, rgb: tuple[int, int, int], tol: int = 24) -> int:
        r0, g0, b0 = rgb
        d = self.data
        return sum(
            1
            for i in range(0, len(d), 4)
            if abs(d[i] - r0) <= tol and abs(d[i + 1] - g0) <= tol and abs(d[i + 2] - b0) <= tol
        )


READ_PIXELS = """() => {
  harness.render();
  const src = document.querySelector('canvas');
  const c = document.createElement('canvas');
  c.width = src.width; c.height = src.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(src, 0, 0);
  return Array.from(ctx.getImageData(0, 0, c.width, c.height).data);
}"""


async def shot(page: Page, name: str) -> Pixels:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.locator("canvas").screenshot(path=str(SHOTS / f"{name}.png"))
    return Pixels(await page.evaluate(READ_PIXELS))


async def test_dying_countdown_appears_runs_and_departs(
    vigil_server: ServerProcess, module_site: str, new_page: Any
) -> None:
    page = await new_page(800, 600)
    await open_harness(page, module_site, vigil_server, vigil_server.gm_token, "brannoc")
    calm = await shot(page, "mettle-calm")
    assert await page.evaluate("harness.hasRing()") is False
    assert calm.count_near(RING_RGB, 10) == 0

    # Run the clock, then pain past Brannoc's mettle: he starts dying.
    await commands(
        vigil_server.ws_url,
        vigil_server.gm_token,
        "demo",
        {"type": "clock.run"},
        {"type": "mettle.pain", "char": "brannoc", "amount": 7},
    )
    await page.wait_for_function("harness.countdownText() !== null")
    first = await page.evaluate("harness.countdownText()")
    assert first is not None and ":" in first, first
    assert await page.evaluate("harness.hasRing()") is True
    dying = await shot(page, "mettle-dying")
    assert dying.count_near(RING_RGB) > 200, "the red dying ring is drawn"
    # The countdown runs from the clock anchor, with no server traffic.
    await page.wait_for_function(f"harness.countdownText() !== {json.dumps(first)}")
    later = await page.evaluate("harness.countdownText()")
    assert later < first, (first, later)  # "04:58" < "04:59": time runs down
    states = await page.evaluate("harness.states")

    # Past the deadline the server says "departed" and the overlay says so.
    await commands(vigil_server.ws_url, vigil_server.gm_token, "demo", {"type": "clock.set", "to": 100000})
    await page.wait_for_function("harness.countdownText() === 'Departed'")
    assert await page.evaluate("harness.states") > states
    await shot(page, "mettle-departed")
    assert await page.evaluate("harness.errors") == []
    assert page.vigil_errors == []


async def test_dryh_roll_dice_by_pool(vigil_server: ServerProcess, module_site: str, new_page: Any) -> None:
    created = await commands(
        vigil_server.ws_url,
        vigil_server.operator_token,
        None,
        {"type": "table.create", "system": "dryh", "name": "Dreams", "id": "dreams"},
    )
    gm = created[0]["result"]["gm_token"]
    await commands(
        vigil_server.ws_url, gm, "dreams", {"type": "character.create", "id": "mina", "name": "Mina"}
    )
    page = await new_page(800, 600)
    await open_harness(page, module_site, vigil_server, gm, "mina")
    assert await page.evaluate("harness.dice()") == []

    await commands(
        vigil_server.ws_url,
        gm,
        "dreams",
        {"type": "dryh.open", "char": "mina", "pain": 4},
        {"type": "dryh.declare", "char": "mina", "madness": 2, "exhaustion_up": True},
        {"type": "dryh.roll", "char": "mina"},
    )
    try:
        await page.wait_for_function("harness.dice().length > 0")
    except Exception:
        raise AssertionError(await page.evaluate("JSON.stringify([harness.errors, harness.model])")) from None
    dice = await page.evaluate("harness.dice()")
    model = await page.evaluate("harness.model.roll")
    # discipline 3 + exhaustion 1 + madness 2 + pain 4 dice, grouped by pool.
    assert sorted(set(dice)) == ["discipline", "exhaustion", "madness", "pain"], dice
    assert dice.count("pain") == 4 and dice.count("madness") == 2 and dice.count("discipline") == 3
    assert model["dominant"] in POOL_RGB
    img = await shot(page, "dryh-rolled")
    for pool, rgb in POOL_RGB.items():
        assert img.count_near(rgb, 12) > 40, f"{pool} dice colour on screen"
    assert await page.evaluate("harness.errors") == []

    for zoom in (0.5, 2):
        zpage = await new_page(800, 600)
        await open_harness(zpage, module_site, vigil_server, gm, "mina", zoom=zoom)
        await zpage.wait_for_function("harness.dice().length > 0")
        await shot(zpage, f"dryh-rolled-zoom{zoom}")


async def open_tokens(page: Page, site: str, server: ServerProcess, token: str) -> None:
    """The harness in its `tokens` mode: the module's OverlayManager on one
    stand-in token per character, with pixi's real ticker."""
    await page.goto(
        f"{site}/test/harness/overlay.html#mode=tokens&url={quote(server.ws_url)}&token={quote(token)}"
    )
    await page.wait_for_function(
        "window.harness && window.harness.status === 'connected' && window.harness.draws > 0"
    )


# The sheet a character of each game needs at creation (empty: the game's defaults).
SHEETS: dict[str, dict[str, Any]] = {"mettle": {"sheet": {"mettle": 5}}, "hursagmu": {}}


async def new_table(server: ServerProcess, system: str, table: str, *chars: str) -> str:
    """A table of ``system`` with ``chars`` (each linked to an actor), its GM token."""
    created = await commands(
        server.ws_url,
        server.operator_token,
        None,
        {"type": "table.create", "system": system, "name": table, "id": table},
    )
    gm: str = created[0]["result"]["gm_token"]
    await commands(
        server.ws_url,
        gm,
        table,
        *(
            {"type": "character.create", "id": c, "name": c.title(), "actor_id": f"act-{c}", **SHEETS[system]}
            for c in chars
        ),
    )
    return gm


async def test_poison_countdown_runs_on_a_token_and_a_patch_redraws_one_overlay(
    vigil_server: ServerProcess, module_site: str, new_page: Any
) -> None:
    gm = await new_table(vigil_server, "hursagmu", "venom", "ada", "bram", "cora")
    await commands(
        vigil_server.ws_url,
        gm,
        "venom",
        {"type": "clock.run"},
        {
            "type": "hursagmu.poison",
            "char": "ada",
            "damage": 1,
            "interval": 600,
            "duration": 3600,
            "name": "Adder venom",
        },
    )
    page = await new_page(800, 600)
    await open_tokens(page, module_site, vigil_server, gm)
    await page.wait_for_function("harness.timerText('ada', 'poison_dose') !== null")
    first = await page.evaluate("harness.timerText('ada', 'poison_dose')")
    states = await page.evaluate("harness.states")
    # The dose's countdown runs from the clock anchor: no patch arrives.
    await page.wait_for_function(f"harness.timerText('ada', 'poison_dose') !== {json.dumps(first)}")
    later = await page.evaluate("harness.timerText('ada', 'poison_dose')")
    assert await page.evaluate("harness.states") == states, "no patch came while it ran"
    assert first.startswith("Dose ") and later < first, (first, later)
    await shot(page, "hursagmu-poison-countdown")

    # A patch touching Bram redraws Bram's overlay, and only his.
    before = await page.evaluate("harness.drawCounts()")
    await commands(
        vigil_server.ws_url,
        gm,
        "venom",
        {
            "type": "hursagmu.poison",
            "char": "bram",
            "damage": 1,
            "interval": 900,
            "duration": 3600,
            "name": "Hemlock",
        },
    )
    await page.wait_for_function(f"harness.states > {states}")
    after = await page.evaluate("harness.drawCounts()")
    print(f"overlay draws before the patch {before}, after it {after}")
    assert after["bram"] == before["bram"] + 1, (before, after)
    assert after["ada"] == before["ada"] and after["cora"] == before["cora"], (before, after)
    assert await page.evaluate("harness.errors") == []
    assert page.vigil_errors == []


async def test_rattle_falls_on_a_token_with_the_clock(
    vigil_server: ServerProcess, module_site: str, new_page: Any
) -> None:
    gm = await new_table(vigil_server, "mettle", "shaken", "edda")
    await commands(
        vigil_server.ws_url,
        gm,
        "shaken",
        {"type": "clock.run"},
        {"type": "mettle.rattle", "char": "edda", "amount": 4},
    )
    page = await new_page(800, 600)
    await open_tokens(page, module_site, vigil_server, gm)
    await page.wait_for_function("harness.rattleText('edda') !== null")
    first = await page.evaluate("harness.rattleText('edda')")
    states = await page.evaluate("harness.states")
    draws = await page.evaluate("harness.drawCounts()")
    # MET-14: out of combat it wears off 1 a second, drawn from the clock.
    await page.wait_for_function(f"harness.rattleText('edda') !== {json.dumps(first)}")
    later = await page.evaluate("harness.rattleText('edda')")
    print(f"rattle on the token: {first!r} then {later!r}, {states} views received, draws {draws}")
    assert await page.evaluate("harness.states") == states, "no patch came while it fell"
    assert await page.evaluate("harness.drawCounts()") == draws, "updated in place, not redrawn"
    assert int(later.split()[-1]) < int(first.split()[-1]), (first, later)
    await shot(page, "mettle-rattle-falling")
    assert await page.evaluate("harness.errors") == []
