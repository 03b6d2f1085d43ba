"""HUR-07 resting off stuns, HUR-08 the unconscious character's rest."""

from __future__ import annotations

from hursagmu_helpers import SYSTEM, add, advance, codes, ctx, new_table, one, refused, run

from vigil.rules import engine
from vigil.rules.commands import CombatEnd, CombatStart, Command, Correct, NextRound
from vigil.rules.engine import Outcome
from vigil.rules.hursagmu.commands import Harm, RestAction, TraitRollCmd
from vigil.rules.hursagmu.rest import recovery_trait
from vigil.rules.hursagmu.state import Character, HursagmuTable


def common(t: HursagmuTable, cmd: Command, *faces: int) -> Outcome[HursagmuTable]:
    """An engine command (combat), with the faces the game's hooks draw."""
    return run(t, cmd, *faces)


def test_hur07_rest_rolls_the_higher_of_constitution_and_willpower() -> None:
    t = add(new_table(), "c", traits={"constitution": 3, "willpower": 5}, stuns=5)
    out = run(t, RestAction(char="c"), 2, 3)  # 10 vs 5: dx 5
    event = one(out.events, "rest_rolled")
    assert (event.rule, event.params["trait"], event.params["after"]) == ("HUR-07", "willpower", 0)
    assert out.state.characters["c"].stuns == 0


def test_hur07_failure_removes_nothing_and_stuns_never_go_negative() -> None:
    t = add(new_table(), "c", traits={"constitution": 1}, stuns=9)
    assert run(t, RestAction(char="c"), 2, 3).state.characters["c"].stuns == 9
    t = add(new_table(), "c", traits={"constitution": 8}, stuns=2)
    assert run(t, RestAction(char="c"), 6, 6).state.characters["c"].stuns == 0


def test_hur07_recovery_trait_tie_is_constitution() -> None:
    assert recovery_trait(Character(traits={"constitution": 4, "willpower": 4})) == "constitution"
    assert recovery_trait(Character()) == "constitution"


def test_hur07_refusals() -> None:
    refused(add(new_table(), "c"), RestAction(char="c"), "no_stuns")
    refused(add(new_table(), "c", stuns=10), RestAction(char="c"), "unconscious", 3, 4)


def knocked_out(at: float = 100.0, con: int = 2) -> HursagmuTable:
    t = advance(add(new_table(), "c", traits={"constitution": con}), at).state
    return run(t, Harm(char="c", stuns=10)).state


def test_hur08_out_of_combat_rolls_one_round_after_falling() -> None:
    t = knocked_out()
    assert t.characters["c"].rest_next_at == 106.0
    assert advance(t, 105.9).events == []
    out = advance(t, 106, 3, 4, 5, 5)  # 9 vs 10 fails; 12 vs 10 wakes on roll 2
    rolls = [e for e in out.events if e.code == "rest_rolled"]
    assert [(e.at, e.rule, e.params["roll"]) for e in rolls] == [
        (106, "HUR-08", 1),
        (106, "HUR-08", 2),
    ]
    assert out.state.characters["c"].stuns == 8
    assert out.state.characters["c"].may_act_second is False
    assert one(out.events, "condition_ended").params["condition"] == "unconscious"
    assert SYSTEM.due(out.state) == []


def test_hur08_waking_on_the_first_roll_skips_the_second_and_may_act() -> None:
    out = advance(knocked_out(), 106, 6, 5)  # 13 vs 10: dx 3
    assert codes(out.events) == ["rest_rolled", "condition_ended"]
    assert out.state.characters["c"].may_act_second is True
    assert SYSTEM.derived(out.state, "c")["may_act_second"] is True
    # Taking that action spends it.
    t = add(out.state, "x")
    t = engine.apply(SYSTEM, t, Correct(char="c", field="traits", value={"lore": 1}), ctx()).state
    acted = run(t, TraitRollCmd(char="c", trait="lore", target=3, kind="mental"), 1, 2)
    assert acted.state.characters["c"].may_act_second is False


def test_hur08_still_unconscious_rests_again_every_six_seconds() -> None:
    out = advance(knocked_out(), 117, 1, 2, 1, 2, 1, 2, 1, 2)
    assert [e.at for e in out.events] == [106, 106, 112, 112]
    assert out.state.characters["c"].rest_next_at == 118
    out = advance(out.state, 118, 1, 2, 6, 6)  # 5 fails; 14 vs 10: dx 4, wakes
    assert out.state.characters["c"].stuns == 6
    assert out.state.characters["c"].may_act_second is False


def test_hur08_in_combat_the_gm_round_drives_the_rolls_not_the_clock() -> None:
    t = common(knocked_out(), CombatStart()).state
    assert t.characters["c"].rest_next_at is None
    assert advance(t, 500).events == []  # clock time in combat: no rest rolls
    t = advance(t, 500).state
    out = common(t, NextRound(), 1, 2, 1, 2)
    assert codes(out.events) == ["round_advanced", "rest_rolled", "rest_rolled"]
    assert out.events[1].rule == "HUR-08"
    out = common(out.state, NextRound(), 6, 5)
    assert out.state.characters["c"].may_act_second is True
    # The next round frees it again; a conscious character makes no rolls.
    out = common(out.state, NextRound())
    assert codes(out.events) == ["round_advanced"]
    assert out.state.characters["c"].may_act_second is False


def test_hur08_falling_unconscious_in_combat_schedules_no_clock_rest() -> None:
    t = common(add(new_table(), "c"), CombatStart()).state
    t = run(t, Harm(char="c", stuns=12)).state
    assert t.characters["c"].rest_next_at is None
    assert SYSTEM.due(t) == []


def test_hur08_combat_end_restarts_the_clock_rest_one_round_later() -> None:
    t = common(knocked_out(), CombatStart()).state
    t = advance(t, 300).state
    t = common(t, CombatEnd()).state
    assert t.characters["c"].rest_next_at == 306
    assert [d.rule for d in SYSTEM.due(t)] == ["HUR-08"]


def test_hur08_never_both_for_one_round() -> None:
    """A pending clock round is dropped when combat starts: the GM's next
    round is the only roll for that time."""
    t = advance(knocked_out(), 104).state
    t = common(t, CombatStart()).state
    out = advance(t, 106)
    assert out.events == []
    assert codes(common(out.state, NextRound(), 1, 2, 1, 2).events).count("rest_rolled") == 2


def test_hur08_combat_start_and_end_clear_second_actions() -> None:
    t = advance(knocked_out(), 106, 6, 5).state
    assert t.characters["c"].may_act_second
    t = common(t, CombatStart()).state
    assert not t.characters["c"].may_act_second


def test_hur08_unconscious_newcomer_and_corrections_schedule_rest() -> None:
    t = advance(new_table(), 50).state
    t = add(t, "c", stuns=11)
    assert t.characters["c"].rest_next_at == 56
    fixed = engine.apply(SYSTEM, t, Correct(char="c", field="stuns", value=0), ctx()).state
    assert fixed.characters["c"].rest_next_at is None
    again = engine.apply(SYSTEM, fixed, Correct(char="c", field="stuns", value=15), ctx()).state
    assert again.characters["c"].rest_next_at == 56


def test_hur08_more_harm_while_unconscious_keeps_the_schedule() -> None:
    t = advance(knocked_out(), 103).state
    t = run(t, Harm(char="c", stuns=3)).state
    assert t.characters["c"].rest_next_at == 106
