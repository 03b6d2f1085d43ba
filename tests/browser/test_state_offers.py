"""Values the server publishes and offers that follow the state, on the
pages in real Chromium against a real ``vigil serve`` (issue 13):

- the GM's undo button says which command it takes back (the GM's view
  ``undo``, what ``Table.next_undo()`` would undo) and is disabled when
  nothing is left; a player's view has no such member;
- countdowns to the next timed effect whose outcome is random (a Hursagmu
  poison dose, an unconscious character's rest roll) fall on the GM's,
  the player's and the spectator's pages from the clock anchor, with no
  patch arriving, and stand still while the clock is paused;
- a pending fall (HUR-14) shows a "falling" badge on every page, its
  player is offered the answers first and none of its own actions;
- a dying character's stabilize form names another present character as
  the helper (MET-11), never the dying one.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import PAGES, act, card, open_live
from tests.browser.test_session import new_table, no_page_errors, three_pages
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

# The countdown a page draws for the next dose, read with the page's own
# modules: seconds left as the clock anchor projects them now.
LEFT_JS = """async ([char, until]) => {
    const { formatCountdown } = await import('/client/core/clock.js');
    return formatCountdown(until - window.vigil.gameNow());
}"""


async def test_the_undo_button_says_which_command_it_takes_back(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """The GM applies pain to Ysolde: the button reads "Undo: Apply pain —
    Ysolde (change n)" (the command's catalogue label); after the undo it
    names the command before; with nothing left it is disabled. A player's view carries no ``undo``."""
    tokens = await new_table(vigil_server, "mettle", "undo", {"ysolde": {"mettle": 5}})
    gm = await new_page(1400, 1000)
    player = await new_page()
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
    button = gm.locator("#undo")
    await expect(button).to_have_text(re.compile(r"^↶ Undo: Add character — Ysolde \(change \d+\)$"))

    await gm.locator("#act-char").select_option("ysolde")
    await act(gm, "mettle.pain", amount="2")
    await gm.wait_for_function("window.vigil.state.undo?.command === 'mettle.pain'")
    rev = await gm.evaluate("window.vigil.state.undo.rev")
    await expect(button).to_have_text(f"↶ Undo: Apply pain — Ysolde (change {rev})")
    await expect(button).to_be_enabled()
    # The GM link's label "gm" reads as its role's word.
    assert "by GM" in (await button.get_attribute("title") or "")
    assert await player.evaluate("'undo' in window.vigil.state") is False

    await button.click()
    await expect(card(gm, "ysolde").locator("[data-stat=pain] .stat-value")).to_have_text(re.compile(r"^0"))
    await expect(button).to_have_text(re.compile(r"^↶ Undo: Add character — Ysolde"))
    await button.click()
    await expect(card(gm, "ysolde")).to_have_count(0)
    await expect(button).to_have_text("↶ Nothing to undo")
    await expect(button).to_be_disabled()
    no_page_errors(gm, player)


async def test_undo_names_a_coin_and_reaches_past_what_a_player_built_on(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """The DRYH coin buttons are corrections: the undo button names what
    one set ("Hope set to 1"), never "Correct a value". On Pain & Mettle, a
    player's shake-off over the GM's rattle takes that rattle off the
    stack: the button names the pain before it, and the click takes the
    pain back (not "cannot be undone"). Its notice fades and goes."""
    tokens = await new_table(vigil_server, "dryh", "coins", {"ysolde": {}})
    gm = await new_page(1400, 1000)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    button = gm.locator("#undo")
    await gm.locator("#hope-up").click()
    await expect(button).to_have_text(re.compile(r"^↶ Undo: Hope set to 1 \(change \d+\)$"))

    tokens = await new_table(vigil_server, "mettle", "built-on", {"ysolde": {"mettle": 9}})
    player = await new_page()
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
    await gm.locator("#act-char").select_option("ysolde")
    await act(gm, "mettle.pain", amount="2")
    await act(gm, "mettle.rattle", amount="4")
    await expect(button).to_have_text(re.compile(r"^↶ Undo: Add rattle"))
    await act(player, "mettle.shake_off", effort="1")
    await expect(button).to_have_text(re.compile(r"^↶ Undo: Apply pain — Ysolde \(change \d+\)$"))
    await button.click()
    await expect(card(gm, "ysolde").locator("[data-stat=pain] .stat-value")).to_have_text(re.compile(r"^0"))
    notice = gm.locator(".message", has_text="Undone: Apply pain")
    await expect(notice).to_have_count(1)
    await expect(notice).to_have_count(0, timeout=10_000)
    no_page_errors(gm, player)


async def countdown_text(page: Page, char: str, kind: str) -> str:
    return await card(page, char).locator(f".countdown.kind-{kind} .countdown-time").first.inner_text()


async def test_countdowns_to_random_timed_effects_fall_without_a_patch(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """A poison dose every 10 game minutes on Juk, Ama unconscious (a rest
    roll every round): with the clock running, the next dose counts down
    on the GM's, the player's and the spectator's pages while no patch
    arrives (a dose 10 minutes away); paused, the countdowns stand at what
    the anchor gives. The rest roll's countdown is drawn from
    ``next_rest_at`` too."""
    tokens = await new_table(
        vigil_server,
        "hursagmu",
        "venom",
        {"juk": {"traits": {"constitution": 30}}, "ama": {"traits": {"constitution": 0}}},
    )
    gm_token = tokens["gm"]
    poison = {"type": "hursagmu.poison", "char": "juk", "damage": 1, "interval": 600, "duration": 3600}
    await ws_command(vigil_server, gm_token, {**poison, "name": "Adder venom"}, "venom")
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    for page in (gm, player, watch):
        await expect(card(page, "juk").locator(".countdown.kind-poison_dose .countdown-word")).to_have_text(
            re.compile("Next dose of Adder venom in", re.IGNORECASE)
        )
    await gm.locator("#clock-run").click()
    await expect(gm.locator("#clock-mode")).to_have_attribute("data-mode", "running")
    for page in (gm, player, watch):
        await page.wait_for_function("window.vigil.state.clock.mode === 'running'")
    revs = [await p.evaluate("window.vigil.rev") for p in (gm, player, watch)]
    for page in (gm, player, watch):
        first = await countdown_text(page, "juk", "poison_dose")
        assert re.fullmatch(r"\d\d:\d\d", first), first
        timer = card(page, "juk").locator(".countdown.kind-poison_dose .countdown-time")
        await expect(timer).not_to_have_text(first)  # it falls, drawn from the anchor
        later = await countdown_text(page, "juk", "poison_dose")
        assert 0 < int(later.replace(":", "")) < int(first.replace(":", "")), (first, later)
    assert [await p.evaluate("window.vigil.rev") for p in (gm, player, watch)] == revs, "no patch arrived"

    # Paused: the game time stands, and so does every countdown, at what the anchor gives.
    await gm.locator("#clock-pause").click()
    until = await gm.evaluate("window.vigil.state.characters.juk.derived.poisons.p0001.next_dose_at")
    for page in (gm, player, watch):
        await page.wait_for_function("window.vigil.state.clock.mode === 'paused'")
        expected = await page.evaluate(LEFT_JS, ["juk", until])
        dose = card(page, "juk").locator(".countdown.kind-poison_dose .countdown-time")
        await expect(dose).to_have_text(expected)

    # An unconscious character's rest rolls (HUR-08, every round out of combat).
    await gm.locator("#act-char").select_option("ama")
    await act(gm, "hursagmu.harm", stuns="12")
    rest = card(gm, "ama").locator(".countdown.kind-rest_roll")
    await expect(rest).to_be_visible()
    await expect(rest.locator(".countdown-word")).to_have_text(re.compile("Next rest roll in", re.IGNORECASE))
    rest_at = await gm.evaluate("window.vigil.state.characters.ama.derived.next_rest_at")
    await expect(rest.locator(".countdown-time")).to_have_text(await gm.evaluate(LEFT_JS, ["ama", rest_at]))
    await expect(card(watch, "ama").locator(".countdown.kind-rest_roll")).to_be_visible()
    PAGES.mkdir(parents=True, exist_ok=True)
    await gm.screenshot(path=str(PAGES / "dashboard-hursagmu-countdowns.png"), full_page=True)
    no_page_errors(gm, player, watch)


async def test_a_pending_fall_is_a_badge_and_its_answers_come_first(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """HUR-14: the GM declares a fall on Juk; every page shows the falling
    badge; Juk's player is offered break or take, first, and not its rest
    (the server refuses it: falling); the GM's page shows no trait roll
    for Juk either, until the fall is taken."""
    tokens = await new_table(
        vigil_server, "hursagmu", "ledge", {"juk": {"traits": {"constitution": 6, "athlete": 2}}, "ama": {}}
    )
    gm, player, watch = await three_pages(vigil_server, new_page, tokens)
    await gm.locator("#act-char").select_option("juk")
    await act(gm, "hursagmu.harm", stuns="2")
    await expect(player.locator("form[data-command='hursagmu.rest']")).to_have_count(1)
    await act(gm, "hursagmu.fall", spaces="6")
    for page in (gm, player, watch):
        badge = card(page, "juk").locator("[data-badge=falling]")
        await expect(badge).to_be_visible()
        await expect(badge).to_contain_text("Falling")
    forms = player.locator("#action-forms > form")
    await expect(forms).to_have_count(2)
    assert await forms.evaluate_all("(fs) => fs.map((f) => f.dataset.command)") == [
        "hursagmu.break_fall",
        "hursagmu.take_fall",
    ]
    rest = {"type": "hursagmu.rest", "char": "juk"}
    refusal = await ws_command(vigil_server, tokens["player"], rest, "ledge")
    assert refusal["type"] == "error" and refusal["code"] == "falling", refusal
    await expect(gm.locator("form[data-command='hursagmu.trait_roll']")).to_have_count(0)
    first = await gm.locator("#action-forms > form").first.get_attribute("data-command")
    assert first == "hursagmu.break_fall"

    await player.locator("form[data-command='hursagmu.take_fall'] button[type=submit]").click()
    for page in (gm, player, watch):
        await expect(card(page, "juk").locator("[data-badge=falling]")).to_have_count(0)
    await expect(player.locator("form[data-command='hursagmu.rest']")).to_have_count(1)
    await expect(gm.locator("form[data-command='hursagmu.trait_roll']")).to_have_count(1)
    no_page_errors(gm, player, watch)


async def test_a_dying_characters_stabilize_names_another_present_helper(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """MET-11 on the GM page: acting on dying Brannoc, the stabilize form's
    helpers are the present characters the server lists (Ysolde, who has a
    kit), never Brannoc."""
    gm_token = vigil_server.gm_token
    for body in (
        {"type": "mettle.kit_set", "char": "ysolde", "kit": "bandages", "uses": 2},
        {"type": "mettle.pain", "char": "brannoc", "amount": 7, "lot": "plain"},
    ):
        await ws_command(vigil_server, gm_token, body, "demo")
    gm = await new_page(1400, 1000)
    await open_live(gm, f"{vigil_server.url}/#token={gm_token}")
    await expect(card(gm, "brannoc").locator("[data-badge=dying]")).to_be_visible()
    await gm.locator("#act-char").select_option("brannoc")
    form = gm.locator("#action-forms form[data-command='mettle.stabilize']")
    await expect(form.locator("[name='char']")).to_have_value("brannoc")
    helpers = await form.locator("[name='helper'] option").evaluate_all(
        "(os) => os.map((o) => o.value).filter(Boolean)"
    )
    assert "brannoc" not in helpers and "ysolde" in helpers, helpers
    await form.locator("[name='helper']").select_option("ysolde")
    await expect(form.locator("[name='kit'] option[value='bandages']")).to_have_count(1)
    no_page_errors(gm)


async def test_an_answered_form_keeps_its_outcome_when_its_move_goes_after_a_redraw(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Juk's player rests off 3 stuns. The patch comes before the legal
    moves of the new state (the page asks for them once the table is
    quiet; here they are held back on the player's socket until the test
    lets them through), so the page first draws the rest form again from
    the new sheet while the old moves still offer it; then the new moves
    no longer offer a rest. The form answered stays, its button off, with
    its outcome under it — it used to vanish when it had been drawn again
    in between (the redrawn form forgot whom it acted for)."""
    tokens = await new_table(
        vigil_server, "hursagmu", "held", {"juk": {"traits": {"constitution": 6, "willpower": 3}}}
    )
    await ws_command(vigil_server, tokens["gm"], {"type": "hursagmu.harm", "char": "juk", "stuns": 3}, "held")
    player = await new_page(1100, 1000)
    held: list[str | bytes] = []
    asked = asyncio.Event()
    holding = False
    pages: list[Any] = []  # the page's end of its socket, to let the held ones through

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)

        def to_page(message: str | bytes) -> None:
            if holding and isinstance(message, str) and '"legal_moves"' in message:
                held.append(message)
                asked.set()
            else:
                ws.send(message)

        server.on_message(to_page)
        pages.append(ws)

    await player.route_web_socket(re.compile(r"/ws$"), route)
    await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
    form = player.locator("form[data-command='hursagmu.rest']")
    await expect(form).to_have_count(1)
    holding = True
    await form.locator("button[type=submit]").click()
    await expect(form).to_have_attribute("data-result", "ack")
    await expect(card(player, "juk").locator("[data-stat=stuns] .stat-value")).to_have_text("0")
    await expect(form.locator(".form-result .result-line").first).to_contain_text("Juk rests")
    await player.wait_for_function("document.body.dataset.legalRev !== document.body.dataset.rev")
    await asyncio.wait_for(asked.wait(), 15)  # the new state's legal moves, asked for and held back
    holding = False
    for message in held:
        pages[-1].send(message)
    await player.wait_for_function("document.body.dataset.legalRev === document.body.dataset.rev")
    await expect(form).to_have_count(1)
    await expect(form.locator("button[type=submit]")).to_be_disabled()
    await expect(form.locator(".form-result .result-line").first).to_contain_text("Juk rests")
    no_page_errors(player)
