"""The Hursagmu system as the engine and clients see it: options, manual
dice, badges and countdowns, derived numbers, and a template for every code."""

from __future__ import annotations

import ast
import pathlib

import pytest
from hursagmu_helpers import GM, PLAYER, SYSTEM, add, advance, ctx, new_table, refused, run

from vigil.rules import engine, words
from vigil.rules.clock import ROUND
from vigil.rules.commands import Command, Correct
from vigil.rules.dice import RandomDice
from vigil.rules.game import Ctx
from vigil.rules.hursagmu import commands as hur_commands
from vigil.rules.hursagmu.commands import Harm, Morning, RestAction, TraitRollCmd
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import RuleError

PACKAGE = pathlib.Path(hur_commands.__file__).parent


def test_options_defaults_and_validation() -> None:
    """HUR-12 resistance defaults to roll; HUR-09 wake_hour to off."""
    t = new_table()
    assert (t.options.resistance, t.options.wake_hour, t.options.manual_dice) == ("roll", None, False)
    for bad in ({"wake_hour": 24}, {"resistance": "dodge"}, {"colour": "red"}):
        with pytest.raises(RuleError) as info:
            SYSTEM.new_table(bad)
        assert info.value.code == "bad_options"


def test_manual_dice_gm_faces_are_used_in_order() -> None:
    t = add(new_table(manual_dice=True), "c", traits={"constitution": 6}, wounds=10)
    cmd = Morning(char="c", faces=[3, 4])
    out = engine.apply(SYSTEM, t, cmd, Ctx(dice=RandomDice(0), actor=GM))
    assert out.state.characters["c"].wounds == 7
    with pytest.raises(RuleError) as info:
        engine.apply(SYSTEM, t, cmd, Ctx(dice=RandomDice(0), actor=PLAYER))
    assert info.value.code == "manual_dice_gm_only"
    refused(new_table(), Morning(faces=[1, 2]), "manual_dice_off")


def test_commands_of_another_game_are_refused() -> None:
    class Other(Command, kw_only=True, tag="other.x"):
        pass

    with pytest.raises(RuleError) as info:
        SYSTEM.apply(new_table(), Other(), ctx())
    assert info.value.code == "wrong_system"
    refused(new_table(), Other(), "wrong_system")


def test_hur02_hur03_derived_penalties_and_day_flags() -> None:
    t = add(new_table(), "c", wounds=14, shocks=12, blind=True)
    t = run(t, Morning(char="c"), 1, 2, 1, 2).state
    derived = SYSTEM.derived(t, "c")
    assert derived["penalties"] == {"physical": -4, "mental": -2, "sight": -4, "hearing": 0}
    assert derived["statuses"] == ["seriously_injured", "delirious"]
    assert (derived["day"], derived["recovered_today"], derived["healed_today"]) == (0, True, False)
    assert derived["rest_spoiled_today"] is False
    assert derived["next_rest_at"] is None


def test_summary_badges() -> None:
    t = add(new_table(), "c", stuns=10, wounds=11, shocks=11, blind=True, deaf=True)
    badges = SYSTEM.summary(t, "c").badges
    assert badges == ["unconscious", "resting", "seriously_injured", "delirious", "blind", "deaf"]
    assert SYSTEM.summary(add(new_table(), "d"), "d").badges == []


def test_next_deadline_follows_the_earliest_effect() -> None:
    t = add(new_table(wake_hour=7), "c")
    t = run(t, Harm(char="c", stuns=10)).state
    assert engine.next_deadline(SYSTEM, t) == 6.0


def test_events_are_stamped_with_the_actor() -> None:
    out = run(add(new_table(), "c", stuns=3), RestAction(char="c"), 1, 2)
    assert {e.actor for e in out.events} == {"gm"}
    out = advance(add(new_table(), "c", stuns=10), 6, 6, 6)
    assert out.events[0].actor == "gm"


def _emitted_codes() -> tuple[set[str], set[str]]:
    """Every literal event code (Event(code=...)) and error code
    (RuleError("...")) in the package's source."""
    events: set[str] = set()
    errors: set[str] = set()
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id == "Event":
                for kw in node.keywords:
                    if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                        events.add(kw.value.value)
            if node.func.id == "RuleError" and node.args and isinstance(node.args[0], ast.Constant):
                errors.add(node.args[0].value)
    return events, errors


def test_every_code_has_an_english_template() -> None:
    events, errors = _emitted_codes()
    assert len(events) > 15 and len(errors) > 15
    known_events, known_errors = words.catalogue()
    assert events - set(known_events) == set()
    assert errors - set(known_errors) == set()


def test_english_rendering_of_an_event_and_an_error() -> None:
    out = run(
        add(new_table(), "c", traits={"lore": 2}),
        TraitRollCmd(char="c", trait="lore", target=8, kind="mental"),
        3,
        4,
    )
    assert words.english(out.events[0]) == "c rolls lore (3, 4): 9 against 8, dx 1."  # a list as its items
    error = refused(add(new_table(), "c"), Harm(char="c"), "no_harm")
    assert str(error) == "No harm was given for c."


def test_validate_passes_a_fresh_table() -> None:
    t: HursagmuTable = new_table()
    SYSTEM.validate(t)


def test_a_correction_copies_only_the_characters_it_puts_out_of_step() -> None:
    """Validate resyncs every character after a correction, but one already
    in step is left the old state's own object (shared, so the views skip
    it); the corrected one, and only it, gets the rest its stuns imply."""
    t = new_table()
    for cid in ("a", "b", "c"):
        t = add(t, cid)
    out = run(t, Correct(char="b", field="stuns", value=10))
    assert out.state.characters["a"] is t.characters["a"]
    assert out.state.characters["c"] is t.characters["c"]
    assert out.state.characters["b"] is not t.characters["b"]
    assert out.state.characters["b"].rest_next_at == t.clock.now + ROUND
    assert t.characters["b"].stuns == 0 and t.characters["b"].rest_next_at is None
