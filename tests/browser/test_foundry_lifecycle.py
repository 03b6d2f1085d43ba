"""The Foundry module's whole life in Chromium, loaded as Foundry loads it:
from the zip a real ``vigil serve`` serves (``/foundry/vigil.zip``),
unzipped and served over HTTP next to a harness page
(foundry-module/test/harness/lifecycle.html) whose Foundry globals are the
module's own fakes (foundry-module/test/fakes/, each behaviour citing its
public source) and whose canvas is real pixi.js 7.

The GM page (http://127.0.0.1, a secure context) runs main.js as the GM:
a canvas with two tokens, a pasted GM token, link a token from the window,
drag it (a preview with the same id), zoom 0.5 and 2, a redraw, the window
opened twice. The player page runs on http://foundry.test (mapped to
127.0.0.1 with --host-resolver-rules): Chromium treats 127.0.0.1 and
localhost as secure, a plain name is not, so that page has no
``crypto.subtle``, as a Foundry served on a LAN name or address; main.js
runs there as a player and receives its token from the active GM's client.

Screenshots go to artifacts/foundry/; the README's overlay pictures are
copies of them (docs/images/).
"""

from __future__ import annotations

import functools
import http.server
import io
import json
import shutil
import threading
import urllib.request
import zipfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page, async_playwright
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, watched_page
from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "foundry-module"
PIXI = MODULE / "node_modules" / "pixi.js" / "dist" / "pixi.min.mjs"
SHOTS = ROOT / "artifacts" / "foundry"
IMAGES = ROOT / "docs" / "images"
PLAIN_HOST = "foundry.test"

# The fakes import "./pixi.mjs" (their Node stand-in for PIXI); in the page
# that name is real pixi.js 7, so a fake Token is a real PIXI.Container.
PIXI_SHIM = 'export * from "/pixi/pixi.min.mjs";\n'


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
    }

    def log_message(self, *args: Any) -> None:
        pass


def _site(root: Path, zipped: bytes) -> None:
    """The harness site: the module as unzipped from Vigil's zip under
    /vigil/, the fakes under /fakes/, pixi under /pixi/, the page at /."""
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        archive.extractall(root / "vigil")
    shutil.copytree(MODULE / "test" / "fakes", root / "fakes")
    (root / "fakes" / "pixi.mjs").write_text(PIXI_SHIM, encoding="utf-8")
    (root / "pixi").mkdir()
    shutil.copy(PIXI, root / "pixi" / "pixi.min.mjs")
    shutil.copy(MODULE / "test" / "harness" / "lifecycle.html", root / "harness.html")


@pytest.fixture
def site(vigil_server: ServerProcess, tmp_path: Path) -> Iterator[tuple[int, ServerProcess]]:
    """The harness site over HTTP on 127.0.0.1 (also reached as foundry.test)."""
    if not PIXI.exists():
        pytest.skip("run `npm ci` in foundry-module/ first (pixi.js)")
    with urllib.request.urlopen(f"{vigil_server.url}/foundry/vigil.zip") as resp:
        zipped = resp.read()
    root = tmp_path / "site"
    root.mkdir()
    _site(root, zipped)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Handler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], vigil_server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
async def plain_name_browser() -> AsyncIterator[Browser]:
    """Chromium with foundry.test resolving to 127.0.0.1 (not a secure context)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    args = [*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {PLAIN_HOST} 127.0.0.1"]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=args, headless=True)
        try:
            yield browser
        finally:
            await browser.close()


async def _open(browser: Browser, url: str) -> Page:
    context = await browser.new_context(viewport={"width": 1100, "height": 600})
    page = await watched_page(context)
    await page.goto(url)
    await page.wait_for_function(
        "window.harness && (window.harness.ready || window.harness.failed)", timeout=WAIT_MS * 4
    )
    failed = await page.evaluate("window.harness.failed ?? null")
    assert failed is None, failed
    return page


async def _shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.evaluate("window.harness.render()")
    path = SHOTS / name
    await page.screenshot(path=str(path))
    return path


def _fragment(**params: str) -> str:
    return "#" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())


@pytest.mark.parametrize("version", ["12", "13"])
async def test_gm_lifecycle(
    site: tuple[int, ServerProcess], plain_name_browser: Browser, version: str
) -> None:
    port, vigil = site
    frag = _fragment(role="gm", url=vigil.ws_url, token=vigil.gm_token, version=version)
    page = await _open(plain_name_browser, f"http://127.0.0.1:{port}/harness.html{frag}")
    h = "window.harness"
    assert await page.evaluate(f"{h}.secure") is True
    assert await page.evaluate(f"{h}.overlayOf('tokB')") is None, "not linked yet"

    # Link Brannoc's token from the window (the GM's link button).
    opened = await page.evaluate(f"{h}.openWindow('tokB')")
    assert opened == {"shown": 1, "inPage": 1, "listeners": True}
    await page.evaluate(f"{h}.link('tokB')")
    overlay = await page.evaluate(f"{h}.overlayOf('tokB')")
    assert overlay is not None and overlay["parentId"] == "tokB" and not overlay["destroyed"]
    assert await page.evaluate(f"{h}.overlayOf('tokY')") is None, "Ysolde's token is not linked"
    await _shot(page, f"gm-linked-v{version}.png")

    # A drag: the preview (same id) takes no overlay, its destruction leaves the token's.
    drag = await page.evaluate(f"{h}.drag('tokB')")
    assert drag == {"previewOverlay": False, "same": True, "after": True}
    await _shot(page, f"gm-dragged-v{version}.png")

    for scale in (0.5, 2.0):
        await page.evaluate(f"{h}.zoom({scale})")
        zoomed = await page.evaluate(f"{h}.overlayOf('tokB')")
        assert zoomed is not None and not zoomed["destroyed"], f"zoom {scale}"
        await _shot(page, f"gm-zoom-{scale:g}-v{version}.png")
    await page.evaluate(f"{h}.zoom(1)")

    redraw = await page.evaluate(f"{h}.redraw('tokB')")
    assert redraw == {"fresh": True}

    # The window opened again (another token's HUD): still one window in the page.
    again = await page.evaluate(f"{h}.openWindow('tokY')")
    assert again == {"shown": 1, "inPage": 1, "listeners": True}
    again = await page.evaluate(f"{h}.openWindow('tokB')")
    assert again == {"shown": 1, "inPage": 1, "listeners": True}
    commands = await page.evaluate(
        "[...document.querySelectorAll('#windows form[data-command]')].map((f) => f.dataset.command)"
    )
    assert "mettle.pain" in commands and "clock.pause" in commands, commands
    window_shot = await _shot(page, f"gm-window-v{version}.png")
    if version == "13":
        IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copy(window_shot, IMAGES / "foundry-window.png")
    assert page.vigil_errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["12", "13"])
async def test_player_on_plain_http_receives_its_token(
    site: tuple[int, ServerProcess], plain_name_browser: Browser, version: str
) -> None:
    port, vigil = site
    frag = _fragment(role="player", url=vigil.ws_url, token=vigil.gm_token, version=version)
    page = await _open(plain_name_browser, f"http://{PLAIN_HOST}:{port}/harness.html{frag}")
    assert await page.evaluate("window.isSecureContext") is False
    assert await page.evaluate("crypto.subtle === undefined") is True
    assert await page.evaluate("typeof crypto.getRandomValues") == "function"
    player = await page.evaluate("window.harness.player")
    assert player["role"] == "player"
    assert player["own"] == ["brannoc"]
    assert player["ysolde"] is False, "no overlay on a character not linked"
    en = json.loads((MODULE / "lang" / "en.json").read_text(encoding="utf-8"))
    assert en["VIGIL.Notify.TokenReceived"] in player["told"]
    assert player["commands"], "her window offers her commands"
    catalogue = json.loads((ROOT / "schemas" / "catalogue.json").read_text(encoding="utf-8"))
    assert all(catalogue["commands"][tag]["senders"]["player"] for tag in player["commands"]), player[
        "commands"
    ]
    shot = await _shot(page, f"player-plain-http-v{version}.png")
    if version == "13":
        IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, IMAGES / "foundry-player.png")
    assert page.vigil_errors == []  # type: ignore[attr-defined]


async def test_an_unhandled_rejection_is_a_page_error(
    site: tuple[int, ServerProcess], plain_name_browser: Browser
) -> None:
    """The conftest hook: a promise rejected with no handler reaches page.vigil_errors."""
    port, _ = site
    context = await plain_name_browser.new_context()
    page = await watched_page(context)
    await page.goto(f"http://127.0.0.1:{port}/fakes/")  # a plain HTML page (a directory listing)
    await page.evaluate("Promise.reject(new Error('nobody handles this')); 0")
    for _ in range(50):  # the event fires after the current task: give it turns, not time
        if any("unhandledrejection" in e for e in page.vigil_errors):  # type: ignore[attr-defined]
            break
        await page.evaluate("new Promise((r) => setTimeout(r, 20))")
    assert any("unhandledrejection" in e and "nobody handles this" in e for e in page.vigil_errors), (
        page.vigil_errors
    )  # type: ignore[attr-defined]
