"""A whole session per game from the browser (issue 13): a GM page, a player
page and a spectator page open at once against a real ``vigil serve``.

The player acts from its own page (forms built from the command catalogue
for the commands it may send for its own characters), the GM answers from
the dashboard, and the spectator page shows each change by itself (the
same document throughout: no reload). How long the spectator took is
printed, not asserted (speed belongs to bench/).
"""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.async_api import Locator, Page, expect
from tests.browser.test_dashboard import PAGES, act, card, open_live
from tests.support.commands import ws_command
from tests.support.server import ServerProcess


async def new_table(
    server: ServerProcess, system: str, table: str, chars: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """A table with characters, and a player (owning the first character)
    and a spectator link: setup over a plain websocket, not under test."""
    created = (
        await ws_command(
            server,
            server.operator_token,
            {"type": "table.create", "system": system, "name": table.title(), "id": table},
        )
    )["result"]
    gm = created["gm_token"]
    for cid, sheet in chars.items():
        await ws_command(
            server, gm, {"type": "character.create", "id": cid, "name": cid.title(), "sheet": sheet}, table
        )
    first = next(iter(chars))
    player = (
        await ws_command(
            server, gm, {"type": "token.mint", "role": "player", "chars": [first], "label": "Pat"}, table
        )
    )["result"]
    spectator = (await ws_command(server, gm, {"type": "token.mint", "role": "spectator"}, table))["result"]
    return {"gm": gm, "player": player["token"], "spectator": spectator["token"]}


async def three_pages(
    server: ServerProcess, new_page: Any, tokens: dict[str, str]
) -> tuple[Page, Page, Page]:
    gm = await new_page(1400, 1000)
    player = await new_page(1100, 1000)
    watch = await new_page(1280, 800)
    await open_live(gm, f"{server.url}/#token={tokens['gm']}")
    await open_live(player, f"{server.url}/#token={tokens['player']}")
    await open_live(watch, f"{server.url}/watch#token={tokens['spectator']}")
    await watch.evaluate("window.__sameDocument = true")  # gone if the page reloads
    assert await player.evaluate("window.vigil.role") == "player"
    return gm, player, watch


async def spectator_sees(
    watch: Page, locator_text: tuple[str, str | re.Pattern[str]], what: str, started: float
) -> None:
    selector, text = locator_text
    await expect(watch.locator(selector)).to_have_text(text)
    print(f"spectator saw {what} {time.monotonic() - started:.2f} s after the click (not asserted)")


async def fill_fields(form: Locator, fields: dict[str, str]) -> None:
    """Type or choose each field's value in a command form."""
    for name, value in fields.items():
        control = form.locator(f"[name='{name}']")
        if await control.evaluate("(el) => el.tagName") == "SELECT":
            await control.select_option(value)
        else:
            await control.fill(value)


async def submit_from(page: Page, command: str, **fields: str) -> None:
    """Fill and submit one form of a page, and wait for its outcome by the form."""
    form = page.locator(f"form[data-command='{command}']")
    await fill_fields(form, fields)
    await form.locator("button[type=submit]").click()
    await expect(form).to_have_attribute("data-result", "ack")
    await expect(form.locator(".form-result .result-line").first).to_be_visible()


def no_page_errors(*pages: Page) -> None:
    errors = [e for p in pages for e in p.vigil_errors if "pageerror" in e]  # type: ignore[attr-defined]
    assert errors == []


async def test_mettle_session_player_shakes_off_rattle_gm_sets_options(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Pain & Mettle: the GM rattles Brannoc and sets a table option from
    the options form; Brannoc's player shakes rattle off from the player
    page (its only character, its own commands only); the spectator sees
    both changes without a reload."""
    tokens = {
        "gm": vigil_server.gm_token,
        "player": vigil_server.player_token,
        "spectator": vigil_server.spectator_token,
    }
    # The banner gives the player's link as a page to open, like the GM's.
    player_link = vigil_server.banner["Player page (Brannoc)"]
    assert player_link == f"{vigil_server.url}/#token={tokens['player']}"
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    rattle = "[data-char='brannoc'] [data-stat=rattle] .stat-value"

    await gm.locator("#act-char").select_option("brannoc")
    started = time.monotonic()
    await submit_from(gm, "mettle.rattle", amount="3")
    await spectator_sees(watch, (rattle, "3"), "rattle 3", started)

    # A table option from the GM's options panel, and its effect seen: with
    # a table TN for stabilizing, the player's stabilize form needs no TN.
    options = gm.locator("#table-forms form[data-command='table.options']")
    await options.locator("[name='options.stabilize_tn']").fill("4")
    await options.locator("button[type=submit]").click()
    await expect(options).to_have_attribute("data-result", "ack")
    await gm.wait_for_function("window.vigil.state.options.stabilize_tn === 4")

    # The player page: Brannoc's own commands, no GM inputs.
    await expect(player.locator("#act-char option")).to_have_text(["Brannoc"])
    for gm_only in ("mettle.pain", "mettle.rattle", "table.options", "correct"):
        await expect(player.locator(f"form[data-command='{gm_only}']")).to_have_count(0)
    await expect(player.locator("form[data-command='mettle.stabilize'] [name='tn']")).to_have_count(0)
    started = time.monotonic()
    await submit_from(player, "mettle.shake_off", effort="4")
    await expect(player.locator("form[data-command='mettle.shake_off'] .form-result")).to_contain_text(
        "Brannoc"
    )
    await spectator_sees(watch, (rattle, re.compile(r"^[0-2]$")), "the player's shake-off", started)
    await expect(card(gm, "brannoc").locator("[data-stat=rattle] .stat-value")).to_have_text(
        re.compile(r"^[0-2]$")
    )
    assert await watch.evaluate("window.__sameDocument") is True
    PAGES.mkdir(parents=True, exist_ok=True)
    await player.screenshot(path=str(PAGES / "player-mettle.png"), full_page=True)
    no_page_errors(gm, player, watch)


async def test_dryh_session_player_declares_rolls_and_chooses(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """DRYH: the GM turns failure consequences on and opens a roll for the
    player's character; the player declares and rolls from its page; the GM
    resolves with a failure consequence offered only when the server lists
    it as legal; a pending choice goes to its chooser's page with the legal
    moves only; the spectator follows every phase and keeps the last roll."""
    tokens = await new_table(
        vigil_server, "dryh", "night", {"alice": {"discipline": 3, "exhaustion": 1}, "bob": {"discipline": 2}}
    )
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    roll_on = lambda page: page.locator("[data-roll='alice']")  # noqa: E731

    options = gm.locator("#table-forms form[data-command='table.options']")
    await options.locator("[name='options.failure_consequences']").check()
    await options.locator("button[type=submit]").click()
    await gm.wait_for_function("window.vigil.state.options.failure_consequences === true")

    await gm.locator("#open-char").select_option("alice")
    await gm.locator("#open-pain").fill("3")
    started = time.monotonic()
    await gm.get_by_role("button", name="Open roll").click()
    await spectator_sees(watch, ("[data-roll='alice'] .phases .current", "Open"), "the open roll", started)

    # The player declares and rolls; the GM's controls are not on its page.
    mine = roll_on(player)
    await expect(mine.get_by_role("button", name="Resolve")).to_have_count(0)
    await expect(mine.get_by_role("button", name="Cancel roll")).to_have_count(0)
    await mine.get_by_label("Madness dice").select_option("1")
    await mine.get_by_role("button", name="Declare").click()
    await expect(roll_on(gm)).to_have_attribute("data-phase", "declared")
    started = time.monotonic()
    await mine.get_by_role("button", name="Roll for Alice").click()
    await spectator_sees(
        watch, ("[data-roll='alice'] .phases .current", "Rolled"), "the player's roll", started
    )

    # The GM resolves: the failure menu offers exactly the server's legal list.
    legal = await gm.evaluate("window.vigil.state.game.rolls.alice.legal.failures")
    failure = roll_on(gm).locator("select[name=failure]")
    if len(legal) > 1:
        # The page draws the menu once it has drawn this state (expect waits).
        await expect(failure.locator("option")).to_have_count(len(legal))
        assert await failure.locator("option").evaluate_all("(os) => os.map((o) => o.value)") == legal
        assert "exhaustion" in legal or "fight" in legal  # the option is on and the roll failed
    else:
        await expect(failure).to_have_count(0)
    rev = await gm.locator("body").get_attribute("data-rev")
    await roll_on(gm).get_by_role("button", name="Resolve").click()
    await expect(gm.locator("body")).not_to_have_attribute("data-rev", rev or "")

    # Pending choices: each on its chooser's page (Alice's on the player's),
    # with the legal moves only.
    # How many choices come depends on the dice: one answered per round,
    # as many rounds as a roll can ask (bounded).
    for _ in range(12):
        state = await gm.evaluate("window.vigil.state.game.rolls.alice ?? null")
        if state is None:
            break
        for who, moves in state["legal"]["choices"].items():
            page = player if who == "alice" else gm
            select = roll_on(page).locator(f"form[data-who='{who}'] select[name=choice]")
            await expect(select.locator("option")).to_have_count(len(moves))
            assert await select.locator("option").evaluate_all("(os) => os.map((o) => o.value)") == moves
            if who == "alice":
                await expect(roll_on(gm)).to_contain_text(
                    "Alice chooses"
                )  # the GM may answer for the player too
            await select.select_option(moves[0])
            rev = await page.locator("body").get_attribute("data-rev")
            await roll_on(page).locator(f"form[data-who='{who}'] button[type=submit]").click()
            await expect(page.locator("body")).not_to_have_attribute("data-rev", rev or "")
            break
    started = time.monotonic()
    await expect(gm.locator("[data-roll='alice'].last-roll")).to_be_visible()
    await spectator_sees(watch, (".last-roll h2", re.compile("Last roll: Alice")), "the closed roll", started)
    await expect(player.locator("[data-roll='alice'].last-roll")).to_be_visible()
    assert await watch.evaluate("window.__sameDocument") is True
    PAGES.mkdir(parents=True, exist_ok=True)
    await player.screenshot(path=str(PAGES / "player-dryh.png"), full_page=True)
    no_page_errors(gm, player, watch)


async def test_hursagmu_session_gm_harms_player_rests_and_takes_a_fall(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Hursagmu: the GM stuns Juk; Juk's player rests an action from its
    page and reads the roll by the form; the spectator sees the stuns the
    GM's page shows after each step, without a reload."""
    tokens = await new_table(
        vigil_server, "hursagmu", "zig", {"juk": {"traits": {"constitution": 6, "willpower": 3}}, "ama": {}}
    )
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    stuns = "[data-char='juk'] [data-stat=stuns] .stat-value"

    await gm.locator("#act-char").select_option("juk")
    started = time.monotonic()
    await act(gm, "hursagmu.harm", stuns="3")
    await spectator_sees(watch, (stuns, "3"), "3 stuns", started)

    await expect(player.locator("#act-char option")).to_have_text(["Juk"])
    await expect(player.locator("form[data-command='hursagmu.harm']")).to_have_count(0)
    started = time.monotonic()
    await submit_from(player, "hursagmu.rest")
    await expect(player.locator("form[data-command='hursagmu.rest'] .form-result")).to_contain_text(
        "Juk rests"
    )
    after = str(await gm.evaluate("window.vigil.state.characters.juk.sheet.stuns"))
    await spectator_sees(watch, (stuns, after), f"the player's rest ({after} stuns)", started)
    await expect(card(gm, "juk").locator("[data-stat=stuns] .stat-value")).to_have_text(after)

    # HUR-14: the GM declares a fall; it waits on Juk, and Juk's player
    # (offered the choice only while it waits) takes it from its page: 20
    # damage against constitution 6 always wounds (2d6 + 6 ≤ 18).
    await expect(player.locator("form[data-command='hursagmu.take_fall']")).to_have_count(0)
    await expect(player.locator("form[data-command='hursagmu.fall']")).to_have_count(0)
    await act(gm, "hursagmu.fall", spaces="10")
    await expect(player.locator("#act-waiting")).to_contain_text("Juk is falling 10 spaces")
    await expect(player.locator("form[data-command='hursagmu.break_fall']")).to_have_count(1)
    await submit_from(player, "hursagmu.take_fall")
    await expect(player.locator("form[data-command='hursagmu.take_fall'] .form-result")).to_contain_text(
        "Juk resists 20 damage"
    )
    await expect(player.locator("#act-waiting")).to_be_hidden()
    wounds = str(await gm.evaluate("window.vigil.state.characters.juk.sheet.wounds"))
    await spectator_sees(
        watch,
        ("[data-char='juk'] [data-stat=wounds] .stat-value", wounds),
        "the fall taken",
        time.monotonic(),
    )
    assert await watch.evaluate("window.__sameDocument") is True
    no_page_errors(gm, player, watch)


async def test_every_command_of_each_game_is_reachable_from_the_gm_page(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Every catalogue command of the table's game (its own and the generic
    table ones) has a control on the GM page: a built form, or one of the
    page's own controls carrying its data-command; the operator's commands
    are on the operator page. Those only a Foundry client can fill
    (catalogue foundry_only: Foundry's world time) are not on a page. A
    command whose legality the view publishes (catalogue ``legal``) has
    one while it is legal now, for the table or the character acted on
    (every state of a scene: tests/browser/test_legal_offers.py)."""
    for system, table in (("mettle", "demo"), ("dryh", "reach-d"), ("hursagmu", "reach-h")):
        if system == "mettle":
            token = vigil_server.gm_token
        else:
            token = (await new_table(vigil_server, system, table, {"one": {}}))["gm"]
        page = await new_page(1400, 1000)
        await open_live(page, f"{vigil_server.url}/#token={token}")
        tags = await page.evaluate(
            """(system) => import('/client/core/catalogue.js').then(({ CATALOGUE }) => {
                const legal = window.vigil.state.legal;
                const acting = document.querySelector('#act-char').value;
                const now = new Set([...Object.keys(legal.table), ...Object.keys(legal.chars[acting] ?? {})]);
                return Object.values(CATALOGUE.commands)
                  .filter((e) => (e.game === null || e.game === system) && e.senders.gm === true)
                  .filter((e) => !e.foundry_only && (!e.legal || now.has(e.type)))
                  .map((e) => e.type);
            })""",
            system,
        )
        shown = await page.evaluate(
            "() => [...document.querySelectorAll('[data-command]')].map((el) => el.dataset.command)"
        )
        # Controls that exist only in a phase (a DRYH roll's) or on a card.
        staged = {
            "dryh.declare",
            "dryh.help",
            "dryh.roll",
            "dryh.cancel",
            "dryh.despair_spend",
            "dryh.hope_improve",
            "dryh.resolve",
            "dryh.choose",
        }
        missing = sorted(set(tags) - set(shown) - staged)
        assert missing == [], (system, missing)


async def test_rattle_shown_falling_while_the_clock_runs_without_any_patch(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """MET-14 on screen: rattle wears off 1 per game second out of combat;
    both pages redraw it from the clock anchor (derived ``rattle_zero_at``)
    while no patch arrives (the client's revision stays where it was)."""
    gm = await new_page()
    watch = await new_page()
    await open_live(gm, f"{vigil_server.url}/#token={vigil_server.gm_token}")
    await open_live(watch, f"{vigil_server.url}/watch#token={vigil_server.spectator_token}")
    await gm.locator("#clock-run").click()
    await expect(gm.locator("#clock-mode")).to_have_attribute("data-mode", "running")
    await gm.locator("#act-char").select_option("ysolde")
    await act(gm, "mettle.rattle", amount="30")
    for page in (gm, watch):
        await page.wait_for_function("window.vigil.state.characters.ysolde.derived?.rattle_zero_at > 0")
    revs = [await p.evaluate("window.vigil.rev") for p in (gm, watch)]
    value = card(watch, "ysolde").locator("[data-stat=rattle] .stat-value")
    first = int(await value.text_content() or "0")
    await expect(value).not_to_have_text(str(first))
    later = int(await value.text_content() or "0")
    assert 0 < later < first <= 30, (first, later)
    await expect(card(gm, "ysolde").locator("[data-stat=rattle] .stat-value")).not_to_have_text(str(first))
    assert [await p.evaluate("window.vigil.rev") for p in (gm, watch)] == revs, "no patch arrived"
