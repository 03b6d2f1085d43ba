"""The README's "Languages" pictures: the GM's page of a Don't Rest Your
Head table in each language Vigil speaks, at 1440 × 900, in Debian's
Chromium against a real ``vigil serve``.

    .venv/bin/python scripts/screenshots.py [out_dir]

A table is made and a roll played over a plain websocket (as the browser
tests set tables up); each page is opened in a browser whose language is
the one shown (Playwright's ``locale``), so the picture also shows the
language chosen the way a GM's browser chooses it. The languages are the
Foundry module's (module.json), the list the pages offer. Pictures go to
docs/screenshots/<code>.png unless another directory is given.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright, expect  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.test_dashboard import open_live  # noqa: E402
from tests.support.commands import ws_command, ws_commands  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402

TABLE = "nightshift"
CHARACTERS = {
    "sarah": ("Sarah Lind", {"discipline": 3, "exhaustion": 1, "madness": 1}),
    "marcus": ("Marcus Vale", {"discipline": 2, "exhaustion": 2}),
}
SCENE = [
    {"type": "dryh.open", "char": "sarah", "pain": 4},
    {"type": "dryh.declare", "char": "sarah", "madness": 1, "exhaustion_up": True},
    {"type": "dryh.help", "char": "sarah", "helper": "marcus"},
    {"type": "dryh.roll", "char": "sarah"},
]
# A browser's language for each language the pages offer.
LOCALES = {"en": "en-GB", "de": "de-DE", "fr": "fr-FR", "ru": "ru-RU"}


async def table(server: ServerProcess) -> str:
    """A DRYH table with two characters and a roll on it; its GM token."""
    created = await ws_command(
        server,
        server.operator_token,
        {"type": "table.create", "system": "dryh", "name": "Night Shift", "id": TABLE},
    )
    gm: str = created["result"]["gm_token"]
    bodies = [
        {"type": "character.create", "id": cid, "name": name, "sheet": sheet}
        for cid, (name, sheet) in CHARACTERS.items()
    ]
    for reply in await ws_commands(server, gm, [*bodies, *SCENE], TABLE):
        assert reply["type"] == "ack", reply
    return gm


async def shoot(out: Path) -> list[Path]:
    languages = [
        lang["lang"]
        for lang in json.loads((ROOT / "foundry-module" / "module.json").read_text())["languages"]
    ]
    out.mkdir(parents=True, exist_ok=True)
    data = tempfile.TemporaryDirectory(prefix="vigil-screenshots-")
    server = ServerProcess(data_dir=Path(data.name)).start()
    shots = []
    try:
        gm = await table(server)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for code in languages:
                context = await browser.new_context(
                    viewport={"width": 1440, "height": 900}, locale=LOCALES[code]
                )
                page = await context.new_page()
                await open_live(page, f"{server.url}/#token={gm}")
                await expect(page.locator(f"html[lang={code}]")).to_have_count(1)
                await expect(page.locator("#history li").first).to_be_visible()
                path = out / f"{code}.png"
                await page.screenshot(path=str(path))
                shots.append(path)
                await context.close()
            await browser.close()
    finally:
        server.stop()
        data.cleanup()
    return shots


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    for path in asyncio.run(shoot(out)):
        print(path)


if __name__ == "__main__":
    main()
