"""Playwright fixtures for the browser tests: Debian's Chromium, headless.

The async API is used because pytest-asyncio runs in auto mode: the sync
API refuses to run inside an event loop, and these tests also talk to the
server over websockets from the same loop. ``playwright install`` is never
run: the browser is the system's ``/usr/bin/chromium``, with SwiftShader so
that canvas/WebGL drawing works without a GPU.

Fixtures:
- ``chromium_browser``: one launched browser per test.
- ``browser_page``: a fresh page (own context, 1280×800) in that browser;
  its console errors, uncaught exceptions and unhandled promise rejections
  are collected in ``page.vigil_errors`` so that a test can assert the page
  ran cleanly.
- ``new_page``: a factory for more pages (each its own context) when a
  test needs several viewers at once (a GM and a spectator).

Every ``expect`` waits up to ``WAIT_MS`` unless a test says otherwise: a
busy machine is slow, not wrong, and a wait that succeeds ends at once.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

CHROMIUM = os.environ.get("VIGIL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--enable-unsafe-swiftshader",
    "--use-gl=angle",
    "--use-angle=swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_MS = 15_000
expect.set_options(timeout=WAIT_MS)

NewPage = Callable[..., Awaitable[Page]]

# Playwright's "pageerror" is documented for uncaught exceptions, not for
# promises rejected with no handler; this init script runs before any page
# script, in every frame of the context, and reports each such rejection as
# a console error, so that ``page.vigil_errors == []`` catches it (the
# module and the pages leave no promise rejected unhandled).
UNHANDLED_REJECTION = """
addEventListener("unhandledrejection", (ev) => {
  const r = ev.reason;
  const text = r && r.stack ? r.stack : (r && r.message) || String(r);
  console.error("unhandledrejection: " + text);
});
"""


async def watched_page(context: BrowserContext) -> Page:
    """A new page of `context` whose console errors, uncaught exceptions and
    unhandled rejections are collected in ``page.vigil_errors``."""
    await context.add_init_script(UNHANDLED_REJECTION)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    page.vigil_errors = errors  # type: ignore[attr-defined]
    return page


@pytest.fixture
async def chromium_browser() -> AsyncIterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
async def new_page(chromium_browser: Browser) -> AsyncIterator[NewPage]:
    contexts = []

    async def make(width: int = 1280, height: int = 800) -> Page:
        context = await chromium_browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        return await watched_page(context)

    yield make
    for context in contexts:
        await context.close()


@pytest.fixture
async def browser_page(new_page: NewPage) -> Page:
    return await new_page()


@pytest.fixture
def artifacts_dir() -> Path:
    """Where screenshots go (artifacts/pages/ for the pages, others alike)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
