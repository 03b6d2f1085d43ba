"""HUR-14 falls."""

from __future__ import annotations

import pytest
from hursagmu_helpers import add, codes, new_table, one, refused, run

from vigil.rules.hursagmu.commands import Fall
from vigil.rules.hursagmu.falls import fall_damage


@pytest.mark.parametrize(
    ("spaces", "damage"),
    [(0, 0), (1, 0), (1.99, 0), (2, 4), (2.9, 4), (3, 6), (8, 16), (10, 20), (11, 20), (500, 20)],
)
def test_hur14_fall_damage(spaces: float, damage: int) -> None:
    """3 spaces → 6; 8 → 16; at most 20; fewer than 2: none; partial
    spaces round down."""
    assert fall_damage(spaces) == damage


def test_hur14_short_fall_rolls_nothing() -> None:
    out = run(add(new_table(), "c"), Fall(char="c", spaces=1.5, athlete=True))
    assert codes(out.events) == ["fall_harmless"]


def test_hur14_fall_resisted_with_constitution() -> None:
    t = add(new_table(), "c", traits={"constitution": 3})
    out = run(t, Fall(char="c", spaces=8), 2, 3)  # 8 vs 16 → 8 wounds
    event = one(out.events, "resisted")
    assert (event.rule, event.params["amount"], event.params["harm"]) == ("HUR-14", 16, 8)
    assert out.state.characters["c"].wounds == 8


def test_hur14_athlete_roll_adds_dx_to_constitution() -> None:
    t = add(new_table(), "c", traits={"constitution": 3, "athlete": 5})
    # Athlete 6+5+5 = 16 vs 6: dx 10; resist 2+3+3+10 = 18 vs 6.
    out = run(t, Fall(char="c", spaces=3, athlete=True), 6, 5, 1, 1)
    broken = one(out.events, "fall_broken")
    assert (broken.params["dx"], broken.params["bonus"]) == (10, 10)
    resisted = one(out.events, "resisted")
    assert (resisted.params["bonus"], resisted.params["harm"]) == (10, 0)
    # A failed athlete roll adds nothing.
    out = run(t, Fall(char="c", spaces=8, athlete=True), 1, 2, 1, 2)  # 8 vs 16; 6 vs 16
    assert one(out.events, "fall_broken").params["bonus"] == 0
    assert out.state.characters["c"].wounds == 10


def test_hur14_athlete_roll_is_a_physical_action_with_wound_penalty() -> None:
    t = add(new_table(), "c", traits={"athlete": 5}, wounds=13)
    out = run(t, Fall(char="c", spaces=3, athlete=True), 3, 4, 6, 6)
    assert one(out.events, "fall_broken").params["condition_penalty"] == -3


def test_hur14_flat_resistance_with_athlete_bonus() -> None:
    t = add(new_table(resistance="flat"), "c", traits={"constitution": 3, "athlete": 0})
    out = run(t, Fall(char="c", spaces=10, athlete=True), 5, 5)  # dx 10 - 20 → fails
    assert out.state.characters["c"].wounds == 17


def test_hur14_unconscious_falls_but_cannot_break_it() -> None:
    t = add(new_table(), "c", stuns=10, traits={"constitution": 0})
    refused(t, Fall(char="c", spaces=4, athlete=True), "unconscious", 1, 1, 1, 1)
    assert run(t, Fall(char="c", spaces=4), 1, 2).state.characters["c"].wounds == 5
