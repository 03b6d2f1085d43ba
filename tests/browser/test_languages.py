"""The pages in the players' own language (issue 27), in real Chromium
against a real ``vigil serve``.

For each game a scene is played (test_table_language's: harm, a poison, a
roll and its outcome, a rest, a fall), then the GM's page, a player's page
and the stream page are read in German and in Russian: the GM and the
player by their browser's language (a Playwright context with
``locale="de-DE"``), the stream by its link's ``lang=`` in a browser that
prefers English (a stream speaks its streamer's language).

How "English" is told from the page's language: the English words are
the words of ``lang/en.json``'s values that occur in none of the target
language file's values (so "Vigil", "Live" or "Mad City", which German
writes too, are not English there). What a person reads is collected:
``document.body.innerText``, the title, and the ``title``, ``aria-label``
and ``placeholder`` of every element shown. Proper names are taken out
first (the allow-list: the characters, tables and labels the scene typed,
the games' names, Vigil); any English word left is a finding. A
``{placeholder}`` left unfilled is one too.

Also: the language picker's choice is remembered across a reload, and a
stream link's ``lang=`` overrides the viewer browser's language; a spectator
link minted on a German GM page carries ``lang=de``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, expect
from tests.browser.conftest import watched_page
from tests.browser.test_dashboard import PAGES, open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.browser.test_table_language import SCENES
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

LANG = Path(__file__).resolve().parents[2] / "foundry-module" / "lang"
WORD = re.compile(r"\w+(?:['’]\w+)?")


def words_of(text: str) -> list[str]:
    """The words of ``text``: runs of letters (an apostrophe inside), not
    the letters of a number or a hash ("3f2be91a" holds no word "be")."""
    return [w for w in WORD.findall(text) if w.replace("'", "").replace("’", "").isalpha()]


# Proper names a page may show in any language: the games' names (as
# SOURCES.md keeps them), the program's, a language's own name, and what the scenes type in
# (characters get their id as a title-cased name; tables likewise; the
# player link's label; an injury's label).
NAMES = [
    "Don't Rest Your Head",
    "Pain & Mettle",
    "Hursagmu",
    "Vigil",
    "SHA-256",
    # The language picker names each language in itself ("English", "Deutsch").
    "English",
    "Pat",
    "Cut arm",
]

# The stream page's layouts (watch.js LAYOUTS).
LAYOUTS = ["compact", "overlay", "lower-third", "corner", "character", "roll"]
SWITCH_LAYOUT_JS = "(layout) => { location.hash = `layout=${layout}&lang=${document.documentElement.lang}`; }"


def language_words(code: str) -> set[str]:
    text = " ".join(json.loads((LANG / f"{code}.json").read_text(encoding="utf-8")).values())
    return {w.lower() for w in words_of(re.sub(r"\{[A-Za-z0-9_.]+\}", " ", text))}


def english_words(code: str) -> set[str]:
    """The words of en.json that the language ``code`` does not also use."""
    return {w for w in language_words("en") - language_words(code) if len(w) > 1}


# Everything a person reads on the page: its text, its title, and the
# title/aria-label/placeholder of every element drawn.
READ_JS = """() => {
  const shown = [...document.querySelectorAll('[title], [aria-label], [placeholder]')]
    .filter((el) => el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null);
  const attrs = shown.flatMap((el) => ['title', 'aria-label', 'placeholder']
    .map((a) => el.getAttribute(a)).filter(Boolean));
  return [document.title, document.body.innerText, ...attrs].join('\\n');
}"""

# Where a word is drawn: the start of the innermost element holding it
# (in its text or its attributes).
WHERE_JS = """(word) => {
  const re = new RegExp(`\\\\b${word}\\\\b`);
  const hit = [...document.querySelectorAll('body *')].reverse().find((el) =>
    [...el.childNodes].some((n) => n.nodeType === 3 && re.test(n.textContent))
    || ['title', 'aria-label', 'placeholder'].some((a) => re.test(el.getAttribute(a) ?? '')));
  return hit ? hit.outerHTML.slice(0, 160) : re.test(document.title) ? `title: ${document.title}` : '';
}"""


def english_around(text: str, code: str, names: list[str], where: str) -> dict[str, Any]:
    """``where``'s finding: each English word in ``text`` (a page in
    ``code``) with the text around it; nothing when there is none."""
    found = english_in(text, english_words(code), names)
    return {where: {w: around(text, w) for w in found}} if found else {}


def english_in(text: str, english: set[str], names: list[str]) -> list[str]:
    """The English words in ``text`` once the ``names`` are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text, flags=re.IGNORECASE)
    return sorted({w for w in words_of(text) if w.lower() in english})


def around(text: str, word: str) -> str:
    """The text around ``word``'s first place (one drawn by CSS, such as a
    capitalised status word, has no element holding it as written)."""
    at = re.search(rf"\b{re.escape(word)}\b", text)
    return text[max(0, at.start() - 60) : at.end() + 60] if at else ""


async def open_in(browser: Browser, locale: str, url: str, width: int = 1440, height: int = 900) -> Page:
    """A page in a browser whose language is ``locale``, live at ``url``."""
    context = await browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = await watched_page(context)
    await open_live(page, url)
    return page


async def read_words(page: Page, code: str, where: str, names: list[str], findings: dict[str, Any]) -> None:
    """Note in ``findings`` the English words and blanks ``page`` shows, each
    with the element it stands in (to name the culprit)."""
    await expect(page.locator(f"html[lang={code}]")).to_have_count(1)
    text = await page.evaluate(READ_JS)
    found = english_in(text, english_words(code), names)
    blanks = re.findall(r"\{[A-Za-z0-9_.]+\}", text)
    if found or blanks:
        await page.screenshot(path=str(PAGES / f"languages-{where.replace(' ', '-')}.png"), full_page=True)
        findings[where] = {w: await page.evaluate(WHERE_JS, w) or around(text, w) for w in found} | {
            "blanks": blanks
        }


async def test_gm_player_and_stream_pages_show_no_english_in_german_and_russian(
    vigil_server: ServerProcess, chromium_browser: Browser
) -> None:
    """For each game, after its scene, the GM's, a player's and the stream
    page in German and in Russian: no English word outside the names, no
    blank left in a sentence."""
    PAGES.mkdir(parents=True, exist_ok=True)
    findings: dict[str, Any] = {}
    for system, (chars, steps) in SCENES.items():
        table = f"words-{system}"
        tokens = await new_table(vigil_server, system, table, chars)
        for body in steps:
            reply = await ws_command(vigil_server, tokens["gm"], body, table)
            assert reply["type"] == "ack", (body, reply)
        names = [*NAMES, table.title(), *(c.title() for c in chars)]
        for code, locale in (("de", "de-DE"), ("ru", "ru-RU")):
            gm = await open_in(chromium_browser, locale, f"{vigil_server.url}/#token={tokens['gm']}")
            player = await open_in(chromium_browser, locale, f"{vigil_server.url}/#token={tokens['player']}")
            stream = await open_in(
                chromium_browser, "en-US", f"{vigil_server.url}/watch#token={tokens['spectator']}&lang={code}"
            )
            await read_words(gm, code, f"{system} {code} GM", names, findings)
            await read_words(player, code, f"{system} {code} player", names, findings)
            await read_words(stream, code, f"{system} {code} stream", names, findings)
            # Every stream layout (the page follows its fragment without a reload).
            for layout in LAYOUTS:
                await stream.evaluate(SWITCH_LAYOUT_JS, layout)
                await expect(stream.locator(f"body[data-layout='{layout}']")).to_have_count(1)
                await read_words(stream, code, f"{system} {code} stream {layout}", names, findings)
            await gm.screenshot(path=str(PAGES / f"languages-{system}-{code}-gm.png"), full_page=True)
            no_page_errors(gm, player, stream)
            for page in (gm, player, stream):
                await page.context.close()
    print(json.dumps(findings, ensure_ascii=False, indent=1))
    assert findings == {}


async def test_the_picked_language_is_remembered_and_a_stream_link_keeps_its_own(
    vigil_server: ServerProcess, chromium_browser: Browser
) -> None:
    """A GM in an English browser picks Deutsch: the page reloads in German
    and stays German after another reload; the spectator link it mints says
    ``lang=de``; that link opened in a Russian browser is German (and
    Russian once its ``lang=`` says so), and with ``lang=ru`` in a German
    browser Russian; a player's ``de-AT`` browser reads German."""
    tokens = await new_table(vigil_server, "mettle", "picker", {"ysolde": {"mettle": 5}})
    gm = await open_in(chromium_browser, "en-US", f"{vigil_server.url}/#token={tokens['gm']}")
    await expect(gm.locator("html[lang=en]")).to_have_count(1)
    picker = gm.locator("#lang-picker")
    assert await picker.locator("option").all_text_contents() == ["English", "Deutsch", "Français", "Русский"]
    await picker.select_option("de")
    await expect(gm.locator("html[lang=de]")).to_have_count(1)
    await expect(gm.locator("#history-title")).to_have_text("Verlauf")
    await gm.reload()
    await expect(gm.locator("#conn")).to_have_attribute("data-status", "connected")
    await expect(gm.locator("html[lang=de]")).to_have_count(1)
    await expect(gm.locator("#lang-picker")).to_have_value("de")

    await gm.locator("#invite-spectator").click()
    link = await gm.locator("#invite-out .link-field").first.input_value()
    assert "lang=de" in link and "/watch#" in link, link

    stream = await open_in(chromium_browser, "ru-RU", link)
    await expect(stream.locator("html[lang=de]")).to_have_count(1)
    await expect(stream.locator("#watch-conn-text")).to_have_text("Live")
    # A stream deck switching the link's language: the page follows.
    await stream.evaluate("location.hash = location.hash.replace('lang=de', 'lang=ru')")
    await expect(stream.locator("html[lang=ru]")).to_have_count(1)
    await expect(stream.locator("#watch-conn-text")).to_have_text("В эфире")
    russian = await open_in(
        chromium_browser, "de-DE", f"{vigil_server.url}/watch#token={tokens['spectator']}&lang=ru"
    )
    await expect(russian.locator("html[lang=ru]")).to_have_count(1)
    await expect(russian.locator("#watch-conn-text")).to_have_text("В эфире")
    # The browser's own language when nothing else is said: de-AT reads German.
    austrian = await open_in(chromium_browser, "de-AT", f"{vigil_server.url}/#token={tokens['player']}")
    await expect(austrian.locator("html[lang=de]")).to_have_count(1)
    no_page_errors(gm, stream, russian, austrian)


# What a person reads in the table options form: its text, the choices of
# its lists, and the title/aria-label/placeholder of its controls.
READ_FORM_JS = """(form) => [form.innerText,
  ...[...form.querySelectorAll('option')].map((o) => o.textContent),
  ...[...form.querySelectorAll('[title], [aria-label], [placeholder]')].flatMap((el) =>
    ['title', 'aria-label', 'placeholder'].map((a) => el.getAttribute(a)).filter(Boolean))].join('\\n')"""

# What the rules page says in the reader's language: all but the rule texts
# (the parts marked lang="en"), and its title.
READ_RULES_JS = """() => [document.title,
  ...[...document.querySelectorAll('main > :not([lang=en])')].map((el) => el.innerText)].join('\\n')"""


async def test_the_options_form_and_the_rules_page_show_no_english_in_german_and_russian(
    vigil_server: ServerProcess, chromium_browser: Browser
) -> None:
    """For each game, the GM's table options form (each option's name and,
    under it, what it does) and the rules page its rule links open
    (``/rules/<game>?lang=``: the options worded, the rule texts English
    and said to be) in German and in Russian: no English word outside the
    names and the rule texts, and every option's description shown."""
    findings: dict[str, Any] = {}
    for system, (chars, _) in SCENES.items():
        table = f"options-{system}"
        tokens = await new_table(vigil_server, system, table, chars)
        names = [*NAMES, table.title(), *(c.title() for c in chars)]
        for code, locale in (("de", "de-DE"), ("ru", "ru-RU")):
            words = json.loads((LANG / f"{code}.json").read_text(encoding="utf-8"))
            abouts = [words[key] for key in words if key.startswith(f"VIGIL.Option.{system}.")]
            gm = await open_in(chromium_browser, locale, f"{vigil_server.url}/#token={tokens['gm']}")
            form = gm.locator("#table-forms form[data-command='table.options']")
            for about in abouts:
                await expect(form.locator(".vigil-about", has_text=about)).to_have_count(1)
            text = await form.evaluate(READ_FORM_JS)
            findings |= english_around(text, code, names, f"{system} {code} options form")
            rules = await gm.context.new_page()
            await rules.goto(f"{vigil_server.url}/rules/{system}?lang={code}")
            await expect(rules.locator(f"html[lang={code}]")).to_have_count(1)
            await expect(rules.locator("main > [lang=en] h3[id]").first).to_be_attached()
            for about in abouts:
                await expect(rules.locator("#table-options td", has_text=about)).to_have_count(1)
            text = await rules.evaluate(READ_RULES_JS)
            findings |= english_around(text, code, names, f"{system} {code} rules page")
            no_page_errors(gm)
            await gm.context.close()
    print(json.dumps(findings, ensure_ascii=False, indent=1))
    assert findings == {}


def test_english_words_leave_out_what_the_language_also_writes() -> None:
    """The word list the checks use: English words German does not write
    (the table is a "Tisch"), and none German writes too ("Vigil")."""
    english = english_words("de")
    assert {"table", "history", "dying"} <= english
    assert "vigil" not in english
    assert (
        english_in("Verlauf: Ysolde ist sterbend, Pain & Mettle", english, ["Ysolde", "Pain & Mettle"]) == []
    )
    assert english_in("Verlauf: Ysolde is dying", english, ["Ysolde"]) == ["dying", "is"]
    assert english_in("Würfel 3f2be91a, Tag 2", english, []) == []


async def test_the_sign_in_verify_and_operator_pages_show_no_english_in_german_and_russian(
    vigil_server: ServerProcess, chromium_browser: Browser
) -> None:
    """The sign-in page (no link yet), the dice check of a table with a
    roll and the operator's list of tables, in German and in Russian
    browsers: no English word outside the names."""
    chars, steps = SCENES["hursagmu"]
    tokens = await new_table(vigil_server, "hursagmu", "verify-words", chars)
    roll = next(body for body in steps if body["type"] == "hursagmu.trait_roll")
    assert (await ws_command(vigil_server, tokens["gm"], roll, "verify-words"))["type"] == "ack"
    names = [*NAMES, "Verify-Words", *(c.title() for c in chars)]
    findings: dict[str, Any] = {}
    for code, locale in (("de", "de-DE"), ("ru", "ru-RU")):
        context = await chromium_browser.new_context(viewport={"width": 1440, "height": 900}, locale=locale)
        login = await watched_page(context)
        await login.goto(f"{vigil_server.url}/")
        await expect(login.locator("#login")).to_be_visible()
        await read_words(login, code, f"sign-in {code}", names, findings)
        verify = await watched_page(context)
        await verify.goto(f"{vigil_server.url}/verify#token={tokens['player']}")
        await expect(verify.locator("body[data-verify=done]")).to_have_count(1)
        await read_words(verify, code, f"verify {code}", names, findings)
        # The demo table the server starts with is named in English: a name.
        operator = await watched_page(context)
        await open_live(operator, f"{vigil_server.url}/#token={vigil_server.operator_token}")
        await read_words(operator, code, f"operator {code}", [*names, "Demo table"], findings)
        # The operator's GM link: its token is listed on the GM page by the
        # role's word in the reader's language, not by an English label.
        words = json.loads((LANG / f"{code}.json").read_text(encoding="utf-8"))
        gm_link = words["VIGIL.Page.gmLinkOf"].replace("{name}", "Verify-Words")
        await operator.get_by_role("button", name=gm_link, exact=True).click()
        link = await operator.locator("#tables-body .link-field").first.input_value()
        gm = await watched_page(context)
        await open_live(gm, link)
        role = words["VIGIL.Page.role.gm"]
        await expect(gm.locator("#tokens-body tr td:first-child").filter(has_text=role)).not_to_have_count(0)
        no_page_errors(login, verify, operator, gm)
        await context.close()
    assert findings == {}
