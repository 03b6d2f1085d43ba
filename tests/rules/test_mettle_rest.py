"""Injuries (MET-16), adequate rest (MET-17), respite (MET-18), recovery
waking (MET-19)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mettle_helpers import advance, char, codes, one, refused, run, table_of

from vigil.rules.clock import HOUR, MINUTE
from vigil.rules.commands import CombatStart, Correct
from vigil.rules.mettle import commands as c
from vigil.rules.mettle.state import MettleTable
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import RuleError


def resting(**sheet: Any) -> MettleTable:
    table = table_of(a={"mettle": 5, **sheet})
    return run(table, c.RestStart(char="a")).state


def test_met16_injuries_tracked_individually_with_stable_ids() -> None:
    """MET-16: each injury has its own penalty; ids are never reused."""
    table = table_of(a={"mettle": 5})
    table = run(table, c.InjuryAdd(char="a", label="broken arm", penalty=2)).state
    out = run(table, c.InjuryAdd(char="a", label="sprain", penalty=1))
    assert one(out.events, "injury_added").params == {"id": "i2", "label": "sprain", "penalty": 1}
    out = run(out.state, c.InjuryRemove(char="a", injury="i1"))
    assert one(out.events, "injury_removed").params == {"id": "i1", "label": "broken arm"}
    out = run(out.state, c.InjuryAdd(char="a", label="cut", penalty=3))
    assert [i.id for i in char(out.state).injuries] == ["i2", "i3"]
    assert SYSTEM.derived(out.state, "a")["injury_penalty"] == 4
    out = run(out.state, c.InjuryReduce(char="a", injury="i3", amount=1))
    assert one(out.events, "injury_reduced").params["penalty"] == 2
    out = run(out.state, c.InjuryReduce(char="a", injury="i3", amount=5))
    assert codes(out.events) == ["injury_removed"]
    with pytest.raises(RuleError) as err:
        run(out.state, c.InjuryRemove(char="a", injury="i3"))
    assert err.value.code == "unknown_injury"


def test_met17_one_pain_per_full_hour_seed() -> None:
    """Seed: "For each hour of Adequate Rest, you remove one Pain"."""
    table = resting(pain=3)
    out = advance(table, HOUR - 1)
    assert char(out.state).pain == 3
    out = advance(table, 2.5 * HOUR)
    assert char(out.state).pain == 1
    assert [e.at for e in out.events if e.code == "rest_hour"] == [HOUR, 2 * HOUR]
    assert SYSTEM.derived(out.state, "a")["rest_hours"] == 2
    assert SYSTEM.summary(out.state, "a").badges == ["resting"]


def test_met17_interruptions_restart_the_hour_but_keep_recovered_pain() -> None:
    """MET-17: strenuous activity or new pain, rattle or injury restarts the
    current hour and the respite count; pain already recovered stays."""
    for cmd in (
        c.Strenuous(char="a", reason="hindrance"),
        c.Strenuous(char="a", reason="faster_than_stride"),
        c.Pain(char="a", amount=1),
        c.Rattle(char="a", amount=1),
        c.InjuryAdd(char="a", penalty=1),
    ):
        table = advance(resting(pain=3), 1.5 * HOUR).state
        assert char(table).pain == 2
        out = run(table, cmd)
        event = one(out.events, "rest_interrupted")
        assert (event.rule, event.params["hours"]) == ("MET-17", 1)
        pain = char(out.state).pain
        assert char(out.state).resting
        later = advance(out.state, 2.4 * HOUR)
        assert char(later.state).pain == pain  # the hour started over at 1.5 h
        later = advance(out.state, 2.5 * HOUR)
        assert char(later.state).pain == pain - 1


def test_met17_checks_and_combat_do_not_interrupt() -> None:
    """MET-17: checks and downtime do not interrupt; nor does combat by itself."""
    table = advance(resting(pain=3), 0.5 * HOUR).state
    table = run(table, c.Check(char="a", stat=3, tn=2)).state
    table = run(table, CombatStart()).state
    table = run(table, c.Heal(char="a", amount=1)).state
    out = advance(table, HOUR)
    assert char(out.state).pain == 1
    assert "rest_interrupted" not in codes(out.events)


def test_met17_start_stop_and_refusals() -> None:
    table = resting(pain=2)
    refused(table, c.RestStart(char="a"), "already_resting")
    out = run(advance(table, 1.2 * HOUR).state, c.RestStop(char="a"))
    assert one(out.events, "rest_stopped").params == {"hours": 1}
    stopped = out.state
    assert advance(stopped, 10 * HOUR).events == []
    for cmd in (c.RestStop(char="a"), c.Strenuous(char="a")):
        refused(stopped, cmd, "not_resting")


def test_met18_respite_after_24_uninterrupted_hours() -> None:
    """MET-18: after 24 uninterrupted hours each injury −1 (removed at 0);
    pain keeps dropping hourly meanwhile; continued rest counts again."""
    injuries = [{"id": "i1", "penalty": 1}, {"id": "i2", "penalty": 3}]
    table = resting(pain=2, injuries=injuries)
    out = advance(table, 24 * HOUR - 1)
    assert char(out.state).pain == 0
    assert [i.penalty for i in char(out.state).injuries] == [1, 3]
    out = advance(table, 24 * HOUR)
    respite = one(out.events, "respite")
    assert (respite.at, respite.rule) == (24 * HOUR, "MET-18")
    assert respite.params == {"injuries": [{"id": "i2", "penalty": 2}], "removed": ["i1"]}
    out = advance(table, 72 * HOUR)
    assert char(out.state).injuries == []
    assert codes(out.events).count("respite") == 3
    assert SYSTEM.derived(out.state, "a")["hours_toward_respite"] == 0


def test_met18_interruption_restarts_the_respite_count() -> None:
    """MET-18 Decision: "a full 24 hours" read as uninterrupted."""
    table = resting(injuries=[{"id": "i1", "penalty": 2}])
    table = advance(table, 20 * HOUR).state
    assert SYSTEM.derived(table, "a")["hours_toward_respite"] == 20
    table = run(table, c.Strenuous(char="a")).state
    assert SYSTEM.derived(table, "a")["next_respite_at"] == 44 * HOUR
    out = advance(table, 43 * HOUR)
    assert "respite" not in codes(out.events)
    out = advance(table, 44 * HOUR)
    assert char(out.state).injuries[0].penalty == 1


def test_met18_respite_during_painful_hours_fires_with_the_hour() -> None:
    table = resting(pain=30, injuries=[{"id": "i1", "penalty": 2}])
    out = advance(table, 24 * HOUR)
    assert codes(out.events)[-2:] == ["rest_hour", "respite"]
    assert char(out.state).pain == 6


def test_met19_rest_wakes_unconscious_below_mettle() -> None:
    """MET-19 → MET-08: rest lowering pain below mettle wakes."""
    table = resting(status="unconscious", pain=6)
    out = advance(table, 2 * HOUR)
    assert codes(out.events) == ["rest_hour", "rest_hour", "regained_consciousness"]
    assert one(out.events, "regained_consciousness").rule == "MET-19"
    assert char(out.state).status == "active"


def test_met19_rest_wasted_while_dying_unstabilized_works_once_stabilized() -> None:
    """MET-19 → MET-12: no recovery while dying unstabilized; normal once
    stabilized (equal to mettle: no longer dying but unconscious)."""
    table = resting(mettle=70, status="dying", pain=72)
    out = advance(table, HOUR)
    assert codes(out.events) == ["rest_hour_wasted"]
    assert char(out.state).pain == 72
    table = run(out.state, c.StabilizeByFiat(char="a", means="magic")).state
    out = advance(table, 3 * HOUR)
    assert codes(out.events) == ["rest_hour", "rest_hour", "no_longer_dying"]
    assert char(out.state).status == "unconscious"
    out = advance(out.state, 4 * HOUR)
    assert char(out.state).status == "active"


def test_met17_rest_stays_bounded_without_pain_or_injuries() -> None:
    """A year of painless rest needs no effects at all; with injuries only
    one per day."""
    table = resting()
    assert list(SYSTEM.due(table)) == []
    assert advance(table, 365 * 24 * HOUR).events == []
    table = resting(injuries=[{"id": "i1", "penalty": 400}])
    out = advance(table, 365 * 24 * HOUR)
    assert codes(out.events) == ["respite"] * 365


def test_met17_pain_corrected_in_after_idle_hours_counts_from_now() -> None:
    """Hours that passed with nothing to recover are not replayed later."""
    table = advance(resting(), 5.5 * HOUR).state
    table = run(table, Correct(char="a", field="pain", value=2)).state
    assert SYSTEM.derived(table, "a")["next_rest_hour_at"] == 6 * HOUR
    out = advance(table, 6 * HOUR)
    assert char(out.state).pain == 1


def test_met17_rest_hour_at_quarter_minute_offsets() -> None:
    table = table_of(a={"mettle": 5, "pain": 2})
    table.clock.now = 0.1 + 7 * MINUTE
    table = run(table, c.RestStart(char="a")).state
    out = advance(table, 0.1 + 7 * MINUTE + HOUR)
    assert char(out.state).pain == 1


def test_met17_simultaneous_hours_of_two_characters_both_apply() -> None:
    """Regression: an hour ending at the same time for two characters is
    applied to both (the first one's effect must not hide the second's)."""
    table = table_of(a={"mettle": 5, "pain": 3}, b={"mettle": 5, "pain": 3})
    table = run(table, c.RestStart(char="a")).state
    table = run(table, c.RestStart(char="b")).state
    out = advance(table, 2 * HOUR)
    assert (char(out.state, "a").pain, char(out.state, "b").pain) == (1, 1)


@given(
    offsets=st.lists(st.integers(min_value=0, max_value=7200), min_size=1, max_size=4),
    pain=st.integers(min_value=0, max_value=30),
    hours=st.floats(min_value=0, max_value=40, allow_nan=False),
)
def test_met17_property_every_full_hour_recovers_one_pain(
    offsets: list[int], pain: int, hours: float
) -> None:
    """MET-17: after T of uninterrupted rest, pain is down by floor(T / 1 h)
    for every resting character, whatever the other characters do."""
    sheets = {f"c{i}": {"mettle": 40, "pain": pain} for i in range(len(offsets))}
    table = table_of(**sheets)
    starts = {}
    for i, offset in sorted(enumerate(offsets), key=lambda x: x[1]):
        table = advance(table, float(offset)).state
        table = run(table, c.RestStart(char=f"c{i}")).state
        starts[f"c{i}"] = float(offset)
    end = 7200.0 + hours * HOUR
    table = advance(table, end).state
    for char_id, since in starts.items():
        expected = max(0, pain - int((end - since) // HOUR))
        assert char(table, char_id).pain == expected
