"""HUR-14 falls: the GM declares, the falling character breaks or takes it."""

from __future__ import annotations

from typing import Any

import pytest
from hursagmu_helpers import add, codes, new_table, one, refused, run

from vigil.permissions import allowed
from vigil.rules.hursagmu.commands import (
    ApplyPoison,
    BreakFall,
    Damage,
    Fall,
    Harm,
    Heal,
    RestAction,
    SeeDim,
    SetSenses,
    TakeFall,
    TraitRollCmd,
)
from vigil.rules.hursagmu.falls import WAIT, fall_damage
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.hursagmu.system import SYSTEM


@pytest.mark.parametrize(
    ("spaces", "damage"),
    [(0, 0), (1, 0), (1.99, 0), (2, 4), (2.9, 4), (3, 6), (8, 16), (10, 20), (11, 20), (500, 20)],
)
def test_hur14_fall_damage(spaces: float, damage: int) -> None:
    """3 spaces → 6; 8 → 16; at most 20; fewer than 2: none; partial
    spaces round down."""
    assert fall_damage(spaces) == damage


def test_hur14_short_fall_rolls_nothing_and_leaves_nothing_pending() -> None:
    out = run(add(new_table(), "c"), Fall(char="c", spaces=1.5))
    assert codes(out.events) == ["fall_harmless"]
    assert out.state.characters["c"].pending_fall is None


def test_hur14_declared_fall_waits_as_a_pending_choice() -> None:
    """The GM's declaration harms no one yet: the fall waits on the
    character, with its spaces, for break_fall or take_fall."""
    out = run(add(new_table(), "c"), Fall(char="c", spaces=8))
    declared = one(out.events, "fall_declared")
    assert (declared.rule, declared.params["spaces"], declared.params["damage"]) == ("HUR-14", 8, 16)
    ch = out.state.characters["c"]
    assert (ch.pending_fall, ch.wounds) == (8, 0)
    # A second fall waits until the first is settled.
    refused(out.state, Fall(char="c", spaces=3), "fall_pending")


def falling(spaces: float, **sheet: Any) -> HursagmuTable:
    return run(add(new_table(**sheet.pop("options", {})), "c", **sheet), Fall(char="c", spaces=spaces)).state


def test_hur14_take_fall_resists_with_constitution() -> None:
    t = falling(8, traits={"constitution": 3})
    out = run(t, TakeFall(char="c"), 2, 3)  # 8 vs 16 → 8 wounds
    event = one(out.events, "resisted")
    assert (event.rule, event.params["amount"], event.params["harm"]) == ("HUR-14", 16, 8)
    ch = out.state.characters["c"]
    assert (ch.wounds, ch.pending_fall) == (8, None)


def test_hur14_break_fall_adds_athlete_dx_to_constitution() -> None:
    t = falling(3, traits={"constitution": 3, "athlete": 5})
    # Athlete 6+5+5 = 16 vs 6: dx 10; resist 2+3+3+10 = 18 vs 6.
    out = run(t, BreakFall(char="c"), 6, 5, 1, 1)
    broken = one(out.events, "fall_broken")
    assert (broken.params["dx"], broken.params["bonus"]) == (10, 10)
    resisted = one(out.events, "resisted")
    assert (resisted.params["bonus"], resisted.params["harm"]) == (10, 0)
    assert out.state.characters["c"].pending_fall is None
    # A failed athlete roll adds nothing.
    out = run(falling(8, traits={"constitution": 3, "athlete": 5}), BreakFall(char="c"), 1, 2, 1, 2)
    assert one(out.events, "fall_broken").params["bonus"] == 0
    assert out.state.characters["c"].wounds == 10


def test_hur14_no_choice_without_a_declared_fall() -> None:
    t = add(new_table(), "c", traits={"athlete": 5})
    refused(t, BreakFall(char="c"), "no_pending_fall", 3, 3)
    refused(t, TakeFall(char="c"), "no_pending_fall", 3, 3)


def test_hur14_athlete_roll_is_a_physical_action_with_wound_penalty() -> None:
    t = falling(3, traits={"athlete": 5}, wounds=13)
    out = run(t, BreakFall(char="c"), 3, 4, 6, 6)
    assert one(out.events, "fall_broken").params["condition_penalty"] == -3


def test_hur14_flat_resistance_with_athlete_bonus() -> None:
    t = falling(10, options={"resistance": "flat"}, traits={"constitution": 3, "athlete": 0})
    out = run(t, BreakFall(char="c"), 5, 5)  # dx 10 - 20 → fails
    assert out.state.characters["c"].wounds == 17


def test_hur14_unconscious_fall_lands_at_once() -> None:
    """The unconscious cannot roll: no pending choice, the fall lands."""
    t = add(new_table(), "c", stuns=10, traits={"constitution": 0})
    out = run(t, Fall(char="c", spaces=4), 1, 2)
    assert "fall_declared" not in codes(out.events)
    ch = out.state.characters["c"]
    assert (ch.wounds, ch.pending_fall) == (5, None)


def test_hur14_knocked_out_while_falling_can_only_take_it() -> None:
    t = falling(4, traits={"constitution": 0, "athlete": 3})
    t = run(t, Harm(char="c", stuns=10)).state
    refused(t, BreakFall(char="c"), "unconscious", 1, 1, 1, 1)
    assert run(t, TakeFall(char="c"), 1, 2).state.characters["c"].wounds == 5


def test_hur14_the_falling_characters_player_chooses() -> None:
    """HUR-14: breaking a fall is the falling character's roll, so its
    player sends break_fall or take_fall; the declaration stays the GM's."""
    own = frozenset({"c"})
    for tag in ("hursagmu.break_fall", "hursagmu.take_fall"):
        assert allowed("player", own, tag, {"char": "c"})
        assert not allowed("player", own, tag, {"char": "npc"})
        assert allowed("gm", frozenset(), tag, {"char": "npc"})
    assert not allowed("player", own, "hursagmu.fall", {"char": "c", "spaces": 4})


def test_hur14_the_falling_character_does_nothing_else_of_its_own() -> None:
    """A Decision of HUR-14: as a DRYH character whose choice is pending
    stays in its roll, a falling character's own rolls, rest and healing
    of another are refused until it breaks or takes the fall; what is done
    to it still happens. Every command ``WAIT`` blocks is refused here."""
    t = falling(4, traits={"athlete": 3, "perception": 2, "healer": 4, "constitution": 2}, stuns=2)
    t = add(t, "o", wounds=3)
    blocked = {
        "hursagmu.trait_roll": TraitRollCmd(char="c", trait="athlete", target=7, kind="physical"),
        "hursagmu.see_dim": SeeDim(char="c", challenge=5),
        "hursagmu.rest": RestAction(char="c"),
        "hursagmu.heal": Heal(patient="o", healer="c"),
    }
    assert set(blocked) == set(WAIT.blocks)
    for cmd in blocked.values():
        err = refused(t, cmd, WAIT.refusal)
        assert (err.rule, err.params) == ("HUR-14", {"char": "c", "spaces": 4})
    # Others' doings to it are not its actions.
    assert run(t, Harm(char="c", wounds=1)).state.characters["c"].pending_fall == 4
    assert run(t, Damage(char="c", amount=3), 1, 1).state.characters["c"].pending_fall == 4
    poison = ApplyPoison(char="c", damage=1, interval=10, duration=30)
    assert run(t, poison).state.characters["c"].pending_fall == 4
    assert run(t, SetSenses(char="c", blind=True)).state.characters["c"].blind
    # Healing the falling one is its healer's action: refused, if at all, by HUR-11.
    refused(add(t, "h", traits={"healer": 3}), Heal(patient="c", healer="h"), "recovery_first")
    # Once the fall is taken, all is open again.
    landed = run(t, TakeFall(char="c"), 6, 6).state
    assert codes(run(landed, RestAction(char="c"), 6, 6).events)[0] == "rest_rolled"


def test_hur14_a_pending_fall_is_a_falling_badge_and_a_wait_of_the_catalogue() -> None:
    t = falling(4)
    assert "falling" in SYSTEM.summary(t, "c").badges
    assert "falling" not in SYSTEM.summary(run(t, TakeFall(char="c"), 6, 6).state, "c").badges
    assert SYSTEM.waits == (WAIT,)
    assert WAIT.field == "pending_fall" and set(WAIT.answers) == {"hursagmu.break_fall", "hursagmu.take_fall"}
