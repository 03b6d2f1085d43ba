"""HUR-04/05/06 thresholds and final states; HUR-12 resisting damage."""

from __future__ import annotations

import pytest
from hursagmu_helpers import SYSTEM, add, codes, ctx, new_table, one, refused, run

from vigil.rules import engine
from vigil.rules.commands import Correct, Revive
from vigil.rules.hursagmu.commands import (
    ApplyPoison,
    BreakFall,
    Damage,
    Fall,
    Harm,
    Heal,
    Morning,
    RestAction,
    SeeDim,
    SetRest,
    SetSenses,
    TakeFall,
    TraitRollCmd,
)
from vigil.rules.hursagmu.conditions import conditions
from vigil.rules.hursagmu.state import Character, HursagmuTable


def test_hur04_ten_stuns_is_unconscious() -> None:
    t = add(new_table(), "c")
    out = run(t, Harm(char="c", stuns=9))
    assert codes(out.events) == ["harmed"]
    out = run(out.state, Harm(char="c", stuns=1))
    started = one(out.events, "condition_started")
    assert (started.params["condition"], started.rule) == ("unconscious", "HUR-04")
    assert SYSTEM.summary(out.state, "c").badges == ["unconscious", "resting"]


@pytest.mark.parametrize(
    ("wounds", "shocks", "expected"),
    [
        (10, 10, []),
        (11, 0, ["seriously_injured"]),
        (0, 11, ["delirious"]),
        (19, 19, ["seriously_injured", "delirious"]),
        (20, 0, ["dead"]),
        (0, 20, ["insane"]),
        (25, 30, ["dead", "insane"]),
    ],
)
def test_hur05_hur06_thresholds(wounds: int, shocks: int, expected: list[str]) -> None:
    assert conditions(Character(wounds=wounds, shocks=shocks)) == expected


def test_hur05_wounds_reaching_twenty_kill_and_final_state_is_reported_alone() -> None:
    t = add(new_table(), "c", wounds=15, stuns=12)
    out = run(t, Harm(char="c", wounds=5))
    assert codes(out.events) == ["harmed", "condition_started"]
    assert one(out.events, "condition_started").params["condition"] == "dead"
    assert SYSTEM.final_status(out.state, "c") == "dead"
    assert SYSTEM.summary(out.state, "c").badges == ["dead"]


def test_hur06_shocks_reaching_twenty_are_insane() -> None:
    out = run(add(new_table(), "c", shocks=19), Harm(char="c", shocks=1))
    started = one(out.events, "condition_started")
    assert (started.params["condition"], started.rule) == ("insane", "HUR-06")
    assert SYSTEM.final_status(out.state, "c") == "insane"


FINAL_COMMANDS = [
    Harm(char="c", stuns=1),
    Damage(char="c", amount=5),
    RestAction(char="c"),
    SetRest(char="c"),
    Morning(char="c"),
    Heal(patient="c", healer_level=5),
    ApplyPoison(char="c", damage=3, interval=6, duration=60),
    Fall(char="c", spaces=4),
    BreakFall(char="c"),
    TakeFall(char="c"),
    SetSenses(char="c", blind=True),
    TraitRollCmd(char="c", trait="lore", target=5, kind="mental"),
    SeeDim(char="c", challenge=3),
]


@pytest.mark.parametrize("cmd", FINAL_COMMANDS)
@pytest.mark.parametrize("sheet", [{"wounds": 20}, {"shocks": 20}])
def test_hur05_hur06_final_state_refuses_every_command(cmd: object, sheet: dict[str, int]) -> None:
    t = add(new_table(), "c", traits={"lore": 3}, stuns=3, **sheet)
    refused(t, cmd, "final_state", 3, 4, 3, 4)  # type: ignore[arg-type]


def test_hur05_revive_and_correct_are_the_way_out() -> None:
    t = add(new_table(), "c", wounds=22)
    revived = engine.apply(SYSTEM, t, Revive(char="c", fields={"wounds": 19}), ctx()).state
    assert SYSTEM.final_status(revived, "c") is None
    fixed = engine.apply(SYSTEM, t, Correct(char="c", field="wounds", value=0), ctx()).state
    assert fixed.characters["c"].wounds == 0


def test_hur12_damage_resisted_with_constitution_roll() -> None:
    """HUR-12 (roll): 2d6 + con + bonus vs D; a failure takes D − total."""
    t = add(new_table(), "c", traits={"constitution": 3})
    out = run(t, Damage(char="c", amount=12), 2, 3)  # 8 vs 12: 4 wounds
    event = one(out.events, "resisted")
    assert (event.rule, event.params["faces"], event.params["harm"]) == ("HUR-12", [2, 3], 4)
    assert out.state.characters["c"].wounds == 4
    out = run(t, Damage(char="c", amount=12, bonus=4), 2, 3)  # 12 vs 12: none
    assert out.state.characters["c"].wounds == 0
    out = run(t, Damage(char="c", amount=3), 1, 1)  # natural 2 fails, 5 ≥ 3: 0
    assert (one(out.events, "resisted").params["success"], out.state.characters["c"].wounds) == (
        False,
        0,
    )


def test_hur12_flat_resistance_option_rolls_no_dice() -> None:
    t = add(new_table(resistance="flat"), "c", traits={"constitution": 3})
    out = run(t, Damage(char="c", amount=12, bonus=2))
    assert out.state.characters["c"].wounds == 7
    assert one(out.events, "resisted").params["mode"] == "flat"
    assert run(t, Damage(char="c", amount=4)).state.characters["c"].wounds == 1
    assert run(t, Damage(char="c", amount=2)).state.characters["c"].wounds == 0


def test_hur12_missing_constitution_counts_as_zero() -> None:
    out = run(add(new_table(), "c"), Damage(char="c", amount=10), 2, 3)
    assert out.state.characters["c"].wounds == 5


def test_harm_refusals_leave_state_unchanged() -> None:
    t = add(new_table(), "c")
    refused(t, Harm(char="c"), "no_harm")
    refused(t, Harm(char="zz", wounds=1), "unknown_character")


def test_counters_are_capped_to_stay_encodable() -> None:
    t: HursagmuTable = add(new_table(), "c", stuns=999_950)
    out = run(t, Harm(char="c", stuns=100))
    assert out.state.characters["c"].stuns == 1_000_000
