"""The spectator page (/watch) in real Chromium against a real ``vigil serve``.

What matters here is what a stream audience sees: only the public view,
live, with no way to act, coming back by itself after a server restart, and
legible as a transparent OBS overlay.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import open_live
from tests.support.commands import ws_commands
from tests.support.server import ServerProcess

PAGES = Path(__file__).resolve().parents[2] / "artifacts" / "pages"
# Coming back after a restart: the server's start plus the client's backoff.
RECONNECT_MS = 30_000


async def gm_commands(server: ServerProcess, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply GM commands to the demo table over a plain websocket; returns the replies."""
    return await ws_commands(server, server.gm_token, list(bodies), "demo")


def card(page: Page, char: str):
    return page.locator(f"[data-char='{char}']")


async def test_spectator_command_is_refused_and_changes_nothing(
    vigil_server: ServerProcess, new_page
) -> None:
    """Issue 5 (3): a command forced from the spectator page's console (its
    client is window.vigil) is refused with `forbidden`; neither its view
    nor the GM's changes, and the history has no new entry."""
    watch = await new_page()
    gm = await new_page()
    await open_live(watch, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    await open_live(gm, f"{vigil_server.url}/#token={vigil_server.gm_token}")
    before_rev = await watch.evaluate("window.vigil.rev")
    before_state = await gm.evaluate("JSON.stringify(window.vigil.state.characters)")

    codes = await watch.evaluate(
        """async () => {
            const tries = [
                {type: "mettle.pain", char: "brannoc", amount: 9},
                {type: "character.meta", char: "raider", visibility: "full"},
                {type: "token.mint", role: "gm"},
                {type: "clock.run", rate: 1},
            ];
            const out = [];
            for (const body of tries) {
                try { await window.vigil.send(body); out.push("applied"); }
                catch (err) { out.push(err.code); }
            }
            return out;
        }"""
    )
    assert codes == ["forbidden"] * 4

    # A GM change that touches no character, made after the refusals: once
    # both pages have it, a change the refusals made would have come first
    # (no fixed wait to guess how long a stray patch might take).
    (barrier,) = await gm_commands(vigil_server, {"type": "combat.start"})
    assert barrier["rev"] == before_rev + 1, "the refused commands changed nothing"
    for viewer in (watch, gm):
        await expect(viewer.locator("body")).to_have_attribute("data-rev", str(barrier["rev"]))
    assert await gm.evaluate("JSON.stringify(window.vigil.state.characters)") == before_state
    page = await gm.evaluate("window.vigil.history({limit: 2})")
    assert [e["rev"] for e in page["entries"]] == [barrier["rev"], before_rev]
    await expect(card(watch, "brannoc").locator("[data-stat=pain] .stat-value")).to_have_text(
        re.compile(r"^0")
    )
    # The page offers no controls at all.
    assert await watch.locator("button, input, select, textarea").count() == 0


async def test_spectator_sees_only_the_public_view(vigil_server: ServerProcess, browser_page: Page) -> None:
    """A status-visibility NPC shows its badges and countdown but no numbers;
    a hidden character and GM notes never appear (not in the DOM either)."""
    await gm_commands(
        vigil_server,
        {"type": "character.meta", "char": "ysolde", "notes": "secretly a changeling"},
        {
            "type": "character.create",
            "id": "lurker",
            "name": "Lurker",
            "kind": "npc",
            "visibility": "hidden",
            "sheet": {"mettle": 2},
        },
        {"type": "mettle.pain", "char": "raider", "amount": 5, "lot": "plain"},
    )
    page = browser_page
    await open_live(page, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    raider = card(page, "raider")
    await expect(raider.locator("[data-badge=dying]")).to_be_visible()
    await expect(raider.locator(".countdown.kind-dying")).to_be_visible()
    assert await raider.locator(".stat").count() == 0  # no numbers for a status character
    html = await page.content()
    assert "Lurker" not in html and "changeling" not in html
    assert await page.evaluate("'sheet' in window.vigil.state.characters.raider") is False


async def test_pages_come_back_by_themselves_after_a_server_restart(
    vigil_server: ServerProcess, new_page
) -> None:
    """Issue 5 (4): the server restarts under an open dashboard and spectator
    page; both say they are reconnecting, come back without a reload, and
    show the current state (a change made after the restart)."""
    gm = await new_page()
    watch = await new_page()
    await open_live(gm, f"{vigil_server.url}/#token={vigil_server.gm_token}")
    await open_live(watch, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    await gm.evaluate("window.__sameDocument = true")
    await watch.evaluate("window.__sameDocument = true")

    vigil_server.stop()
    await expect(watch.locator("#watch-conn")).to_have_attribute("data-status", "reconnecting")
    await expect(gm.locator("#conn")).to_have_attribute("data-status", "reconnecting")
    await expect(watch.locator("#watch-conn-text")).to_be_visible()
    vigil_server.start()

    await expect(gm.locator("#conn")).to_have_attribute("data-status", "connected", timeout=RECONNECT_MS)
    await expect(watch.locator("#watch-conn")).to_have_attribute(
        "data-status", "connected", timeout=RECONNECT_MS
    )
    await gm_commands(vigil_server, {"type": "mettle.pain", "char": "ysolde", "amount": 2, "lot": "plain"})
    await expect(card(watch, "ysolde").locator("[data-stat=pain] .stat-value")).to_have_text(
        re.compile(r"^2")
    )
    await expect(card(gm, "ysolde").locator("[data-stat=pain] .stat-value")).to_have_text(re.compile(r"^2"))
    # Same documents: nothing reloaded the pages.
    assert await gm.evaluate("window.__sameDocument") is True
    assert await watch.evaluate("window.__sameDocument") is True


async def test_restart_helper_keeps_pages_live(vigil_server: ServerProcess, new_page) -> None:
    """The same through the fixture's own restart(), as the lead's harness does it."""
    watch = await new_page()
    await open_live(watch, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    vigil_server.restart()
    await expect(watch.locator("#watch-conn")).to_have_attribute(
        "data-status", "connected", timeout=RECONNECT_MS
    )
    await gm_commands(vigil_server, {"type": "mettle.rattle", "char": "brannoc", "amount": 3})
    await expect(card(watch, "brannoc").locator("[data-stat=rattle] .stat-value")).to_have_text("3")


OVERLAY_SMALL_TEXT_JS = """() => {
    const small = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode;
        const el = node.parentElement;
        if (!node.textContent.trim() || !el || !el.getClientRects().length) continue;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || el.closest('[hidden]')) continue;
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) continue;  // visually hidden (screen-reader) text
        if (parseFloat(style.fontSize) < 24) small.push(`${node.textContent.trim()} ${style.fontSize}`);
    }
    return small;
}"""


async def test_screenshots_normal_and_overlay(vigil_server: ServerProcess, new_page) -> None:
    """Issue 5 (5): artifacts/pages/watch-*.png in the normal, overlay and
    compact overlay layouts (the overlay ones with a transparent
    background, as OBS composes them), and the overlay's text is >= 24 px."""
    await gm_commands(
        vigil_server,
        {"type": "clock.run", "rate": 1},
        {"type": "mettle.pain", "char": "brannoc", "amount": 7, "lot": "plain"},
        {"type": "mettle.rattle", "char": "ysolde", "amount": 2},
        {"type": "mettle.injury_add", "char": "ysolde", "label": "Cut arm", "penalty": 1},
        {"type": "combat.start"},
    )
    PAGES.mkdir(parents=True, exist_ok=True)
    for name, suffix, overlay in (
        ("watch", "", False),
        ("watch-compact", "&layout=compact", False),
        ("watch-overlay", "&layout=overlay", True),
        ("watch-overlay-compact", "&layout=overlay-compact", True),
    ):
        page = await new_page(1280, 720)
        await open_live(page, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}{suffix}")
        await expect(card(page, "brannoc").locator("[data-badge=dying]")).to_be_visible()
        await expect(card(page, "brannoc").locator(".countdown-time")).to_have_text(re.compile(r"^0\d:\d\d$"))
        assert "token" not in page.url  # the layout stays in the fragment, the token does not
        if overlay:
            background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == "rgba(0, 0, 0, 0)"
            assert await page.evaluate(OVERLAY_SMALL_TEXT_JS) == []
        await page.screenshot(path=str(PAGES / f"{name}.png"), omit_background=overlay)
    # The query form (?overlay=1) picks the overlay layout too.
    page = await new_page(1280, 720)
    await open_live(page, f"{vigil_server.url}/watch?overlay=1#token={vigil_server.spectator_token}")
    assert await page.evaluate("document.body.classList.contains('overlay')")
