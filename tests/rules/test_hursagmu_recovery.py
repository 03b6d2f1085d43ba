"""HUR-09 daily recovery, HUR-10 rest conditions, HUR-11 the healer."""

from __future__ import annotations

import pytest
from hursagmu_helpers import SYSTEM, add, advance, codes, new_table, one, refused, run

from vigil.rules.clock import DAY, HOUR
from vigil.rules.hursagmu.commands import Harm, Heal, Morning, SetRest
from vigil.rules.hursagmu.state import HursagmuTable, RestTerms


def juk() -> HursagmuTable:
    return add(new_table(), "juk", name="Juk", traits={"constitution": 6}, wounds=10)


def test_hur09_juks_week_worked_example() -> None:
    """HUR-09 seed example: 10 wounds, 13 → 7; next day 14 → 0; then 19
    wounds, 13 → no change; a natural 12 (18) → 18."""
    t = advance(juk(), 1 * DAY + 7 * HOUR).state  # Tuesday morning
    out = run(t, Morning(char="juk"), 3, 4)
    rolled = one(out.events, "recovery_rolled")
    assert rolled.rule == "HUR-09"
    assert rolled.params["faces"] == [3, 4]
    assert (rolled.params["total"], rolled.params["dx"]) == (13, 3)
    assert out.state.characters["juk"].wounds == 7

    t = advance(out.state, 2 * DAY + 7 * HOUR).state  # Wednesday
    out = run(t, Morning(char="juk"), 6, 2)
    assert one(out.events, "recovery_rolled").params["dx"] == 7
    assert out.state.characters["juk"].wounds == 0

    t = advance(out.state, 3 * DAY + 15 * HOUR).state  # Thursday: the bear
    t = run(t, Harm(char="juk", wounds=19)).state
    t = advance(t, 4 * DAY + 7 * HOUR).state  # Friday
    out = run(t, Morning(char="juk"), 3, 4)
    rolled = one(out.events, "recovery_rolled")
    assert (rolled.params["total"], rolled.params["success"]) == (13, False)
    assert out.state.characters["juk"].wounds == 19

    t = advance(out.state, 5 * DAY + 7 * HOUR).state  # Saturday
    out = run(t, Morning(char="juk"), 6, 6)
    rolled = one(out.events, "recovery_rolled")
    assert (rolled.params["total"], rolled.params["dx"]) == (18, 1)
    assert out.state.characters["juk"].wounds == 18


def test_hur11_sarah_heals_juk_worked_example() -> None:
    """HUR-11 seed example: Sarah (healer 10) rolls 20 against Juk's 18
    wounds → 16, after his natural recovery of the day."""
    t = add(juk(), "sarah", traits={"healer": 10})
    t = run(t, Harm(char="juk", wounds=8)).state  # 18 wounds
    t = advance(t, 5 * DAY).state
    t = run(t, Morning(char="juk"), 1, 3).state  # 10 vs 18: no change
    out = run(t, Heal(patient="juk", healer="sarah"), 5, 5)
    healed = one(out.events, "healer_rolled")
    assert healed.params["total"] == 20
    assert healed.params["wounds"] == {"target": 18, "success": True, "dx": 2, "after": 16}
    assert out.state.characters["juk"].wounds == 16


def test_hur11_one_total_against_wounds_and_shocks_separately() -> None:
    t = add(new_table(), "pat", traits={"constitution": 0, "willpower": 0}, wounds=12, shocks=5)
    t = run(t, Morning(char="pat"), 1, 2, 1, 2).state  # both fail
    out = run(t, Heal(patient="pat", healer_level=4), 4, 5)  # 13
    ch = out.state.characters["pat"]
    assert (ch.wounds, ch.shocks) == (11, 0)
    assert one(out.events, "level_healer_rolled").params["shocks"]["dx"] == 8
    assert codes(out.events) == ["level_healer_rolled"]  # 11 wounds: still seriously injured


def test_hur11_only_wounds_when_no_shocks() -> None:
    t = add(new_table(), "pat", wounds=15)
    t = run(t, Morning(char="pat"), 1, 2).state
    out = run(t, Heal(patient="pat", healer_level=0), 1, 1)  # natural 2
    assert "shocks" not in one(out.events, "level_healer_rolled").params
    assert out.state.characters["pat"].wounds == 15
    assert out.state.characters["pat"].healed_day == 0


def test_hur11_refusals() -> None:
    t = add(juk(), "sarah", traits={"healer": 10})
    t = add(t, "bob")
    refused(t, Heal(patient="juk", healer="sarah"), "recovery_first")
    refused(t, Heal(patient="juk"), "healer_choice")
    refused(t, Heal(patient="juk", healer="sarah", healer_level=3), "healer_choice")
    refused(t, Heal(patient="juk", healer="nobody"), "unknown_character")
    t = run(t, Morning(char="juk"), 1, 2).state
    refused(t, Heal(patient="juk", healer="bob"), "not_a_healer")
    knocked = run(t, Harm(char="sarah", stuns=10)).state
    refused(knocked, Heal(patient="juk", healer="sarah"), "unconscious")
    once = run(t, Heal(patient="juk", healer="sarah"), 1, 2).state
    refused(once, Heal(patient="juk", healer_level=5), "already_healed")
    t = run(t, Morning(char="bob")).state
    refused(t, Heal(patient="bob", healer="sarah"), "nothing_to_heal")


def test_hur11_healer_may_heal_again_next_day() -> None:
    t = add(juk(), "sarah", traits={"healer": 10})
    t = run(t, Morning(char="juk"), 1, 2).state
    t = run(t, Heal(patient="juk", healer="sarah"), 1, 2).state
    t = advance(t, DAY).state
    t = run(t, Morning(char="juk"), 1, 2).state  # 9 vs 7: dx 2 → 5
    out = run(t, Heal(patient="juk", healer="sarah"), 1, 2)  # 13 vs 5
    assert (out.state.characters["juk"].wounds, out.state.characters["juk"].healed_day) == (0, 1)
    assert codes(out.events) == ["healer_rolled"]


def test_hur09_shocks_roll_willpower_and_both_roll_once_each() -> None:
    t = add(new_table(), "c", traits={"constitution": 2, "willpower": 5}, wounds=4, shocks=6)
    out = run(t, Morning(char="c"), 1, 2, 3, 3)
    wound_roll, shock_roll = (e for e in out.events if e.code == "recovery_rolled")
    assert (wound_roll.params["trait"], wound_roll.params["after"]) == ("constitution", 3)
    assert (shock_roll.params["trait"], shock_roll.params["total"]) == ("willpower", 11)
    assert out.state.characters["c"].shocks == 1


def test_hur09_nothing_to_recover_rolls_no_dice() -> None:
    out = run(add(new_table(), "c"), Morning(char="c"))
    assert codes(out.events) == ["nothing_to_recover"]
    assert out.state.characters["c"].recovered_day == 0


def test_hur09_once_per_day() -> None:
    t = run(juk(), Morning(char="juk"), 1, 2).state
    refused(t, Morning(char="juk"), "already_recovered", 1, 2)
    out = run(t, Morning())
    assert codes(out.events) == ["recovery_skipped"]


def test_hur09_morning_for_all_in_id_order_skipping_the_dead() -> None:
    t = add(new_table(), "b", wounds=3)
    t = add(t, "a", wounds=3)
    t = add(t, "dead", wounds=25)
    out = run(t, Morning(), 1, 2, 6, 6)
    assert [e.char for e in out.events] == ["a", "b"]
    assert out.state.characters["b"].wounds == 0
    assert out.state.characters["dead"].recovered_day is None


def test_hur10_difficulty_increase_raises_the_target() -> None:
    t = juk()
    out = run(t, Morning(char="juk", rest={"juk": RestTerms(wound_difficulty=2)}), 3, 4)
    rolled = one(out.events, "recovery_rolled")
    assert (rolled.params["target"], rolled.params["dx"]) == (12, 1)
    assert out.state.characters["juk"].wounds == 9


def test_hur10_shock_difficulty_for_deep_thinking() -> None:
    t = add(new_table(), "c", traits={"willpower": 4}, shocks=8)
    out = run(t, Morning(char="c", rest={"c": RestTerms(shock_difficulty=3)}), 4, 4)
    assert one(out.events, "recovery_rolled").params["target"] == 11
    assert out.state.characters["c"].shocks == 7


def test_hur10_spoiled_rest_prevents_all_healing_that_morning() -> None:
    t = add(juk(), "sarah", traits={"healer": 10})
    out = run(t, Morning(rest={"juk": RestTerms(spoiled=True)}))
    assert codes(out.events) == ["rest_spoiled", "nothing_to_recover"]
    assert out.state.characters["juk"].wounds == 10
    refused(out.state, Heal(patient="juk", healer="sarah"), "rest_spoiled")
    t = advance(out.state, DAY).state  # the next good night heals again
    assert run(t, Morning(char="juk"), 6, 6).state.characters["juk"].wounds == 2


def test_hur10_rest_terms_set_during_the_night_are_used_once() -> None:
    t = run(juk(), SetRest(char="juk", wound_difficulty=1)).state
    assert t.characters["juk"].rest.wound_difficulty == 1
    out = run(t, Morning(char="juk"), 3, 4)
    assert one(out.events, "recovery_rolled").params["target"] == 11
    assert out.state.characters["juk"].rest == RestTerms()


def test_hur10_yesterdays_fight_does_not_spoil_todays_rest() -> None:
    """Juk fights a bear on Thursday and still rolls Friday: only the rest's
    own terms count."""
    t = advance(juk(), 3 * DAY + 15 * HOUR).state
    t = run(t, Harm(char="juk", wounds=9)).state
    t = advance(t, 4 * DAY + 7 * HOUR).state
    assert codes(run(t, Morning(char="juk"), 3, 4).events) == ["recovery_rolled"]


def test_hur10_morning_refuses_terms_for_unknown_or_other_characters() -> None:
    t = add(juk(), "other")
    refused(t, Morning(char="juk", rest={"nobody": RestTerms()}), "unknown_character")
    refused(t, Morning(char="juk", rest={"other": RestTerms()}), "rest_terms_other")


def test_hur09_wake_hour_option_recovers_every_character_at_that_hour() -> None:
    t = add(new_table(wake_hour=7), "juk", traits={"constitution": 6}, wounds=10)
    t = add(t, "amy", shocks=2, traits={"willpower": 3})
    out = advance(t, 6 * HOUR)
    assert out.events == []
    out = advance(out.state, 8 * HOUR, 3, 4, 3, 4)  # amy then juk
    assert [(e.char, e.at) for e in out.events if e.code == "recovery_rolled"] == [
        ("amy", 7 * HOUR),
        ("juk", 7 * HOUR),
    ]
    assert out.state.characters["juk"].wounds == 7
    # A manual morning for that day is now refused: once per day.
    refused(out.state, Morning(char="juk"), "already_recovered")


def test_hur09_wake_hour_skips_a_character_that_already_recovered_today() -> None:
    t = add(new_table(wake_hour=7), "juk", traits={"constitution": 6}, wounds=10)
    t = run(t, Morning(char="juk"), 3, 4).state  # at 00:00, before the hour
    out = advance(t, DAY + 6 * HOUR)
    assert out.events == []
    assert SYSTEM_due_times(out.state) == [DAY + 7 * HOUR]


def test_hur09_wake_hour_already_passed_waits_for_tomorrow() -> None:
    t = advance(new_table(wake_hour=7), 9 * HOUR).state
    t = add(t, "late", wounds=1)
    assert SYSTEM_due_times(t) == [DAY + 7 * HOUR]


def test_hur09_derived_next_recovery_roll_is_the_next_waking_that_rolls() -> None:
    """What a page counts down to: the clock's next waking, while it will
    roll dice (wounds or shocks, a night not spoiled); None otherwise."""
    t = add(new_table(wake_hour=7), "juk", traits={"constitution": 6}, wounds=10)
    t = add(t, "whole", traits={"constitution": 6})
    assert SYSTEM.derived(t, "juk")["next_recovery_at"] == 7 * HOUR
    assert SYSTEM.derived(t, "whole")["next_recovery_at"] is None, "nothing to recover: no roll"
    t = advance(t, 8 * HOUR, 3, 4).state
    assert SYSTEM.derived(t, "juk")["next_recovery_at"] == DAY + 7 * HOUR
    spoiled = run(t, SetRest(char="juk", spoiled=True)).state
    assert SYSTEM.derived(spoiled, "juk")["next_recovery_at"] is None
    assert SYSTEM.derived(add(new_table(), "w", wounds=3), "w")["next_recovery_at"] is None, "no wake hour"


def test_hur09_wake_hour_uses_the_nights_rest_terms() -> None:
    t = add(new_table(wake_hour=7), "juk", traits={"constitution": 6}, wounds=10)
    t = run(t, SetRest(char="juk", spoiled=True)).state
    out = advance(t, 7 * HOUR)
    assert codes(out.events) == ["rest_spoiled"]


@pytest.mark.parametrize(
    "cmd", [Morning(char="gone"), SetRest(char="gone"), Heal(patient="gone", healer_level=1)]
)
def test_hur09_unknown_character_refused(cmd: Morning | SetRest | Heal) -> None:
    refused(new_table(), cmd, "unknown_character")


def test_hur05_dead_character_gets_no_recovery_or_healing() -> None:
    t = add(new_table(), "d", wounds=20)
    refused(t, Morning(char="d"), "final_state")
    refused(t, Heal(patient="d", healer_level=10), "final_state")
    refused(t, SetRest(char="d"), "final_state")


def SYSTEM_due_times(t: HursagmuTable) -> list[float]:
    from vigil.rules.hursagmu.system import SYSTEM

    return sorted(d.time for d in SYSTEM.due(t))
