"""One display model for every client (core/display.js).

The dashboard's and spectator page's drawing code (web/render.js) and the
Foundry overlays (scripts/overlay/model.js) must show a character the same
way: the same badge letters and shapes, the same DRYH pools and the same
reading of a die in each game. Checked in Chromium on the modules the
server really serves: an ES module loaded once per URL is one object, so
identity of the exported tables proves there is one source.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import expect
from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]


async def test_pages_and_overlays_share_badges_pools_and_die_readings(
    vigil_server: ServerProcess, new_page
) -> None:
    page = await new_page()
    await page.goto(f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    await expect(page.locator("#watch-conn")).to_have_attribute("data-status", "connected", timeout=15_000)
    same = await page.evaluate(
        """async () => {
          const display = await import("/client/core/display.js");
          const page = await import("/static/render.js");
          const overlay = await import("/client/overlay/model.js");
          const state = {
            system: "dryh",
            characters: { mina: { name: "Mina", badges: ["dying", "snapped"], sheet: {} } },
            game: { rolls: { mina: {
              phase: "rolled", dice: { discipline: [2, 5], pain: [1], helpers: { jo: [3] } },
            } } },
          };
          const m = overlay.overlayModel(state, "mina", 0);
          const pageDie = (game, pool, face) => page.die(game, pool, face);
          return {
            badges: page.BADGES === display.BADGES && overlay.BADGES === display.BADGES,
            pools: page.POOLS === display.POOLS && overlay.POOLS === display.POOLS,
            overlayBadges: m.badges.map((b) => [b.code, b.letter, b.shape]),
            displayBadges: ["dying", "snapped"].map(
              (c) => [c, display.BADGES[c].letter, display.BADGES[c].shape]),
            pageBadgeLetter: page.badge("dying").querySelector(".letter").textContent,
            overlayFaces: m.roll.pools.map((p) => p.faces.map((f) => f.success)),
            pageDryh: [2, 5].map((f) => pageDie("dryh", "discipline", f).classList.contains("success")),
            pageHursagmu: [1, 6].map((f) => {
              const el = pageDie("hursagmu", "plain", f);
              return [el.classList.contains("success"), el.querySelector(".die-pool")?.textContent ?? null];
            }),
          };
        }"""
    )
    assert same["badges"] and same["pools"]
    expected = [["dying", "Dy", "diamond"], ["snapped", "Sn", "diamond"]]
    assert same["overlayBadges"] == same["displayBadges"] == expected
    assert same["pageBadgeLetter"] == "Dy"
    # DRYH-04: 1–3 succeeds, on the page and on the token alike.
    assert same["overlayFaces"] == [[True, False], [True], [True]]
    assert same["pageDryh"] == [True, False]
    # Hursagmu sums 2d6 (HUR-01): a face is drawn plain, without DRYH's mark or a pool letter.
    assert same["pageHursagmu"] == [[False, None], [False, None]]
    assert page.vigil_errors == []


def test_no_client_defines_its_own_badge_or_pool_table() -> None:
    """Only core/display.js spells out badge letters and pool colours."""
    sources = [
        *(ROOT / "server" / "vigil" / "web").glob("*.js"),
        *(ROOT / "foundry-module" / "scripts").rglob("*.js"),
    ]
    owners = [
        p.relative_to(ROOT).as_posix()
        for p in sources
        if re.search(r"\bletter:\s*\"", p.read_text()) and p.name != "display.js"
    ]
    assert owners == []
