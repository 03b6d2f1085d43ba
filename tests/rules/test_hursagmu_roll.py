"""HUR-01 the trait roll, HUR-02 condition penalties, HUR-03 senses."""

from __future__ import annotations

import pytest
from hursagmu_helpers import add, codes, new_table, one, refused, run

from vigil.rules.dice import ScriptedDice
from vigil.rules.hursagmu.commands import SeeDim, SetSenses, TraitRollCmd
from vigil.rules.hursagmu.roll import TraitRoll, trait_roll
from vigil.rules.hursagmu.state import HursagmuTable


@pytest.mark.parametrize(
    ("faces", "level", "target", "total", "dx", "success"),
    [
        ((3, 4), 6, 10, 13, 3, True),  # HUR-01 example: 13 vs 10 → dx 3
        ((4, 4), 6, 7, 14, 7, True),  # 14 vs 7 → dx 7
        ((6, 6), 6, 19, 18, 1, True),  # natural 12 (18) vs 19 → dx 1
        ((6, 6), 6, 10, 18, 8, True),  # natural 12 keeps a larger margin
        ((1, 1), 20, 5, 22, -1, False),  # natural 2 always fails
        ((1, 1), 0, 5, 2, -3, False),
        ((2, 3), 5, 10, 10, 0, True),  # equal is a success with dx 0
        ((2, 3), 4, 10, 9, -1, False),
    ],
)
def test_hur01_trait_roll_dx(
    faces: tuple[int, int], level: int, target: int, total: int, dx: int, success: bool
) -> None:
    result = trait_roll(ScriptedDice(faces), level, target)
    assert (result.total, result.dx, result.success) == (total, dx, success)
    assert result.params()["faces"] == list(faces)


def test_hur01_modifiers_add_to_the_total() -> None:
    result = TraitRoll((3, 4), 6, -2, 10)
    assert (result.total, result.dx) == (11, 1)


def roller(**sheet: object) -> HursagmuTable:
    return add(new_table(), "r", traits={"strength": 5, "lore": 4, "perception": 3}, **sheet)


def test_hur01_trait_roll_command_carries_faces_and_rule() -> None:
    out = run(roller(), TraitRollCmd(char="r", trait="strength", target=10, kind="physical"), 3, 4)
    event = one(out.events, "trait_rolled")
    assert event.rule == "HUR-01"
    assert event.params["faces"] == [3, 4]
    assert (event.params["total"], event.params["dx"]) == (12, 2)
    assert event.actor == "gm"


def test_hur02_seriously_injured_penalises_physical_actions_only() -> None:
    t = roller(wounds=13)
    out = run(t, TraitRollCmd(char="r", trait="strength", target=10, kind="physical"), 3, 4)
    assert one(out.events, "trait_rolled").params["condition_penalty"] == -3
    assert one(out.events, "trait_rolled").params["total"] == 9
    out = run(t, TraitRollCmd(char="r", trait="lore", target=10, kind="mental"), 3, 4)
    assert one(out.events, "trait_rolled").params["condition_penalty"] == 0


def test_hur02_delirious_penalises_mental_and_perception() -> None:
    t = roller(shocks=12)
    for kind in ("mental", "perception"):
        out = run(t, TraitRollCmd(char="r", trait="lore", target=10, kind=kind), 3, 4)  # type: ignore[arg-type]
        assert one(out.events, "trait_rolled").params["condition_penalty"] == -2
    out = run(t, TraitRollCmd(char="r", trait="strength", target=10, kind="physical"), 3, 4)
    assert one(out.events, "trait_rolled").params["condition_penalty"] == 0


def test_hur02_recovery_rolls_take_no_condition_penalty() -> None:
    t = roller(wounds=19, shocks=19)
    out = run(t, TraitRollCmd(char="r", trait="strength", target=10, kind="recovery"), 3, 4)
    assert one(out.events, "trait_rolled").params["condition_penalty"] == 0


def test_hur02_exactly_ten_is_no_penalty() -> None:
    t = roller(wounds=10, shocks=10)
    out = run(t, TraitRollCmd(char="r", trait="strength", target=10, kind="physical"), 3, 4)
    assert one(out.events, "trait_rolled").params["condition_penalty"] == 0


def test_hur03_blind_or_darkness_is_minus_four_for_sight() -> None:
    sighted = TraitRollCmd(char="r", trait="strength", target=10, kind="physical", needs_sight=True)
    out = run(roller(blind=True), sighted, 3, 4)
    assert one(out.events, "trait_rolled").params["sense_penalty"] == -4
    dark = TraitRollCmd(
        char="r", trait="strength", target=10, kind="physical", needs_sight=True, darkness=True
    )
    assert one(run(roller(), dark, 3, 4).events, "trait_rolled").params["sense_penalty"] == -4
    out = run(roller(), sighted, 3, 4)
    assert one(out.events, "trait_rolled").params["sense_penalty"] == 0


def test_hur03_deaf_is_minus_four_for_hearing_and_both_stack() -> None:
    cmd = TraitRollCmd(
        char="r", trait="strength", target=10, kind="physical", needs_sight=True, needs_hearing=True
    )
    out = run(roller(blind=True, deaf=True), cmd, 3, 4)
    assert one(out.events, "trait_rolled").params["sense_penalty"] == -8
    assert one(out.events, "trait_rolled").params["total"] == 4


@pytest.mark.parametrize(
    ("sheet", "sight", "hearing", "darkness", "sense"),
    [
        ({"blind": True}, True, False, False, "sight"),
        ({}, True, False, True, "sight"),
        ({"deaf": True}, False, True, False, "hearing"),
    ],
)
def test_hur03_perception_through_a_lost_sense_is_refused(
    sheet: dict[str, bool], sight: bool, hearing: bool, darkness: bool, sense: str
) -> None:
    cmd = TraitRollCmd(
        char="r",
        trait="perception",
        target=8,
        kind="perception",
        needs_sight=sight,
        needs_hearing=hearing,
        darkness=darkness,
    )
    error = refused(roller(**sheet), cmd, "sense_lost", 3, 4)
    assert error.params["sense"] == sense
    assert error.rule == "HUR-03"


def test_hur03_perception_by_hearing_works_when_blind() -> None:
    cmd = TraitRollCmd(char="r", trait="perception", target=8, kind="perception", needs_hearing=True)
    out = run(roller(blind=True), cmd, 3, 4)
    assert one(out.events, "trait_rolled").params["sense_penalty"] == 0


def test_hur03_dim_light_needs_strictly_higher_than_the_challenge() -> None:
    t = roller()
    out = run(t, SeeDim(char="r", challenge=10), 3, 4)  # 10: not higher
    assert one(out.events, "dim_light_check").params["sees"] is False
    out = run(t, SeeDim(char="r", challenge=10), 4, 4)  # 11
    assert one(out.events, "dim_light_check").params["sees"] is True
    out = run(t, SeeDim(char="r", challenge=30), 6, 6)  # natural 12
    assert one(out.events, "dim_light_check").params["sees"] is True


def test_hur03_dim_light_takes_delirium_and_is_refused_when_blind() -> None:
    out = run(roller(shocks=14), SeeDim(char="r", challenge=5), 3, 4)
    assert one(out.events, "dim_light_check").params["total"] == 6
    refused(roller(blind=True), SeeDim(char="r", challenge=5), "sense_lost", 3, 4)


def test_hur03_set_senses() -> None:
    out = run(roller(), SetSenses(char="r", blind=True))
    assert out.state.characters["r"].blind
    assert codes(out.events) == ["senses_changed"]
    t = run(out.state, SetSenses(char="r", blind=False, deaf=True)).state
    assert (t.characters["r"].blind, t.characters["r"].deaf) == (False, True)
    refused(t, SetSenses(char="r", deaf=True), "no_change")
    refused(t, SetSenses(char="r"), "no_change")


def test_hur01_trait_roll_refusals() -> None:
    t = roller()
    refused(t, TraitRollCmd(char="r", trait="magic", target=8, kind="mental"), "unknown_trait", 3, 4)
    refused(t, TraitRollCmd(char="x", trait="lore", target=8, kind="mental"), "unknown_character")
    knocked = roller(stuns=10)
    refused(knocked, TraitRollCmd(char="r", trait="lore", target=8, kind="mental"), "unconscious", 3, 4)
    refused(knocked, SeeDim(char="r", challenge=3), "unconscious", 3, 4)
    refused(roller(shocks=20), SetSenses(char="r", blind=True), "final_state")
