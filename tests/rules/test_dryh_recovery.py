"""DRYH-22…25, sessions, views and the system glue (validate, advance…)."""

from __future__ import annotations

import pathlib
import re

import msgspec
import pytest
from dryh_helpers import GM, PLAYER, codes, new_table, refused, rolled, run

from vigil.rules import engine
from vigil.rules.commands import CombatStart, Command, Correct, RemoveCharacter, Revive
from vigil.rules.dice import RandomDice
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.state import Options
from vigil.rules.dryh.system import SYSTEM
from vigil.rules.game import Ctx, Due, Summary
from vigil.rules.outcome import RuleError
from vigil.rules.words import catalogue, english


def with_hope(t, hope: int):  # type: ignore[no-untyped-def]
    return run(t, Correct(field="hope", value=hope))[0]


def test_dryh22_hope_removes_exhaustion_or_a_check() -> None:
    """DRYH-22: 1 hope: −1 exhaustion, or uncheck fight or flight."""
    t = with_hope(new_table({"a": {"exhaustion": 2, "fight": 1, "flight": 1}}), 3)
    for what in ("exhaustion", "fight", "flight"):
        t, ev = run(t, c.HopeSpend(char="a", what=what), actor=PLAYER)  # type: ignore[arg-type]
        assert ev[0].code == "hope_spent" and ev[0].rule == "DRYH-22"
    a = t.characters["a"]
    assert (a.exhaustion, a.fight, a.flight, t.hope) == (1, 0, 0, 0)
    refused(t, c.HopeSpend(char="a", what="exhaustion"), "no_hope")
    t = with_hope(t, 1)
    refused(t, c.HopeSpend(char="a", what="fight"), "nothing_to_remove")


def test_dryh22_hope_spend_does_not_wake_a_crashed_character() -> None:
    """DRYH-22 Decision: only the GM's wake ends a crash (DRYH-24)."""
    t = with_hope(new_table({"a": {"exhaustion": 7, "status": "crashed"}}), 1)
    t, _ = run(t, c.HopeSpend(char="a", what="exhaustion"))
    assert t.characters["a"].exhaustion == 6 and t.characters["a"].status == "crashed"


@pytest.mark.parametrize(("discipline", "cost"), [(1, 4), (3, 2), (4, 1), (5, 1), (9, 1)])
def test_dryh23_recover_discipline_costs_five_minus_d_at_least_one(discipline: int, cost: int) -> None:
    """DRYH-23: (5 − discipline) hope, never below 1: +1 D, −1 permanent M."""
    t = with_hope(new_table({"a": {"discipline": discipline, "madness": 2}}), cost)
    t, ev = run(t, c.RecoverDiscipline(char="a"), actor=PLAYER)
    a = t.characters["a"]
    assert (a.discipline, a.madness, t.hope) == (discipline + 1, 1, 0)
    assert ev[0].params["cost"] == cost and ev[0].rule == "DRYH-23"


def test_dryh23_refusals() -> None:
    """DRYH-23: no permanent madness, or too little hope: refused."""
    t = with_hope(new_table({"a": {"discipline": 3, "madness": 0}, "b": {"discipline": 3, "madness": 1}}), 1)
    refused(t, c.RecoverDiscipline(char="a"), "no_madness")
    err = refused(t, c.RecoverDiscipline(char="b"), "not_enough_hope")
    assert err.params == {"cost": 2, "hope": 1}


def test_dryh24_wake_resets_by_default() -> None:
    """DRYH-24: exhaustion 0 and responses unchecked with ``wake_resets``."""
    t = new_table({"a": {"exhaustion": 7, "fight": 2, "flight": 1, "status": "crashed"}})
    t, ev = run(t, c.Wake(char="a"))
    a = t.characters["a"]
    assert (a.status, a.exhaustion, a.fight, a.flight) == ("awake", 0, 0, 0)
    assert ev[0].code == "woke" and ev[0].rule == "DRYH-24"
    refused(t, c.Wake(char="a"), "not_crashed")


def test_dryh24_wake_without_reset_sets_exhaustion_six() -> None:
    """DRYH-24: with ``wake_resets`` off exhaustion becomes 6, checks stay."""
    t = new_table({"a": {"exhaustion": 8, "fight": 2, "status": "crashed"}}, wake_resets=False)
    t, _ = run(t, c.Wake(char="a"))
    a = t.characters["a"]
    assert (a.status, a.exhaustion, a.fight) == ("awake", 6, 2)


def test_dryh25_session_start_gives_despair_per_player_character() -> None:
    """Session start: ``despair_per_player`` per player character (not NPCs, not nightmares)."""
    chars = {"a": {}, "b": {}, "g": {"npc": True}, "n": {"status": "nightmare", "discipline": 0}}
    t = new_table(chars, despair_per_player=2)
    t, _ = run(t, Correct(field="despair", value=1))
    t, ev = run(t, c.SessionStart())
    assert t.despair == 5 and t.session.number == 1 and t.session.active
    assert ev[0].params == {"number": 1, "gained": 4, "despair": 5}
    refused(t, c.SessionStart(), "session_active")


def test_dryh25_session_end_keeps_hope_by_default() -> None:
    """DRYH-25: ``hope_clears_at_session_end`` defaults to off."""
    assert Options().hope_clears_at_session_end is False
    t = with_hope(new_table(), 3)
    refused(t, c.SessionEnd(), "no_session")
    t, _ = run(t, c.SessionStart())
    t, ev = run(t, c.SessionEnd())
    assert t.hope == 3 and not t.session.active and ev[0].rule == "DRYH-25"


def test_dryh25_session_end_clears_hope_with_the_option() -> None:
    """DRYH-25: with the option on, hope becomes 0."""
    t = with_hope(new_table(hope_clears_at_session_end=True), 3)
    t, _ = run(t, c.SessionStart())
    t, ev = run(t, c.SessionEnd())
    assert t.hope == 0 and ev[0].params["hope_cleared"] == 3


def test_options_defaults_and_bounds() -> None:
    """Table options and their defaults (dryh.md)."""
    o = SYSTEM.new_table({}).options
    assert (o.response_boxes, o.despair_per_player, o.failure_consequences) == (3, 1, False)
    assert (o.wake_resets, o.hope_clears_at_session_end, o.manual_dice) == (True, False, False)
    for bad in ({"response_boxes": 0}, {"response_boxes": 7}, {"nope": 1}):
        with pytest.raises(RuleError) as info:
            SYSTEM.new_table(bad)
        assert info.value.code == "bad_options"


def test_dryh17_response_boxes_option_bounds_checks() -> None:
    """``response_boxes`` limits the checks a correction may set."""
    t = new_table({"a": {}}, response_boxes=2)
    refused(t, Correct(char="a", field="fight", value=3), "too_many_checks")
    t = new_table({"a": {"discipline": 1, "madness": 1, "fight": 2, "flight": 2}}, response_boxes=2)
    t, _ = rolled(t, d=[1], m=[6])
    t, ev = run(t, c.Resolve(char="a"))
    assert "snapped" in codes(ev)


def test_coins_are_corrected_as_table_fields() -> None:
    """The GM sets the coins with the engine's correction (char None)."""
    t, ev = run(new_table(), Correct(field="despair", value=4))
    # No character is its target: each reader says "the table" in their own words.
    assert t.despair == 4 and ev[0].params["target"] is None
    assert english(ev[0]) == "The GM sets despair of the table to 4."
    refused(t, Correct(field="hope", value=-1), "bad_value")


def test_validate_keeps_rolls_consistent() -> None:
    """Removing or nightmaring a roll's participant, or a roll whose dice do
    not match its phase, is refused."""
    t = new_table({"a": {}, "b": {}})
    t, _ = run(t, c.Open(char="a", pain=0))
    t, _ = run(t, c.Help(char="a", helper="b"))
    refused(t, RemoveCharacter(char="a"), "character_in_roll")
    refused(t, RemoveCharacter(char="b"), "character_in_roll")
    refused(t, Correct(char="b", field="status", value="nightmare"), "character_in_roll")
    refused(t, Correct(field="rolls.a.phase", value="rolled"), "bad_roll")
    refused(t, Correct(field="rolls.a.pending", value={"a": "madness"}), "bad_roll")
    refused(t, Correct(field="rolls.a.helpers", value=["b", "b"]), "character_in_roll")


def test_revive_a_nightmare_and_remove_a_character() -> None:
    """Only revive (or a correction) brings a nightmare back."""
    t = new_table({"a": {"status": "nightmare", "discipline": 0}, "b": {}})
    refused(t, Revive(char="b", fields={"discipline": 2}), "not_final")
    refused(t, Revive(char="a", fields={"discipline": 1}), "final_state")
    t, _ = run(t, Revive(char="a", fields={"discipline": 1, "status": "awake"}))
    assert SYSTEM.final_status(t, "a") is None
    t, _ = run(t, RemoveCharacter(char="b"))
    assert "b" not in t.characters and SYSTEM.final_status(t, "b") is None


def test_derived_summary_and_public_roll() -> None:
    """derived: numbers for full viewers; public_roll: an open roll's dice
    for status viewers; summary: badges only, no countdowns."""
    t = new_table({"a": {"discipline": 2, "exhaustion": 5, "fight": 1}, "b": {}})
    assert SYSTEM.derived(t, "a") == {
        "status": "awake",
        "fight_free": 2,
        "flight_free": 3,
        "exhaustion_to_crash": 2,
        "recover_cost": 3,
        "in_a_roll": False,
    }
    assert SYSTEM.public_roll(t, "a") is None
    assert SYSTEM.summary(t, "a") == Summary()
    t, _ = run(t, c.Open(char="a", pain=1, kind="nightmare"))
    everyone = frozenset(t.characters)
    assert SYSTEM.public_table(t, everyone, frozenset())["rolls"]["a"]["strengths"] is None
    assert SYSTEM.public_roll(t, "a") == {
        "phase": "open",
        "kind": "nightmare",
        "helpers": [],
        "dice": None,
        "success": None,
        "dominant": None,
    }
    t, _ = run(t, c.Roll(char="a"), [6, 1, 3, 3, 3, 3, 3, 2])
    pub = SYSTEM.public_roll(t, "a")
    assert pub is not None and pub["dice"]["pain"] == [2] and pub["dominant"] == "discipline"
    assert SYSTEM.derived(t, "a")["in_a_roll"] is True
    roll = SYSTEM.public_table(t, everyone, frozenset())["rolls"]["a"]
    assert roll["strengths"]["exhaustion"] == 3 and roll["successes"] == 6
    for fn in (SYSTEM.derived, SYSTEM.summary, SYSTEM.public_roll):
        with pytest.raises(RuleError):
            fn(t, "zz")


def test_no_timed_rules_advance_moves_only_the_clock() -> None:
    """DRYH has no timed rules: due() is empty; advance gives no events."""
    t = new_table()
    assert list(SYSTEM.due(t)) == []
    out = engine.advance(SYSTEM, t, 3600.0, Ctx(dice=RandomDice(1)))
    assert out.events == [] and out.state.clock.now == 3600.0
    assert engine.next_deadline(SYSTEM, t) is None
    with pytest.raises(RuleError) as info:
        SYSTEM.fire(t, Due(0.0, "a", "DRYH-01"), Ctx(dice=RandomDice(1)))
    assert info.value.code == "nothing_due"
    t, ev = run(t, CombatStart())
    assert codes(ev) == ["combat_started"]
    assert SYSTEM.on_round(t, Ctx(dice=RandomDice(1))) == []


def test_foreign_commands_are_refused() -> None:
    class Other(Command, kw_only=True, tag="other.thing"):
        pass

    refused(new_table(), Other(), "wrong_system")
    with pytest.raises(RuleError) as info:
        SYSTEM.apply(new_table(), Other(), Ctx(dice=RandomDice(1), actor=GM))
    assert info.value.code == "wrong_system"


def test_commands_decode_from_the_tagged_union() -> None:
    """Every command has a ``dryh.`` tag and decodes from JSON."""
    dec = msgspec.json.Decoder(c.Open | c.Roll | c.Choose | c.SessionStart)  # type: ignore[arg-type]
    assert isinstance(dec.decode(b'{"type":"dryh.session_start"}'), c.SessionStart)
    roll = dec.decode(b'{"type":"dryh.roll","char":"a","faces":[1,2]}')
    assert isinstance(roll, c.Roll) and roll.faces == [1, 2]
    assert all(cls.__struct_config__.tag.startswith("dryh.") for cls in c.COMMANDS)


def test_every_code_has_an_english_template() -> None:
    """Words: a template for every event and error code the package emits."""
    src = pathlib.Path(c.__file__).parent
    text = "".join(p.read_text() for p in src.glob("*.py"))
    errors = set(re.findall(r'RuleError\(\s*"([a-z_]+)"', text))
    events = set(re.findall(r'code="([a-z_]+)"', text))
    ev_words, err_words = catalogue()
    assert errors and events
    assert errors <= set(err_words), errors - set(err_words)
    assert events <= set(ev_words), events - set(ev_words)
    t = new_table({"a": {"discipline": 1}})
    t, ev = rolled(t, d=[6], p=[1])
    t, more = run(t, c.Resolve(char="a"))
    for event in ev + more:
        assert not re.search(r"\{[a-z_]+\}", english(event)), english(event)


def test_public_table_leaves_out_helpers_the_viewer_may_not_see() -> None:
    """docs/design.md "Visibility": a hidden helper (DRYH-03) shows in no one's view
    but the GM's — not its id, not its dice, not its pending choice."""
    t = new_table({"a": {}, "ghost": {}})
    t, _ = run(t, c.Open(char="a", pain=1, kind="environmental"))
    t, _ = run(t, c.Help(char="a", helper="ghost"))
    t, _ = run(t, c.Roll(char="a"), [6, 1, 3, 3, 2, 2, 2])
    gm = SYSTEM.public_table(t, frozenset({"a", "ghost"}), frozenset())["rolls"]["a"]
    assert gm["helpers"] == ["ghost"] and "ghost" in gm["dice"]["helpers"]
    for full, status in ((frozenset({"a"}), frozenset()), (frozenset(), frozenset({"a"}))):
        seen = SYSTEM.public_table(t, full, status)["rolls"]["a"]
        assert "ghost" not in str(seen), seen
