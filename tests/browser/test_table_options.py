"""Every table option of the three games, set from the GM page's options
panel (issue 13), each with its effect seen on a page or in the next roll
or command: Pain & Mettle's lot weights, manual dice and stabilize TN;
DRYH's response boxes, despair per player, hope cleared and dice revealed at session end,
wake resets, manual dice and failure consequences; Hursagmu's manual dice,
resistance and wake hour; and for each game the server's
``pause_without_gm``.

The options are the catalogue's (schemas/catalogue.json, per game): the
first check of each test asserts that the test sets every one of them, so
an option added later fails here until its effect is tested too. Setup that
is not under test (characters, a dying character, a crash) goes over a
plain websocket; everything the options change is done and read on the
pages, as a GM and a player would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page, expect
from tests.browser.test_dashboard import PAGES, card, open_live
from tests.browser.test_session import fill_fields, new_table, no_page_errors
from tests.support.commands import ws_commands
from tests.support.server import ServerProcess

CATALOGUE = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "catalogue.json").read_text())


def options_of(game: str) -> set[str]:
    return {o["name"] for o in CATALOGUE["games"][game]["options"]}


def options_form(gm: Page) -> Locator:
    return gm.locator("#table-forms form[data-command='table.options']")


async def set_options(gm: Page, **values: Any) -> None:
    """Set options in the GM page's options form as a GM does (tick, type,
    pick) and submit it; wait until the page's state holds them."""
    form = options_form(gm)
    for name, value in values.items():
        if isinstance(value, dict):
            await form.locator(f"[name='options.{name}.__set']").check()
            for sub, number in value.items():
                await form.locator(f"[name='options.{name}.{sub}']").fill(str(number))
            continue
        control = form.locator(f"[name='options.{name}']")
        if isinstance(value, bool):
            await control.set_checked(value)
        elif await control.evaluate("(el) => el.tagName") == "SELECT":
            await control.select_option(value)
        else:
            await control.fill(str(value))
    await form.locator("button[type=submit]").click()
    await gm.wait_for_function(
        "(want) => { const s = window.vigil.state; return Object.entries(want).every(([k, v]) =>"
        " JSON.stringify(k in (s.settings ?? {}) ? s.settings[k] : s.options[k]) === JSON.stringify(v)); }",
        arg=values,
    )
    await expect(form.locator(".vigil-form-error")).to_be_hidden()


async def send_form(page: Page, command: str, faces: list[int] | None = None, **fields: str) -> Locator:
    """Fill and submit one command form of a page (faces typed into its
    manual-dice rows), and wait until the page has drawn the change."""
    form = page.locator(f"form[data-command='{command}']").first
    await fill_fields(form, fields)
    for n, face in enumerate(faces or []):
        await form.locator("[data-field='faces'] > button.vigil-add").click()
        await form.locator(f"[name='faces.{n}']").fill(str(face))
    rev = await page.locator("body").get_attribute("data-rev")
    await form.locator("button[type=submit]").click()
    await expect(page.locator("body")).not_to_have_attribute("data-rev", rev or "")
    return form


def gm_reopener(new_page: Any, gm_url: str, height: int = 1000) -> Callable[[], Awaitable[Page]]:
    """How the GM's page is opened again once closed (a new page, live)."""

    async def reopen() -> Page:
        page: Page = await new_page(1400, height)
        await open_live(page, gm_url)
        return page

    return reopen


async def pause_without_gm_seen(
    gm: Page, player: Page, reopen: Callable[[], Awaitable[Page]], player_acts: Callable[[], Awaitable[None]]
) -> Page:
    """``pause_without_gm``: on (the default), the player page's clock
    pauses when the GM's page closes and runs again when it is back; off,
    it keeps running after the GM leaves (the player acts meanwhile, so the
    player page is known to be up to date). Returns the GM's new page."""
    mode = player.locator("#clock-mode")
    await gm.locator("#clock-run").click()
    await expect(mode).to_have_attribute("data-mode", "running")
    await gm.close()
    await expect(mode).to_have_attribute("data-mode", "paused")
    gm = await reopen()
    await expect(mode).to_have_attribute("data-mode", "running")
    await set_options(gm, pause_without_gm=False)
    await gm.close()
    rev = await player.locator("body").get_attribute("data-rev")
    await player_acts()
    await expect(player.locator("body")).not_to_have_attribute("data-rev", rev or "")
    await expect(mode).to_have_attribute("data-mode", "running")
    paused = player.locator("#history li.entry", has_text="No GM is connected: the clock pauses.")
    await expect(paused).to_have_count(1)
    return await reopen()


async def test_mettle_options_lot_weights_manual_dice_stabilize_tn_pause(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tested = {"lot_weights", "manual_dice", "stabilize_tn", "pause_without_gm"}
    assert tested == options_of("mettle")
    gm_url = f"{vigil_server.url}/#token={vigil_server.gm_token}"
    replies = await ws_commands(
        vigil_server,
        vigil_server.gm_token,
        [
            {"type": "mettle.kit_set", "char": "brannoc", "kit": "medkit", "uses": 3},
            {"type": "mettle.pain", "char": "ysolde", "amount": 5, "lot": "fail"},  # dying
        ],
    )
    assert all(r["type"] == "ack" for r in replies), replies
    gm = await new_page(1400, 1000)
    player = await new_page(1100, 1000)
    await open_live(gm, gm_url)
    await open_live(player, f"{vigil_server.url}/#token={vigil_server.player_token}")
    await expect(card(gm, "ysolde").locator("[data-badge=dying]")).to_be_visible()

    # stabilize_tn: without it a player's stabilize attempt is refused (the
    # TN is the GM's); with a table TN of 4 the same attempt is made at 4.
    stabilize = {"char": "ysolde", "discipline": "survival", "kit": "medkit"}
    form = player.locator("form[data-command='mettle.stabilize']")
    for name, value in stabilize.items():
        await form.locator(f"[name='{name}']").select_option(value)
    await form.locator("button[type=submit]").click()
    await expect(form.locator(".vigil-form-error")).to_contain_text(
        "The GM sets the TN of a stabilize attempt"
    )
    await set_options(gm, stabilize_tn=4)
    form = await send_form(player, "mettle.stabilize", **stabilize)
    await expect(form.locator(".form-result")).to_contain_text(
        re.compile(r"Brannoc tries to stabilize Ysolde .* TN 4")
    )

    # lot_weights: every lot a fail; the next check by the GM casts one.
    await gm.locator("#act-char").select_option("brannoc")
    check = gm.locator("form[data-command='mettle.check']")
    await expect(check.locator("[data-field='lots']")).to_have_count(0)
    await set_options(gm, lot_weights={"crit": 0, "plain": 0, "fail": 1})
    form = await send_form(gm, "mettle.check", stat="5", tn="1")
    fails = "Brannoc checks 5 against TN 1 and fails on a fail lot"
    await expect(form.locator(".form-result")).to_contain_text(fails)

    # manual_dice: the check's lots appear (with the note), and the lot typed is the one cast.
    await expect(gm.locator("#manual-dice-note")).to_be_hidden()
    await set_options(gm, manual_dice=True)
    await expect(gm.locator("#manual-dice-note")).to_be_visible()
    await expect(check.locator("[data-field='lots']")).to_have_count(1)
    await check.locator("[data-field='lots'] > button.vigil-add").click()
    await check.locator("[name='lots.0']").fill("0")  # the first of crit, plain, fail
    form = await send_form(gm, "mettle.check", stat="5", tn="1")
    passes = "Brannoc checks 5 against TN 1 and passes on a crit lot"
    await expect(form.locator(".form-result")).to_contain_text(passes)
    await expect(player.locator("form[data-command='mettle.stabilize'] [data-field='lots']")).to_have_count(0)
    PAGES.mkdir(parents=True, exist_ok=True)
    await options_form(gm).screenshot(path=str(PAGES / "options-mettle.png"))

    reopen = gm_reopener(new_page, gm_url)

    async def player_rests() -> None:
        await player.locator("form[data-command='mettle.rest_start'] button[type=submit]").click()

    gm = await pause_without_gm_seen(gm, player, reopen, player_rests)
    no_page_errors(gm, player)


async def test_dryh_options_from_the_page_and_their_effects(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tested = {
        "response_boxes",
        "despair_per_player",
        "hope_clears_at_session_end",
        "reveal_dice_at_session_end",
        "wake_resets",
        "manual_dice",
        "failure_consequences",
        "pause_without_gm",
    }
    assert tested == options_of("dryh")
    tokens = await new_table(
        vigil_server, "dryh", "night", {"alice": {"discipline": 3, "exhaustion": 1}, "bob": {"discipline": 2}}
    )
    gm_url = f"{vigil_server.url}/#token={tokens['gm']}"
    gm = await new_page(1400, 1100)
    player = await new_page(1100, 1000)
    await open_live(gm, gm_url)
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")

    # response_boxes: each character's fight and flight boxes.
    fight = card(gm, "alice").locator("[data-stat=fight]")
    await expect(fight).to_have_attribute("aria-label", "Fight: 0 of 3 checked")
    await set_options(gm, response_boxes=5)
    await expect(fight).to_have_attribute("aria-label", "Fight: 0 of 5 checked")

    # despair_per_player: a session's start gives the GM that many per player character.
    await set_options(gm, despair_per_player=2)
    despair = int(await gm.locator("#despair").text_content() or "0")
    await send_form(gm, "dryh.session_start")
    await expect(gm.locator("#despair")).to_have_text(str(despair + 2 * 2))

    # hope_clears_at_session_end: hope the table holds is gone when the session ends.
    await set_options(gm, hope_clears_at_session_end=True)
    for n in (1, 2):
        await gm.locator("#hope-up").click()
        await expect(gm.locator("#hope")).to_have_text(str(n))
    await send_form(gm, "dryh.session_end")
    await expect(gm.locator("#hope")).to_have_text("0")
    await expect(player.locator("#hope")).to_have_text("0")

    # reveal_dice_at_session_end (on by default, docs/dice.md): that session end
    # revealed the dice seed and committed to a new period, whose fingerprint the
    # player's top bar shows; with it off, a session end reveals nothing.
    await player.wait_for_function("() => window.vigil.state.dice.revealed?.period === 1")
    fingerprint = await player.evaluate("window.vigil.state.dice.fingerprint")
    await expect(player.locator("#dice-proof")).to_contain_text(fingerprint)
    await set_options(gm, reveal_dice_at_session_end=False)
    await send_form(gm, "dryh.session_start")
    await send_form(gm, "dryh.session_end")
    rev = await gm.evaluate("window.vigil.rev")
    await player.wait_for_function("(rev) => window.vigil.rev >= rev", arg=rev)
    assert await player.evaluate("window.vigil.state.dice.period") == 2
    await expect(player.locator("#dice-proof")).to_contain_text(fingerprint)

    # wake_resets off: the GM wakes a crashed character to exhaustion 6, not 0.
    crash = {"type": "correct", "char": "alice", "field": "status", "value": "crashed"}
    assert (await ws_commands(vigil_server, tokens["gm"], [crash], "night"))[0]["type"] == "ack"
    await set_options(gm, wake_resets=False)
    await gm.locator("#act-char").select_option("alice")
    await send_form(gm, "dryh.wake")
    await expect(card(gm, "alice").locator("[data-stat=exhaustion] .stat-value")).to_have_text("6")

    # manual_dice: the GM's roll of an open roll takes typed faces (a form
    # in the roll's box instead of the plain Roll button).
    await gm.locator("#open-char").select_option("bob")
    await gm.locator("#open-pain").fill("3")
    await gm.get_by_role("button", name="Open roll").click()
    box = gm.locator("[data-roll='bob']")
    await expect(box.get_by_role("button", name="Roll for Bob")).to_be_visible()
    await expect(box.locator("[data-field='faces']")).to_have_count(0)
    await set_options(gm, manual_dice=True)
    await expect(box.locator("form[data-command='dryh.roll'] [data-field='faces']")).to_have_count(1)
    await expect(box.get_by_role("button", name="Roll for Bob")).to_have_count(0)

    # failure_consequences: on, a failed roll is resolved with the failure
    # consequences the server lists as legal. The faces make it fail:
    # discipline 6 6 (no success) against pain 1 1 1 (three).
    await set_options(gm, failure_consequences=True)
    await send_form(gm, "dryh.roll", faces=[6, 6, 1, 1, 1])
    await expect(box).to_have_attribute("data-phase", "rolled")
    dice = await gm.evaluate("window.vigil.state.game.rolls.bob.dice")
    assert (dice["discipline"], dice["pain"]) == ([6, 6], [1, 1, 1])
    legal = await gm.evaluate("window.vigil.state.game.rolls.bob.legal.failures")
    assert len(legal) > 1, legal
    menu = box.locator("select[name=failure] option")
    await expect(menu).to_have_count(len(legal))  # the resolve form follows the moves legal now
    assert await menu.evaluate_all("(os) => os.map((o) => o.value)") == legal
    await gm.locator("[data-roll='bob']").screenshot(path=str(PAGES / "options-dryh-roll.png"))

    reopen = gm_reopener(new_page, gm_url, 1100)

    await gm.locator("#hope-up").click()
    await expect(player.locator("#hope")).to_have_text("1")

    async def player_spends_hope() -> None:
        form = player.locator("form[data-command='dryh.hope_spend']")
        await form.locator("[name='what']").select_option("exhaustion")
        await form.locator("button[type=submit]").click()

    gm = await pause_without_gm_seen(gm, player, reopen, player_spends_hope)
    await expect(card(gm, "alice").locator("[data-stat=exhaustion] .stat-value")).to_have_text("5")
    no_page_errors(gm, player)


async def test_hursagmu_options_manual_dice_resistance_wake_hour_pause(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    tested = {"manual_dice", "resistance", "wake_hour", "pause_without_gm"}
    assert tested == options_of("hursagmu")
    tokens = await new_table(vigil_server, "hursagmu", "zig", {"ninsun": {"traits": {"constitution": 3}}})
    gm_url = f"{vigil_server.url}/#token={tokens['gm']}"
    gm = await new_page(1400, 1000)
    player = await new_page(1100, 1000)
    await open_live(gm, gm_url)
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
    await gm.locator("#act-char").select_option("ninsun")
    damage = gm.locator("form[data-command='hursagmu.damage']")

    # manual_dice: the resistance roll's faces appear and are the ones rolled:
    # 1 + 1 + constitution 3 = 5 against 6 fails by 1.
    await expect(damage.locator("[data-field='faces']")).to_have_count(0)
    await set_options(gm, manual_dice=True)
    await expect(damage.locator("[data-field='faces']")).to_have_count(1)
    form = await send_form(gm, "hursagmu.damage", faces=[1, 1], amount="6")
    result = form.locator(".form-result")
    await expect(result).to_contain_text("Ninsun resists 6 damage with constitution: takes 1 wound.")
    await expect(result.locator(".die")).to_have_count(2)

    # resistance flat: no dice, damage less the trait: 5 − 3 = 2.
    await set_options(gm, resistance="flat")
    form = await send_form(gm, "hursagmu.damage", amount="5")
    await expect(result).to_contain_text("Ninsun resists 5 damage with constitution: takes 2 wounds.")
    await expect(result.locator(".die")).to_have_count(0)

    # wake_hour: the morning's recovery happens by itself at that hour.
    morning = gm.locator("#history li.entry", has_text=re.compile("Ninsun (recovers|wakes with nothing)"))
    await expect(morning).to_have_count(0)
    await set_options(gm, wake_hour=7)
    await gm.locator("#clock-minutes").fill("480")
    rev = await gm.locator("body").get_attribute("data-rev")
    await gm.locator("#clock-advance button[type=submit]").click()
    await expect(gm.locator("body")).not_to_have_attribute("data-rev", rev or "")
    await expect(morning.first).to_be_visible()
    PAGES.mkdir(parents=True, exist_ok=True)
    await options_form(gm).screenshot(path=str(PAGES / "options-hursagmu.png"))

    reopen = gm_reopener(new_page, gm_url)

    await send_form(gm, "hursagmu.harm", stuns="2")

    async def player_rests() -> None:
        await player.locator("form[data-command='hursagmu.rest'] button[type=submit]").click()

    gm = await pause_without_gm_seen(gm, player, reopen, player_rests)
    no_page_errors(gm, player)
