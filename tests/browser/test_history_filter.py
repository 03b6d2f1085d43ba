"""The history filter of the GM page and the player page (issue 13): by
character (names) and by kind (commands, the clock and its timed effects,
corrections and revives, undo), in real Chromium against a real server.

The table's history is made over a plain websocket (not under test); what
each page shows under each filter is then checked against what is known
of each entry: which character it is about and what made it.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import PAGES, open_live
from tests.support.commands import ws_commands
from tests.support.server import ServerProcess


async def shown(page: Page) -> dict[int, dict[str, str]]:
    """The history entries the page shows: rev -> its kind and its text."""
    rows: list[dict[str, Any]] = await page.locator("#history li.entry").evaluate_all(
        "(lis) => lis.map((li) => ({rev: Number(li.dataset.rev), kind: li.dataset.kind,"
        " head: li.querySelector('.entry-kind').textContent, text: li.querySelector('.events').textContent}))"
    )
    return {r["rev"]: r for r in rows}


async def pick(page: Page, char: str = "", kind: str = "") -> dict[int, dict[str, str]]:
    await page.locator("#history-char").select_option(label=char or "Everyone")
    await page.locator("#history-kind").select_option(kind)
    return await shown(page)


async def test_history_filtered_by_character_and_kind_on_the_gm_and_player_pages(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    gm = await new_page(1400, 1000)
    await open_live(gm, f"{vigil_server.url}/#token={vigil_server.gm_token}")
    replies = await ws_commands(
        vigil_server,
        vigil_server.gm_token,
        [
            {"type": "mettle.pain", "char": "brannoc", "amount": 2},
            {"type": "mettle.rattle", "char": "ysolde", "amount": 3},
            {"type": "correct", "char": "brannoc", "field": "pain", "value": 1},
            {"type": "undo"},
            {"type": "clock.run", "rate": 100},
        ],
    )
    assert all(r["type"] == "ack" for r in replies), replies
    pain, rattle, correction, undo, run = (r["rev"] for r in replies)
    # Ysolde's rattle wears off by itself once the clock runs: the clock's own entry.
    gone = gm.locator("#history li.entry[data-kind='clock']", has_text="Ysolde")
    await expect(gone.first).to_be_visible()
    worn_off = int(await gone.first.get_attribute("data-rev") or 0)
    assert worn_off > run

    everything = await shown(gm)
    assert {pain, rattle, correction, undo, run, worn_off} <= set(everything)
    assert everything[pain]["head"] == "Apply pain"  # the command's name, not mettle.pain
    assert await gm.locator("#history-shown").text_content() == ""

    brannoc = await pick(gm, "Brannoc")
    assert {pain, correction} <= set(brannoc) and not {rattle, undo, worn_off} & set(brannoc)
    assert all("Brannoc" in e["text"] for e in brannoc.values())
    await expect(gm.locator("#history-shown")).to_have_text(
        f"{len(brannoc)} of {len(everything)} loaded entries"
    )
    PAGES.mkdir(parents=True, exist_ok=True)
    await gm.locator("section.panel", has=gm.locator("#history")).screenshot(
        path=str(PAGES / "history-filter-gm.png")
    )
    ysolde = await pick(gm, "Ysolde")
    assert {rattle, worn_off} <= set(ysolde) and not {pain, correction} & set(ysolde)

    for kind, known in (("clock", worn_off), ("correction", correction), ("undo", undo), ("command", pain)):
        entries = await pick(gm, kind=kind)
        assert known in entries and {e["kind"] for e in entries.values()} == {kind}, (kind, entries)
    assert set(await pick(gm, kind="undo")) == {undo}
    assert set(await pick(gm, "Brannoc", "command")) & {pain, correction} == {pain}

    # The player page filters its own history the same way: the characters
    # of its view by name; no undo entries reach a player.
    player = await new_page(1100, 1000)
    await open_live(player, f"{vigil_server.url}/#token={vigil_server.player_token}")
    await expect(player.locator(f"#history li.entry[data-rev='{worn_off}']")).to_be_visible()
    names = await player.locator("#history-char option").all_text_contents()
    assert names[0] == "Everyone" and {"Brannoc", "Ysolde"} <= set(names[1:])
    own = await pick(player, "Brannoc")
    assert {pain, correction} <= set(own) and rattle not in own
    assert own[pain]["head"] == "Command" and own[correction]["head"] == "Correction"
    assert await pick(player, kind="undo") == {}
    await expect(player.locator("#history .history-none")).to_have_text(
        "No loaded entry matches the filter; older entries may."
    )
    clock = await pick(player, "Ysolde", "clock")
    assert worn_off in clock
    assert gm.vigil_errors == [] and player.vigil_errors == []  # type: ignore[attr-defined]
