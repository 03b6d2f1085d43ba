"""The engine's common rules ("Common to every game" in docs/rules/README.md):
corrections and revive as the only ways out of a final state, a clock that
never goes backwards, bounded advances, manual dice — and that a refused
command leaves the state exactly as it was."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from vigil.rules import engine
from vigil.rules.commands import AddCharacter, CombatEnd, Correct, NextRound, Revive
from vigil.rules.dice import RandomDice, ScriptedDice, SecureDice, roll
from vigil.rules.dryh.commands import Open
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES, get
from vigil.rules.mettle.commands import Pain
from vigil.rules.outcome import Event, RuleError
from vigil.rules.words import english, english_error

METTLE = GAMES["mettle"]
DRYH = GAMES["dryh"]
GM = Ctx(dice=RandomDice(1), actor=Actor("gm#1", "gm"))
PLAYER = Ctx(dice=RandomDice(1), actor=Actor("p#1", "player"))


def mettle_table(**sheet: Any) -> Any:
    t = METTLE.new_table({})
    return engine.apply(METTLE, t, AddCharacter(id="a", sheet={"mettle": 4, **sheet}), GM).state


def refused(system: Any, table: Any, cmd: Any, ctx: Ctx = GM) -> str:
    before = msgspec.json.encode(table)
    with pytest.raises(RuleError) as err:
        engine.apply(system, table, cmd, ctx)
    assert msgspec.json.encode(table) == before, "a refusal changes nothing"
    return err.value.code


def test_registry_names_the_three_games() -> None:
    assert sorted(GAMES) == ["dryh", "hursagmu", "mettle"]
    assert get("mettle") is METTLE


def test_corrections_set_nested_fields_and_are_validated() -> None:
    t = mettle_table()
    t = engine.apply(METTLE, t, Correct(char="a", field="kits.herbs", value=3), GM).state
    assert t.characters["a"].kits == {"herbs": 3}
    t = engine.apply(METTLE, t, Correct(char="a", field="pain", value=2), GM).state
    out = engine.apply(METTLE, t, Correct(char="a", field="mettle", value=6), GM)
    assert out.state.characters["a"].mettle == 6
    assert out.events[0].code == "corrected" and out.events[0].actor == "gm#1"
    assert "mettle" in english(out.events[0])
    assert refused(METTLE, t, Correct(char="a", field="pain", value=-1)) == "bad_value"
    assert refused(METTLE, t, Correct(char="a", field="nope", value=1)) == "bad_field"
    assert refused(METTLE, t, Correct(char="a", field="pain.deeper", value=1)) == "bad_field"
    assert refused(METTLE, t, Correct(char="zz", field="pain", value=1)) == "unknown_character"


def test_corrections_reach_list_items_by_index() -> None:
    t = mettle_table()
    t = engine.apply(
        METTLE, t, Correct(char="a", field="injuries", value=[{"id": "i1", "label": "cut", "penalty": 1}]), GM
    ).state
    t = engine.apply(METTLE, t, Correct(char="a", field="injuries.0.penalty", value=3), GM).state
    assert t.characters["a"].injuries[0].penalty == 3
    for bad in ("injuries.x.penalty", "injuries.5.penalty"):
        assert refused(METTLE, t, Correct(char="a", field=bad, value=1)) == "bad_field"


def test_table_level_corrections_and_protected_fields() -> None:
    t = DRYH.new_table({})
    t = engine.apply(DRYH, t, Correct(field="hope", value=4), GM).state
    assert t.hope == 4
    for field in ("clock", "characters", "options", "nothing"):
        assert refused(DRYH, t, Correct(field=field, value=1)) == "bad_field"


def test_revive_only_from_a_final_state() -> None:
    """MET-20 / "Corrections and revive": revive is the way out of departed."""
    t = mettle_table()
    assert refused(METTLE, t, Revive(char="a", fields={"pain": 0})) == "not_final"
    t = engine.apply(METTLE, t, Correct(char="a", field="status", value="departed"), GM).state
    assert METTLE.final_status(t, "a") == "departed"
    assert refused(METTLE, t, Revive(char="a", fields={"pain": 0})) == "final_state"
    out = engine.apply(METTLE, t, Revive(char="a", fields={"status": "active", "pain": 0}), GM)
    assert out.state.characters["a"].status == "active" and out.events[0].code == "revived"


def test_clock_never_goes_backwards_and_advances_are_bounded() -> None:
    t = mettle_table()
    t = engine.advance(METTLE, t, 100.0, GM).state
    with pytest.raises(RuleError) as err:
        engine.advance(METTLE, t, 50.0, GM)
    assert err.value.code == "clock_backwards"
    t = engine.apply(METTLE, t, Pain(char="a", amount=9), GM).state  # dying: one deadline
    small = Ctx(dice=RandomDice(1), max_effects=0)
    with pytest.raises(RuleError) as err:
        engine.advance(METTLE, t, 10_000.0, small)
    assert err.value.code == "advance_too_large"
    assert engine.next_deadline(METTLE, t) == t.characters["a"].departs_at


def test_combat_commands_follow_the_combat_flag() -> None:
    t = mettle_table()
    assert refused(METTLE, t, CombatEnd()) == "not_in_combat"
    assert refused(METTLE, t, NextRound()) == "not_in_combat"


def test_commands_of_another_game_are_refused() -> None:
    t = mettle_table()
    assert refused(METTLE, t, Open(char="a", pain=1, kind="environmental")) == "wrong_system"
    assert refused(METTLE, t, AddCharacter(id="a", sheet={"mettle": 3})) == "character_exists"


def test_manual_dice_need_the_option_and_the_gm() -> None:
    t = DRYH.new_table({})
    t = engine.apply(DRYH, t, AddCharacter(id="h", sheet={}), GM).state
    t = engine.apply(DRYH, t, Open(char="h", pain=1, kind="environmental"), GM).state
    from vigil.rules.dryh.commands import Roll

    assert refused(DRYH, t, Roll(char="h", faces=[1, 2, 3, 4])) == "manual_dice_off"
    manual = DRYH.new_table({"manual_dice": True})
    manual = engine.apply(DRYH, manual, AddCharacter(id="h", sheet={}), GM).state
    manual = engine.apply(DRYH, manual, Open(char="h", pain=1, kind="environmental"), GM).state
    assert refused(DRYH, manual, Roll(char="h", faces=[1, 2, 3, 4]), PLAYER) == "manual_dice_gm_only"
    assert refused(DRYH, manual, Roll(char="h", faces=[1, 2])) == "dice_too_few"
    assert refused(DRYH, manual, Roll(char="h", faces=[1, 2, 3, 4, 5])) == "dice_too_many"
    assert refused(DRYH, manual, Roll(char="h", faces=[1, 2, 3, 9])) == "dice_bad_face"
    out = engine.apply(DRYH, manual, Roll(char="h", faces=[6, 5, 4, 1]), GM)
    assert out.state.rolls["h"].dice is not None


def test_dice_sources() -> None:
    """Same seed, same rolls; the secure source rolls in range; scripted
    lots are checked."""
    assert roll(RandomDice(7), 20) == roll(RandomDice(7), 20)
    assert all(1 <= f <= 6 for f in roll(SecureDice(), 50))
    assert SecureDice().weighted([0, 1, 0]) == 1
    scripted = ScriptedDice([], lots=[2])
    assert scripted.weighted([1, 1, 1]) == 2
    with pytest.raises(RuleError) as err:
        scripted.weighted([1, 1, 1])
    assert err.value.code == "dice_too_few_lots"
    with pytest.raises(RuleError) as err:
        ScriptedDice([], lots=[5]).weighted([1, 1])
    assert err.value.code == "dice_bad_lot"
    leftover = ScriptedDice([], lots=[0])
    with pytest.raises(RuleError):
        leftover.check_all_used()


def test_english_falls_back_to_the_code_for_unknown_templates() -> None:
    assert english(Event(code="no_such_event", at=0, params={"x": 1})) == "no_such_event(char=None, x=1)"
    assert english_error("no_such_error", {}) == "no_such_error()"
    assert english_error("bad_value", {"field": "f"}).startswith("{value} is not a valid value for f")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_public_table_hides_what_a_viewer_may_not_see(name: str) -> None:
    """docs/design.md "Visibility" at the rules edge: a game shows non-GM viewers
    only table-level state about characters they may see."""
    system = GAMES[name]
    t = system.new_table({})
    sheets = {"dryh": {}, "mettle": {"mettle": 3}, "hursagmu": {}}[name]
    for cid in ("seen", "status", "hidden"):
        t = engine.apply(system, t, AddCharacter(id=cid, sheet=sheets), GM).state
    if name == "dryh":
        for cid in ("seen", "status", "hidden"):
            t = engine.apply(system, t, Open(char=cid, pain=2, kind="environmental"), GM).state
    view = system.public_table(t, frozenset({"seen"}), frozenset({"status"}))
    text = msgspec.json.encode(view).decode()
    assert "hidden" not in text
    if name == "dryh":
        assert set(view["rolls"]) == {"seen", "status"}
        assert "declaration" in view["rolls"]["seen"]
        assert "declaration" not in view["rolls"]["status"], "status viewers see dice, not numbers"
    else:
        assert view == {}
