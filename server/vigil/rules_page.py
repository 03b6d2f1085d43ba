"""The rules reference as web pages this server serves (``/rules/<game>``),
so that an outcome's explanation links to the rule that decided it
(``/rules/mettle#MET-01``). The text is ``docs/rules/``'s, made from the
code by :mod:`vigil.rules_doc`: the pages cannot drift from the rules.

Only what the reference uses is turned into HTML (headings, paragraphs,
tables kept as preformatted text, inline code and links as their text);
every character of it is escaped, and a rule's heading gets its rule id as
the anchor.
"""

from __future__ import annotations

import functools
import html
import re

from vigil import rules_doc

_RULE_HEADING = re.compile(r"^(#{1,4}) (([A-Z]+-\d+) .*|.*)$")
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/vigil.css"></head>
<body class="rules-page"><main class="panel rules-text">
{body}
</main></body></html>
"""


def page_names() -> list[str]:
    """The pages served: "" for the index, then each game's name."""
    return ["", *(name.removesuffix(".md") for name in rules_doc.contents() if name != rules_doc.INDEX)]


@functools.cache
def render(name: str) -> str | None:
    """The HTML of page ``name`` ("" for the index, else a game), or None."""
    file = rules_doc.INDEX if name == "" else f"{name}.md"
    text = rules_doc.contents().get(file)
    if text is None:
        return None
    body: list[str] = []
    title = "Vigil rules"
    block: list[str] = []

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
    return _PAGE.format(title=html.escape(title), body="\n".join(body))
