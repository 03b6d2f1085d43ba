"""The rules reference served as pages (``/rules/<game>``): every rule of
every game has its anchor, so an explanation's link lands on its rule."""

from __future__ import annotations

import html
import json
from pathlib import Path

from vigil import rules_doc, rules_page
from vigil.rules.dryh.dominance import why_dominant
from vigil.rules.games import GAMES

LANG = Path(__file__).resolve().parents[2] / "foundry-module" / "lang"


class TestRender:
    def test_every_rule_of_every_game_has_its_anchor(self) -> None:
        """Each rule id of a game's rule book is an ``id`` on its page."""
        for name, system in GAMES.items():
            page = rules_page.render(name)
            assert page is not None
            for rule in system.rule_book.rules:
                assert f'id="{rule.id}"' in page, (name, rule.id)

    def test_an_unknown_page_is_none_and_text_is_escaped(self) -> None:
        assert rules_page.render("nope") is None
        index = rules_page.render("")
        assert index is not None and "<script" not in index.lower()


class TestLanguage:
    def test_a_german_page_words_its_options_and_marks_the_rule_texts_english(self) -> None:
        """``?lang=de``: the options section is German (each option's name
        and description from de.json), the rule texts sit in ``lang="en"``
        parts, anchors are kept; an unknown language is the English page."""
        de = json.loads((LANG / "de.json").read_text(encoding="utf-8"))
        for name, system in GAMES.items():
            page = rules_page.render(name, "de")
            assert page is not None and '<html lang="de">' in page
            assert html.escape(de["VIGIL.Rules.inEnglish"]) in page
            section = page[page.index('<section id="table-options">') :]
            section = section[: section.index("</section>")]
            assert html.escape(de["VIGIL.Rules.options"]) in section
            for option in rules_doc.option_docs(system.options_type):
                assert html.escape(de[rules_doc.option_help_key(name, option.name)]) in section, option.name
                assert option.description not in section
            assert page.count('<div lang="en">') == 2  # before and after the options
            for rule in system.rule_book.rules:
                assert f'id="{rule.id}"' in page, (name, rule.id)
        index = rules_page.render("", "ru")
        assert index is not None and '<section id="options-of-every-table">' in index
        assert rules_page.render("mettle", "xx") == rules_page.render("mettle")


class TestWhyDominant:
    def test_strength_next_die_priority_and_alone(self) -> None:
        """DRYH-07 as the explanation names it."""
        assert why_dominant({"pain": [6], "discipline": [5]}) == {
            "pool": "pain",
            "strength": 6,
            "rival": "discipline",
            "rival_strength": 5,
            "by": "strength",
        }
        assert why_dominant({"pain": [6, 2], "madness": [6, 1]})["by"] == "next_die"  # type: ignore[index]
        assert why_dominant({"pain": [4], "discipline": [4]})["pool"] == "discipline"  # type: ignore[index]
        assert why_dominant({"pain": [4], "discipline": [4]})["by"] == "priority"  # type: ignore[index]
        assert why_dominant({"madness": [2]}) == {
            "pool": "madness",
            "strength": 2,
            "rival": None,
            "by": "alone",
        }
        assert why_dominant({}) is None
