"""The rules reference served as pages (``/rules/<game>``): every rule of
every game has its anchor, so an explanation's link lands on its rule."""

from __future__ import annotations

from vigil import rules_page
from vigil.rules.dryh.dominance import why_dominant
from vigil.rules.games import GAMES


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
