"""The pages speak the table's language (issue 22), in real Chromium against
a real ``vigil serve``, walked through a scripted scene of each game:

- forms ask only what a person at the table knows: no label mentions
  seconds, no value shows more than two decimals, no bookkeeping the rules
  keep is asked (the catalogue's ``entry``), game times are clock times and
  spans are minutes, hours or days;
- the forms come in the catalogue's order of play: the main combat action
  of each game is among the first three;
- the GM page (1,440 × 900) and the player page (390 × 844) never scroll
  sideways, in every state the scene reaches (``scrollWidth`` equals
  ``clientWidth``), and the phone's buttons are tap-sized.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Page, expect
from tests.browser.test_dashboard import PAGES, act, drawn_with_moves, open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

# Each game's characters and the commands of its scene: after each step,
# the pages are checked as they are.
SCENES: dict[str, tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]] = {
    "mettle": (
        {"ysolde": {"mettle": 5, "kits": {"bandages": 2}}, "brannoc": {"mettle": 3}},
        [
            {"type": "mettle.pain", "char": "ysolde", "amount": 3, "lot": "plain"},
            {"type": "mettle.rattle", "char": "ysolde", "amount": 2},
            {"type": "mettle.injury_add", "char": "ysolde", "label": "Cut arm", "penalty": 1},
            {"type": "mettle.pain", "char": "brannoc", "amount": 9, "lot": "plain"},
            {"type": "clock.set", "to": 86_526.88144803047},
            {"type": "mettle.rest_start", "char": "ysolde"},
        ],
    ),
    "dryh": (
        {"alice": {"discipline": 3}, "bob": {"discipline": 2}},
        [
            {"type": "dryh.open", "char": "alice", "pain": 4},
            {"type": "dryh.declare", "char": "alice", "madness": 1, "exhaustion_up": True},
            {"type": "dryh.help", "char": "alice", "helper": "bob"},
            {"type": "dryh.roll", "char": "alice"},
        ],
    ),
    "hursagmu": (
        {"uruk": {"traits": {"constitution": 2, "athlete": 1}}, "juk": {}},
        [
            {"type": "hursagmu.harm", "char": "uruk", "stuns": 2, "wounds": 1},
            {"type": "hursagmu.poison", "char": "juk", "damage": 1, "interval": 600, "duration": 3600},
            {
                "type": "hursagmu.trait_roll",
                "char": "uruk",
                "trait": "athlete",
                "target": 8,
                "kind": "physical",
            },
            {"type": "clock.set", "to": 90_000.5},
            {"type": "hursagmu.fall", "char": "uruk", "spaces": 3},
        ],
    ),
}
MAIN_ACTION = {"mettle": "mettle.pain", "dryh": "dryh.open", "hursagmu": "hursagmu.damage"}

# What a person reads in the forms of a page: every label and legend, and
# every value typed or chosen (the selected option's text).
FORM_WORDS_JS = """() => {
  const forms = [...document.querySelectorAll('form.vigil-form')];
  const labels = forms.flatMap((f) => [...f.querySelectorAll('label, legend')].map((l) => l.textContent));
  const values = forms.flatMap((f) => [...f.querySelectorAll('input:not([type=checkbox]):not([type=file])')]
    .map((i) => i.value));
  const selected = forms.flatMap((f) => [...f.querySelectorAll('select')]
    .map((s) => s.selectedOptions[0]?.textContent ?? ''));
  return { labels, values: [...values, ...selected] };
}"""

FIT_JS = """() => {
  const client = document.documentElement.clientWidth;
  // The innermost elements that reach past the window's right edge, to name the culprit.
  const wide = [...document.body.querySelectorAll('*')]
    .filter((el) => el.getBoundingClientRect().right > client + 0.5 && el.offsetParent !== null)
    .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right > client + 0.5))
    .slice(0, 5)
    .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
  return { scroll: document.documentElement.scrollWidth, client, wide };
}"""

# Buttons and form controls the phone shows, narrower or lower than a
# finger's 44 px (WCAG 2.5.5); hidden ones and inline links are not asked.
SMALL_TAPS_JS = """() => [...document.querySelectorAll(
    'button, select, input:not([type=checkbox]):not([type=radio])')]
  .filter((el) => el.offsetParent !== null)
  .map((el) => [el.id || el.name || el.textContent.trim().slice(0, 30), el.getBoundingClientRect()])
  .filter(([, r]) => r.width > 0 && (r.height < 44 || r.width < 44))
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""

TWO_DECIMALS = re.compile(r"\d\.\d{3,}")


async def check_words(page: Page, where: str, *, forms: bool = True) -> None:
    """No label speaks of seconds; no value shows more than two decimals.
    ``forms``: the page must show some (a player may have no move legal
    now: nothing is offered then)."""
    seen = await page.evaluate(FORM_WORDS_JS)
    assert seen["labels"] or not forms, where
    seconds = [label for label in seen["labels"] if re.search(r"second", label, re.I)]
    assert seconds == [], (where, seconds)
    long = [v for v in seen["values"] if TWO_DECIMALS.search(v)]
    assert long == [], (where, long)


async def check_fit(page: Page, where: str, widths: dict[str, tuple[int, int]]) -> None:
    fit = await page.evaluate(FIT_JS)
    widths[where] = (fit["scroll"], fit["client"])
    if fit["scroll"] != fit["client"]:
        await page.screenshot(path=str(PAGES / "unfit.png"), full_page=True)
    assert fit["scroll"] == fit["client"], (where, fit)


async def test_forms_speak_the_tables_language_and_pages_fit_in_every_state(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """For each game, a scripted scene; after each step the GM page
    (1,440 × 900, every character selected in turn) and the player page
    (390 × 844) are read, and each page at the other size too: no label
    mentions seconds, no value has more than two decimals, no page scrolls
    sideways, the phones' controls are tap-sized. The forms come in the
    order of play."""
    widths: dict[str, tuple[int, int]] = {}
    for system, (chars, steps) in SCENES.items():
        table = f"lang-{system}"
        tokens = await new_table(vigil_server, system, table, chars)
        gm = await new_page(1440, 900)
        phone = await new_page(390, 844)
        # The other two: the GM on a phone, the player on a wide screen.
        gm_phone = await new_page(390, 844)
        player_wide = await new_page(1440, 900)
        await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
        await open_live(phone, f"{vigil_server.url}/#token={tokens['player']}")
        await open_live(gm_phone, f"{vigil_server.url}/#token={tokens['gm']}")
        await open_live(player_wide, f"{vigil_server.url}/#token={tokens['player']}")

        # The order of play: the game's main combat action comes first.
        order = await gm.evaluate(
            """(system) => import('/client/core/offers.js').then(({ characterOffers }) =>
                import('/client/core/catalogue.js').then(({ CATALOGUE }) =>
                  characterOffers(CATALOGUE, window.vigil.state,
                    Object.keys(window.vigil.state.characters)[0], { role: 'gm' })
                  .map((o) => o.entry.type)))""",
            system,
        )
        assert MAIN_ACTION[system] in order[:3], (system, order[:5])
        forms = await gm.locator("#action-forms form").evaluate_all(
            "(fs) => fs.map((f) => f.dataset.command)"
        )
        if system == "dryh":
            # DRYH's conflict roll has its own panel, above the forms.
            await expect(gm.locator("#dryh-panel")).to_be_visible()
        else:
            assert MAIN_ACTION[system] in forms[:3], (system, forms[:5])

        for n, body in enumerate([None, *steps]):
            if body is not None:
                reply = await ws_command(vigil_server, tokens["gm"], body, table)
                assert reply["type"] == "ack", (body, reply)
                rev = await gm.evaluate("window.vigil.rev")
                for page in (gm, phone, gm_phone, player_wide):
                    await page.wait_for_function("(r) => window.vigil.rev >= r", arg=rev)
            for char in chars:
                await gm.locator("#act-char").select_option(char)
                where = f"{system} step {n} GM on {char}"
                await check_words(gm, where)
                await check_fit(gm, where, widths)
            await check_words(phone, f"{system} step {n} player", forms=False)
            await check_fit(phone, f"{system} step {n} player", widths)
            await check_fit(gm_phone, f"{system} step {n} GM phone", widths)
            await check_fit(player_wide, f"{system} step {n} player wide", widths)
            for page in (phone, gm_phone):
                small = await page.evaluate(SMALL_TAPS_JS)
                assert small == [], (system, n, small)
        if system == "mettle":
            # A resting character's next rest hour is benign: drawn calm, not in the Dying red.
            rest = gm.locator("[data-char='ysolde'] .countdown.kind-rest_hour")
            await expect(rest).to_have_class(re.compile(r"\bcalm\b"))
            colour = await rest.locator(".countdown-word").evaluate("(el) => getComputedStyle(el).color")
            assert colour != "rgb(255, 107, 107)", colour  # vigil.css --danger
        await gm.screenshot(path=str(PAGES / f"language-{system}-gm.png"), full_page=True)
        await phone.screenshot(path=str(PAGES / f"language-{system}-phone.png"), full_page=True)
        await gm_phone.screenshot(path=str(PAGES / f"language-{system}-gm-phone.png"), full_page=True)
        no_page_errors(gm, phone, gm_phone, player_wide)
    print("scrollWidth/clientWidth per state:", widths)


async def test_a_new_character_is_asked_only_what_a_person_knows(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """Adding a Pain & Mettle character asks its name once and no bookkeeping
    (no "Departs at", no "Next injury number"); its id is made from the
    name (and may still be edited); the character's details are then edited
    from their current values; a poison's span is asked in minutes, hours or
    days, and a clock time as a day and a time of day."""
    tokens = await new_table(vigil_server, "mettle", "newchar", {"ysolde": {"mettle": 5}})
    gm = await new_page(1440, 900)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    create = gm.locator("#table-forms form[data-command='character.create']")
    labels = await create.locator("label, legend").all_text_contents()
    assert sum(1 for label in labels if label.strip() == "Name") == 1, labels
    kept = await gm.evaluate(
        """() => import('/client/core/catalogue.js').then(({ CATALOGUE }) =>
            CATALOGUE.games.mettle.sheet.filter((f) => f.entry === 'rules').map((f) => f.name))"""
    )
    assert {"departs_at", "next_injury", "busy_until", "rattle_set_at", "name"} <= set(kept)
    for name in kept:
        await expect(create.locator(f"[data-field='sheet.{name}']")).to_have_count(0)
    await create.locator("[name='name']").fill("Juk the Tall")
    await expect(create.locator("[name='id']")).to_have_value("juk-the-tall")
    await expect(create.locator("[data-field='id'] .vigil-hint")).to_contain_text("cannot change later")
    await create.locator("[name='sheet.mettle']").fill("4")
    await create.locator("button[type=submit]").click()
    await gm.wait_for_function("window.vigil.state.characters['juk-the-tall']?.name === 'Juk the Tall'")
    await drawn_with_moves(gm)  # the forms are drawn again with the new character's moves

    await gm.locator("#act-char").select_option("juk-the-tall")
    meta = gm.locator("form[data-command='character.meta']")
    await expect(meta.locator("[name='name']")).to_have_value("Juk the Tall")
    await expect(meta.locator("[name='visibility']")).to_have_value("full")
    await act(gm, "character.meta", name="Juk")
    await gm.wait_for_function("window.vigil.state.characters['juk-the-tall'].name === 'Juk'")
    await drawn_with_moves(gm)

    # Correct a value: the current value and this table's allowed range.
    correct = gm.locator("#table-forms form[data-command='correct']")
    await correct.locator("[name='char']").select_option("juk-the-tall")
    await correct.locator("[name='field']").select_option("mettle")
    await expect(correct.locator("[name='value']")).to_have_value("4")
    await expect(correct.locator(".vigil-correct-value .vigil-hint")).to_have_text("From 1 to 1000")
    no_page_errors(gm)


async def test_game_times_and_spans_in_the_tables_units(vigil_server: ServerProcess, new_page: Any) -> None:
    """Hursagmu's poison asks "Every" and "For" in minutes, hours or days
    and the server gets seconds; a game time is a day and a time of day."""
    tokens = await new_table(vigil_server, "hursagmu", "spans", {"juk": {}})
    gm = await new_page(1440, 900)
    await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
    await gm.locator("#act-char").select_option("juk")
    poison = gm.locator("form[data-command='hursagmu.poison']")
    await poison.locator("[name='damage']").fill("1")
    await poison.locator("[name='interval.amount']").fill("10")
    await poison.locator("[name='interval.unit']").select_option("minutes")
    await poison.locator("[name='duration.amount']").fill("2")
    await poison.locator("[name='duration.unit']").select_option("hours")
    await poison.locator("button[type=submit]").click()
    await gm.wait_for_function("Object.keys(window.vigil.state.characters.juk.sheet.poisons).length === 1")
    dose = await gm.evaluate("Object.values(window.vigil.state.characters.juk.sheet.poisons)[0]")
    assert (dose["interval"], dose["doses"]) == (600, 12), dose

    parts = await gm.evaluate(
        """() => import('/client/core/forms.js').then((f) => [f.clockParts(86526.88),
            f.clockSeconds(2, '07:30'), f.spanParts(5400), f.spanParts(86400)])"""
    )
    assert parts == [
        {"day": 2, "time": "00:02"},
        86400 + 7 * 3600 + 30 * 60,
        {"amount": 1.5, "unit": "hours"},
        {"amount": 1, "unit": "days"},
    ]
    no_page_errors(gm)


async def test_a_stream_over_video_puts_its_words_on_a_plate(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    """On a transparent layout (OBS over video) the title, the clock and the
    DRYH coins sit on an opaque plate in white, and the clock is larger
    than the labels (36 px)."""
    tokens = await new_table(vigil_server, "dryh", "plate", {"alice": {"discipline": 3}})
    watch = await new_page(1920, 1080)
    await open_live(watch, f"{vigil_server.url}/watch#token={tokens['spectator']}&layout=overlay")
    for selector in ("#watch-title", "#watch-now", "#watch-coins"):
        style = await watch.locator(selector).evaluate(
            "(el) => { const s = getComputedStyle(el); return [s.backgroundColor, s.color, s.fontSize]; }"
        )
        background, colour, size = style
        assert background not in ("rgba(0, 0, 0, 0)", "transparent"), (selector, style)
        if selector == "#watch-now":
            assert colour == "rgb(255, 255, 255)" and float(size.removesuffix("px")) >= 36, style
    await watch.screenshot(path=str(PAGES / "watch-overlay-plate.png"))
    no_page_errors(watch)
