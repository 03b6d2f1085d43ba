"""Stream layouts of the spectator page (/watch) at 1920×1080, per game,
in real Chromium against a real ``vigil serve`` (issue 13, stream layouts).

Each game's table holds 20 characters (one dying, one with a long name,
harm and conditions on several); the spectator sees 1, then 8, then all
20 (the others hidden by the GM, as a GM reveals NPCs). For each count and
each layout the page must fit the screen: every text element has
``scrollWidth <= clientWidth``, its box inside the 1920×1080 viewport, and
a computed font size of at least 24 px; every character is either drawn
or counted in the "+N more" marker. DRYH's table has an open roll (rolled,
with a helper): the lower third must show it and, beside it and not under
it, up to eight characters. One page per game follows the layouts
through the URL fragment (as a stream deck switches them), so no page is
reloaded between checks. Screenshots go to artifacts/pages/layout-*.png.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import websockets
from playwright.async_api import Page, expect
from tests.browser.test_session import new_table
from tests.browser.test_watch import PAGES
from tests.support.server import ServerProcess

LAYOUTS = ["full", "compact", "overlay", "overlay-compact", "lower-third", "corner", "character", "roll"]
COUNTS = [1, 8, 20]
NAMES = [
    "Mara",
    "Bartholomew Ashcombe-Whitlock the Younger",
    "Ysolde",
    "Juk",
    "Teodora Vance",
    "Ama",
    "Brannoc",
    "Ilse",
    "Oswin Marlowe",
    "Pell",
    "Quenby",
    "Rhoswen",
    "Sable",
    "Tamsin",
    "Ulric",
    "Vesna",
    "Wystan",
    "Xanthe",
    "Yorick",
    "Zelda",
]
IDS = [f"c{n:02d}" for n in range(1, 21)]

# Every visible text element: does it fit its box, the screen (and no box
# that clips it), and 24 px?
FIT_JS = """() => {
    const bad = [];
    const W = window.innerWidth, H = window.innerHeight;
    for (const el of document.body.querySelectorAll('*')) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || !el.getClientRects().length) continue;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || el.closest('[hidden]')) continue;
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) continue;  // visually hidden (screen-reader) text
        const what = `${el.className || el.tagName} "${el.textContent.trim().slice(0, 30)}"`;
        if (el.scrollWidth > el.clientWidth)
            bad.push(`${what} overflows: ${el.scrollWidth} > ${el.clientWidth}`);
        if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5)
            bad.push(`${what} outside the screen: ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
        if (parseFloat(style.fontSize) < 24) bad.push(`${what} at ${style.fontSize}`);
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
            const o = getComputedStyle(up);
            if (o.overflowX === 'visible' && o.overflowY === 'visible') continue;
            const b = up.getBoundingClientRect();
            if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5
                || r.left < b.left - 0.5 || r.right > b.right + 0.5)
                bad.push(`${what} cut off by ${up.id || up.className}`);
        }
    }
    return bad;
}"""

# Characters drawn, and those counted in "+N more" (or the page marker).
COUNT_JS = """() => {
    const drawn = [...document.querySelectorAll('#watch-characters [data-char]')];
    const shown = drawn.filter((el) => !el.hidden).length;
    const more = document.getElementById('watch-more');
    const text = more && !more.hidden ? more.textContent : '';
    const n = /^\\+(\\d+)/.exec(text);
    return {shown, more: n ? Number(n[1]) : 0, text};
}"""

# The lower third with an open roll: the roll's box, and every drawn character
# chip that overlaps it (none may: the band shows both side by side).
BESIDE_ROLL_JS = """() => {
    const roll = document.querySelector('#watch-rolls .roll');
    if (!roll) return null;
    const r = roll.getBoundingClientRect();
    const over = [...document.querySelectorAll('#watch-characters [data-char]:not([hidden])')]
        .filter((c) => { const b = c.getBoundingClientRect();
            return b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom; })
        .map((c) => c.dataset.char);
    return {roll: [r.left, r.top, r.right, r.bottom].map(Math.round), over};
}"""
# How many characters the lower third draws beside an open DRYH roll (in two
# columns of chips); when more wait, the "+N more" marker takes the last place.
BESIDE_ROLL = 8

# Wait for the pool-by-pool reveal of a DRYH roll to finish (boxes move while it runs).
REVEALED_JS = """() => !document.getAnimations().some(
    (a) => a.animationName === 'pool-in' && a.playState === 'running')"""


async def gm_send(server: ServerProcess, token: str, table: str, bodies: list[dict[str, Any]]) -> None:
    """GM commands over one plain websocket (setup, not under test); each must be applied."""
    async with websockets.connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token, "client": "test"}))
        for n, body in enumerate(bodies):
            await ws.send(json.dumps({"type": "cmd", "id": f"s{n}", "table": table, "body": body}))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("id") == f"s{n}":
                    assert reply["type"] == "ack", (body, reply)
                    break


def sheets(system: str) -> list[dict[str, Any]]:
    if system == "mettle":
        return [{"mettle": 3 + n % 3} for n in range(20)]
    if system == "dryh":
        return [{"discipline": 3, "exhaustion": n % 4, "madness": n % 3} for n in range(20)]
    return [{"traits": {"athlete": 4, "constitution": 5, "willpower": 3}} for _ in range(20)]


def harm(system: str) -> list[dict[str, Any]]:
    """Something to show on the first characters: a dying one, harm, a roll."""
    if system == "mettle":
        return [
            {"type": "clock.run", "rate": 1},
            {"type": "mettle.check", "char": "c01", "stat": 3, "tn": 7, "lot": "plain"},
            {"type": "mettle.pain", "char": "c01", "amount": 7, "lot": "plain"},
            {"type": "mettle.rattle", "char": "c02", "amount": 4},
            {"type": "mettle.injury_add", "char": "c02", "label": "Cut arm", "penalty": 1},
            {"type": "mettle.pain", "char": "c03", "amount": 2, "lot": "plain"},
            {"type": "combat.start"},
        ]
    if system == "dryh":
        return [
            {"type": "dryh.open", "char": "c01", "pain": 4},
            {"type": "dryh.declare", "char": "c01", "madness": 1, "exhaustion_up": True},
            {"type": "dryh.help", "char": "c01", "helper": "c02"},
            {"type": "dryh.roll", "char": "c01"},
        ]
    return [
        {"type": "hursagmu.harm", "char": "c01", "stuns": 2, "wounds": 1},
        {"type": "hursagmu.harm", "char": "c02", "shocks": 1},
        {
            "type": "hursagmu.poison",
            "char": "c02",
            "damage": 1,
            "interval": 600,
            "duration": 3600,
            "name": "Scorpion venom",
        },
        {"type": "hursagmu.trait_roll", "char": "c01", "trait": "athlete", "target": 8, "kind": "physical"},
    ]


async def show(server: ServerProcess, gm: str, table: str, ids: list[str], visibility: str) -> None:
    await gm_send(
        server, gm, table, [{"type": "character.meta", "char": c, "visibility": visibility} for c in ids]
    )


@pytest.mark.parametrize("system", ["mettle", "dryh", "hursagmu"])
async def test_stream_layouts_fit_1080p(vigil_server: ServerProcess, new_page: Any, system: str) -> None:
    table = f"stream{system}"
    tokens = await new_table(vigil_server, system, table, dict(zip(IDS, sheets(system), strict=True)))
    gm = tokens["gm"]
    await gm_send(
        vigil_server,
        gm,
        table,
        [{"type": "character.meta", "char": c, "name": name} for c, name in zip(IDS, NAMES, strict=True)],
    )
    await gm_send(vigil_server, gm, table, harm(system))
    await show(vigil_server, gm, table, IDS[1:], "hidden")

    page: Page = await new_page(1920, 1080)
    await page.goto(f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=full")
    await expect(page.locator("#watch-conn")).to_have_attribute("data-status", "connected")
    PAGES.mkdir(parents=True, exist_ok=True)
    shown_before = 1
    for count in COUNTS:
        if count > shown_before:
            await show(vigil_server, gm, table, IDS[shown_before:count], "full")
            shown_before = count
        await page.evaluate("location.hash = 'layout=full'")
        await expect(page.locator("#watch-characters [data-char]")).to_have_count(count)
        for layout in LAYOUTS:
            extra = "&char=c01" if layout == "character" else ""
            await page.evaluate(f"location.hash = 'layout={layout}{extra}'")
            await expect(page.locator("body")).to_have_attribute("data-layout", layout)
            await page.wait_for_function(REVEALED_JS)
            if layout != "roll":
                await expect(
                    page.locator("#watch-characters [data-char]:not([hidden])").first
                ).to_be_visible()
            if system == "dryh" and layout in ("full", "overlay", "lower-third", "roll"):
                await expect(page.locator("[data-roll='c01'] .die").first).to_be_visible()
            if system != "dryh" and layout == "roll":
                await expect(page.locator(".last-roll .reading")).to_be_visible()
            problems = await page.evaluate(FIT_JS)
            assert problems == [], f"{system} {layout} with {count} characters: {problems}"
            counted = await page.evaluate(COUNT_JS)
            if system == "dryh" and layout == "lower-third":
                # The open roll and the characters both, side by side.
                beside = await page.evaluate(BESIDE_ROLL_JS)
                assert beside is not None and beside["over"] == [], (count, beside)
                wanted = min(count, BESIDE_ROLL) - (1 if counted["more"] else 0)
                assert counted["shown"] >= wanted, (count, counted)
            if layout != "roll":
                expected = 1 if layout == "character" else count
                assert counted["shown"] >= 1
                assert counted["shown"] + counted["more"] == expected, (layout, count, counted)
            print(f"{system} {layout} {count}: {counted['shown']} drawn, marker {counted['text']!r}")
            transparent = layout not in ("full", "compact")
            await page.screenshot(
                path=str(PAGES / f"layout-{system}-{layout}-{count}.png"), omit_background=transparent
            )
    # Compact rows say their badges and key numbers in words, not letters alone.
    await page.evaluate("location.hash = 'layout=overlay-compact'")
    if system == "mettle":
        await expect(page.locator("[data-char='c01'] .badge-label").first).to_have_text("Dying")
    if system != "dryh":
        await expect(page.locator("[data-char='c01'] .key-word").first).to_have_text(
            re.compile(r"^[A-Z][a-z]+")
        )
    assert [e for e in page.vigil_errors if "pageerror" in e] == []  # type: ignore[attr-defined]
