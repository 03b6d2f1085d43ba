"""The rules reference as web pages this server serves (``/rules/<game>``),
so that an outcome's explanation links to the rule that decided it
(``/rules/mettle#MET-01``). The text is ``docs/rules/``'s, made from the
code by :mod:`vigil.rules_doc`: the pages cannot drift from the rules.

Only what the reference uses is turned into HTML (headings, paragraphs,
tables kept as preformatted text, inline code and links as their text);
every character of it is escaped, and a rule's heading gets its rule id as
the anchor.

A page is also served in a language of the Foundry module's language files
(``?lang=de``; the pages' links to a rule carry the reader's language): the
rule texts stay English (they are the games' own words, and the reference
is made from the code), but what a GM reads to choose a table's options is
worded by the same files the pages read (``VIGIL.Option.*`` for what each
option does, ``VIGIL.Field.*`` for its name, ``VIGIL.Rules.*`` for the page's
own words). So the page says, in the reader's language, that the rule texts
are English, and marks them ``lang="en"`` for screen readers and
translation tools. The server renders it (not the browser) because the page
is static text with anchors that must work without a script.
"""

from __future__ import annotations

import functools
import html
import json
import re

from vigil import resources, rules_doc
from vigil.rules.games import GAMES
from vigil.table_commands import TableSettings

_RULE_HEADING = re.compile(r"^(#{1,4}) (([A-Z]+-\d+) .*|.*)$")
_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/vigil.css"></head>
<body class="rules-page"><main class="panel rules-text">
{body}
</main></body></html>
"""


# The headings of the options sections the English text has: a translated
# page puts its own section in their place.
_OPTIONS_HEADINGS = {"Table options": "table-options", "Options of every table": "options-of-every-table"}


@functools.cache
def languages() -> frozenset[str]:
    """The languages the pages are offered in (the module's manifest)."""
    manifest = resources.foundry_file("module.json")
    if manifest is None:
        return frozenset({"en"})
    return frozenset(str(entry["lang"]) for entry in json.loads(manifest.read_text("utf-8"))["languages"])


@functools.cache
def _words(lang: str) -> dict[str, str]:
    """The language file of ``lang`` (English for a key it lacks)."""
    words: dict[str, str] = {}
    for code in dict.fromkeys(("en", lang)):
        file = resources.foundry_file(f"lang/{code}.json")
        if file is not None:
            words |= json.loads(file.read_text("utf-8"))
    return words


def _options_section(name: str, words: dict[str, str], anchor: str) -> str:
    """The options of page ``name`` ("" for the index: the options every
    table has) in the reader's language: each option's name and what it
    does, as the dashboard's options form words them."""
    if name:
        rows = rules_doc.option_docs(GAMES[name].options_type)
    else:
        common = set(rules_doc.common_options())
        first = next(iter(GAMES.values())).options_type
        rows = [r for r in rules_doc.option_docs(first) if r.name in common]
        rows += rules_doc.option_docs(TableSettings)
    cells = []
    for row in rows:
        label = words.get(f"VIGIL.Field.{row.name.rsplit('.', 1)[-1]}", row.name)
        about = words.get(rules_doc.option_help_key(name, row.name), row.description)
        cls = ' class="sub-option"' if "." in row.name else ""
        cells.append(f"<tr{cls}><td>{html.escape(label)}</td><td>{html.escape(about)}</td></tr>")
    return (
        f'<section id="{anchor}"><h2>{html.escape(words["VIGIL.Rules.options"])}</h2>'
        f"<p>{html.escape(words['VIGIL.Rules.optionsWhere'])}</p>"
        f"<table><thead><tr><th>{html.escape(words['VIGIL.Rules.option'])}</th>"
        f"<th>{html.escape(words['VIGIL.Rules.does'])}</th></tr></thead>"
        f"<tbody>{''.join(cells)}</tbody></table></section>"
    )


def page_names() -> list[str]:
    """The pages served: "" for the index, then each game's name."""
    return ["", *(name.removesuffix(".md") for name in rules_doc.contents() if name != rules_doc.INDEX)]


def render(name: str, lang: str = "en") -> str | None:
    """The HTML of page ``name`` ("" for the index, else a game) in
    ``lang`` (English for a language the pages are not offered in), or None."""
    return _render(name, lang if lang in languages() else "en")


@functools.cache
def _render(name: str, lang: str) -> str | None:
    file = rules_doc.INDEX if name == "" else f"{name}.md"
    text = rules_doc.contents().get(file)
    if text is None:
        return None
    translated = lang != "en"
    words = _words(lang)
    body: list[str] = []
    title = "Vigil rules"
    block: list[str] = []
    skipping = False

    def flush() -> None:
        if not block:
            return
        if all(line.startswith("|") for line in block):
            body.append("<pre>" + html.escape("\n".join(block)) + "</pre>")
        else:
            body.append("<p>" + html.escape(" ".join(block)) + "</p>")
        block.clear()

    for line in text.splitlines():
        if line.startswith("<!--"):
            continue
        heading = _RULE_HEADING.match(line) if line.startswith("#") else None
        if heading and translated and len(heading.group(1)) <= 2:
            flush()
            skipping = heading.group(2) in _OPTIONS_HEADINGS
            if skipping:
                body.append(_OPTIONS_HEADINGS[heading.group(2)])
                continue
        if skipping:
            continue
        if heading:
            flush()
            level = len(heading.group(1))
            rule = heading.group(3)
            anchor = f' id="{html.escape(rule)}"' if rule else ""
            if level == 1:
                title = heading.group(2)
            body.append(f"<h{level}{anchor}>{html.escape(heading.group(2))}</h{level}>")
        elif line.strip():
            block.append(line)
        else:
            flush()
    flush()
    if not translated:
        return _PAGE.format(lang="en", title=html.escape(title), body="\n".join(body))
    # The English text in parts marked as English, the options sections
    # (their anchors stand in the body) in the reader's language.
    parts = [f'<p class="rules-language">{html.escape(words["VIGIL.Rules.inEnglish"])}</p>']
    english: list[str] = []
    for item in [*body, None]:
        if item is None or item in _OPTIONS_HEADINGS.values():
            if english:
                parts.append('<div lang="en">\n' + "\n".join(english) + "\n</div>")
                english = []
            if item is not None:
                parts.append(_options_section(name, words, item))
        else:
            english.append(item)
    game = words.get(f"VIGIL.Game.{name}", name)
    title = words["VIGIL.Rules.title"].replace("{game}", game) if name else words["VIGIL.Rules.indexTitle"]
    return _PAGE.format(lang=lang, title=html.escape(title), body="\n".join(parts))
