"""Streams readable over any video (issue 22), in real Chromium against a
real ``vigil serve``, in each game: the stream's roll layout shows the
newest roll or check (the last of several poison doses fired by one clock
jump; the second of two checks), a check says its outcome in words, a
poisoned or injured character never reads "No conditions", DRYH talents
and Pain & Mettle kit uses are on the cards, a DRYH roll's pool rows start
their dice at one column, and Hursagmu's resisted damage and wound
penalty explain themselves with their rules linked."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import PAGES, open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

EVENTS_JS = """(code) => window.vigil.history({ limit: 50 }).then((page) =>
    page.entries.slice().sort((a, b) => a.rev - b.rev)
        .flatMap((e) => e.events).filter((ev) => ev.code === code))"""


async def words(page: Page, selector: str) -> str:
    return " ".join((await page.locator(selector).first.inner_text()).split())


async def test_hursagmu_stream_shows_the_newest_dose_a_poisoned_card_and_resisted_damage(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(
        vigil_server, "hursagmu", "show-hur", {"juk": {"traits": {"constitution": 1}}, "sarah": {}}
    )
    gm = tokens["gm"]
    poison = {"type": "hursagmu.poison", "char": "juk", "damage": 9, "interval": 60, "duration": 600}
    assert (await ws_command(vigil_server, gm, {**poison, "name": "Adder venom"}, "show-hur"))[
        "type"
    ] == "ack"
    watch = await new_page(1920, 1080)
    await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=full")
    card = watch.locator("[data-char=juk]")
    # A poisoned character lists its poison, never "No conditions".
    await expect(card.locator(".condition-poisoned")).to_have_text("Poisoned: Adder venom")
    await expect(card).not_to_contain_text("No conditions")
    await expect(watch.locator("[data-char=sarah] .status-word")).to_be_visible()

    # One clock jump fires three doses in one change: the roll layout shows the third.
    await ws_command(vigil_server, gm, {"type": "clock.set", "to": 185}, "show-hur")
    roll = await new_page(1920, 1080)
    await open_live(roll, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=roll")
    doses = await roll.evaluate(EVENTS_JS, "poison_dose")
    assert [d["params"]["dose"] for d in doses] == [1, 2, 3]
    newest = doses[-1]["params"]
    shown = roll.locator("#watch-rolls .roll.check")
    await expect(shown.locator(".reading")).to_contain_text("A dose of Adder venom hits Juk")
    faces = [
        int(f) for f in await shown.locator(".die").evaluate_all("(ds) => ds.map((d) => d.dataset.face)")
    ]
    assert faces == newest["faces"]
    # The resisted damage explains itself: its total and what got through (HUR-12), linked.
    total, harm = newest["total"], newest["harm"]
    last = shown.locator(".explain-line[data-rule='HUR-12']")
    if harm:
        unit = "wound" if harm == 1 else "wounds"
        await expect(last).to_contain_text(f"9 damage − {total} resisted: takes {harm} {unit}")
    else:
        await expect(last).to_contain_text(f"{total} against 9 damage: nothing gets through")
    assert await last.locator("a.rule-link").get_attribute("href") == "/rules/hursagmu#HUR-12"
    # The sentence lists what was taken, never a count of 0.
    sentence = await words(roll, "#watch-rolls .reading")
    assert " 0 " not in f" {sentence} " and "+0" not in sentence, sentence
    PAGES.mkdir(parents=True, exist_ok=True)
    await roll.screenshot(path=str(PAGES / "stream-hursagmu-roll.png"), omit_background=True)
    await watch.screenshot(path=str(PAGES / "stream-hursagmu-full.png"))
    no_page_errors(watch, roll)


async def test_hursagmu_wound_penalty_is_explained_with_its_rule(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "hursagmu", "show-pen", {"uruk": {"traits": {"athlete": 2}}})
    gm = tokens["gm"]
    await ws_command(vigil_server, gm, {"type": "hursagmu.harm", "char": "uruk", "wounds": 13}, "show-pen")
    watch = await new_page(1920, 1080)
    await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=roll")
    body = {
        "type": "hursagmu.trait_roll",
        "char": "uruk",
        "trait": "athlete",
        "target": 8,
        "kind": "physical",
    }
    assert (await ws_command(vigil_server, gm, body, "show-pen"))["type"] == "ack"
    line = watch.locator("#watch-rolls .explain-line[data-rule='HUR-02']")
    await expect(line).to_contain_text("13 wounds: − 3, 1 for each wound beyond 10")
    assert await line.locator("a.rule-link").get_attribute("href") == "/rules/hursagmu#HUR-02"
    await expect(watch.locator("#watch-rolls .explain-line").first).to_contain_text("− 3 (13 wounds)")
    # "takes harm: stuns 0, wounds 13" is said as people would.
    harmed = await watch.evaluate(EVENTS_JS, "harmed")
    assert harmed[0]["params"]["counts"] == {"wounds": 13}
    no_page_errors(watch)


async def test_mettle_stream_shows_the_newest_check_in_words_and_an_injured_card(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tokens = await new_table(vigil_server, "mettle", "show-met", {"ysolde": {"mettle": 5}})
    gm = tokens["gm"]
    for body in (
        {"type": "mettle.injury_add", "char": "ysolde", "label": "Cut", "penalty": 1},
        {"type": "mettle.check", "char": "ysolde", "stat": 3, "tn": 2, "lot": "plain"},
    ):
        assert (await ws_command(vigil_server, gm, body, "show-met"))["type"] == "ack", body
    roll = await new_page(1920, 1080)
    await open_live(roll, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=roll")
    await expect(roll.locator("#watch-rolls .reading")).to_have_text(
        "Ysolde checks 2 against TN 2 and passes."
    )
    # The second check, made while the stream is open, replaces the first: the newest is shown.
    fail = {"type": "mettle.check", "char": "ysolde", "stat": 9, "tn": 2, "lot": "fail"}
    assert (await ws_command(vigil_server, gm, fail, "show-met"))["type"] == "ack"
    reading = roll.locator("#watch-rolls .reading")
    await expect(reading).to_have_text("Ysolde checks 8 against TN 2 and fails on a fail lot.")
    text = await reading.inner_text()
    assert "passed:" not in text and "lot fail" not in text
    full = await new_page(1920, 1080)
    await open_live(full, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=full")
    card = full.locator("[data-char=ysolde]")
    await expect(card.locator(".condition-injured")).to_have_text("Injured: Cut (−1)")
    await expect(card).not_to_contain_text("No conditions")
    no_page_errors(roll, full)


async def test_mettle_kit_uses_are_on_the_gm_card(vigil_server: ServerProcess, new_page: Any) -> None:
    tokens = await new_table(vigil_server, "mettle", "show-kit", {"ysolde": {"mettle": 5}})
    gm = tokens["gm"]
    for kit, uses in (("medkit", 2), ("bandages", 0)):
        body = {"type": "mettle.kit_set", "char": "ysolde", "kit": kit, "uses": uses}
        assert (await ws_command(vigil_server, gm, body, "show-kit"))["type"] == "ack", body
    page = await new_page(1440, 900)
    await open_live(page, f"{vigil_server.url}/#token={gm}")
    card = page.locator("#characters [data-char=ysolde]")
    await expect(card.locator("[data-kit=medkit]")).to_have_text("medkit: 2 uses left")
    await expect(card.locator("[data-kit=bandages]")).to_have_text("bandages: used up")
    no_page_errors(page)


async def test_dryh_cards_show_talents_and_pool_rows_align(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    sheet = {
        "discipline": 3,
        "exhaustion": 2,
        "exhaustion_talent": "Outrun anything",
        "madness_talent": "Shadow step",
    }
    tokens = await new_table(vigil_server, "dryh", "show-dryh", {"alice": sheet})
    gm = tokens["gm"]
    for body in (
        {"type": "dryh.open", "char": "alice", "pain": 3},
        {"type": "dryh.declare", "char": "alice", "madness": 1},
        {"type": "dryh.roll", "char": "alice"},
    ):
        assert (await ws_command(vigil_server, gm, body, "show-dryh"))["type"] == "ack", body
    for layout in ("full", "overlay", "roll"):
        watch = await new_page(1920, 1080)
        await watch.emulate_media(reduced_motion="reduce")  # rows at rest: no reveal's scale
        await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout={layout}")
        if layout != "roll":
            card = watch.locator("[data-char=alice]")
            await expect(card.locator("[data-talent=exhaustion]")).to_have_text(
                "Exhaustion talent: Outrun anything"
            )
            await expect(card.locator("[data-talent=madness]")).to_have_text("Madness talent: Shadow step")
        rows = watch.locator("#watch-rolls .pool-row")
        await expect(rows.first).to_be_visible()
        lefts = await rows.evaluate_all(
            "(rs) => rs.map((r) => r.querySelector('.dice').getBoundingClientRect().left)"
        )
        assert len(lefts) >= 4, lefts
        assert max(lefts) - min(lefts) < 1, f"{layout}: dice columns start at {lefts}"
        no_page_errors(watch)
