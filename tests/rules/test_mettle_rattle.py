"""Rattle (MET-04, MET-13, MET-14, MET-15)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mettle_helpers import advance, char, codes, one, refused, run, snapshot, table_of

from vigil.rules.commands import CombatEnd, CombatStart, Command
from vigil.rules.mettle import commands as c
from vigil.rules.mettle.state import MettleTable
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import Event, RuleError


def rattled(amount: int, **sheet: Any) -> MettleTable:
    table = table_of(a={"mettle": 5, **sheet})
    return run(table, c.Rattle(char="a", amount=amount)).state


def test_met14_wears_off_one_per_second_out_of_combat_seed() -> None:
    """Seed: "Characters recover from Rattle very quickly outside of combat –
    remove one Rattle per second." One event when it reaches 0."""
    table = rattled(5)
    assert SYSTEM.derived(table, "a")["rattle_zero_at"] == 5.0
    mid = advance(table, 2.5)
    assert mid.events == []
    assert SYSTEM.derived(mid.state, "a")["rattle"] == 3
    out = advance(table, 100.0)
    event = one(out.events, "rattle_gone")
    assert (event.at, event.rule) == (5.0, "MET-14")
    assert char(out.state).rattle == 0
    assert SYSTEM.derived(out.state, "a")["rattle_zero_at"] is None


def test_met14_frozen_in_combat_and_resumes_after() -> None:
    """MET-14: no wear-off while in combat; it resumes when combat ends."""
    table = rattled(5)
    table = advance(table, 2.0).state
    table = run(table, CombatStart()).state
    assert char(table).rattle == 3
    out = advance(table, 500.0)
    assert out.events == []
    assert SYSTEM.derived(out.state, "a")["rattle"] == 3
    table = run(out.state, CombatEnd()).state
    assert SYSTEM.derived(table, "a")["rattle_zero_at"] == 503.0
    out = advance(table, 600.0)
    assert one(out.events, "rattle_gone").at == 503.0


def test_met14_part_second_keeps_counting_across_commands() -> None:
    """A command in between never slows the wear-off."""
    table = rattled(3)
    table = advance(table, 1.5).state
    table = run(table, c.Rattle(char="a", amount=2)).state
    assert char(table).rattle == 4
    assert SYSTEM.derived(table, "a")["rattle_zero_at"] == 5.0


def test_met04_rattle_penalizes_checks_but_not_tym() -> None:
    """MET-04: subtracted from checks, offensive, defensive and passive — not TYM."""
    table = rattled(2)
    for kind in ("check", "offensive", "defensive", "passive"):
        out = run(table, c.Check(char="a", stat=5, tn=4, kind=kind))  # type: ignore[arg-type]
        params = one(out.events, "check").params
        assert (params["rattle_penalty"], params["total"], params["passed"]) == (2, 3, False)
    out = run(table, c.Check(char="a", stat=5, tn=4, kind="tym"))
    assert one(out.events, "check").params["passed"] is True


def test_met13_shake_off_removes_n_for_n_effort_not_below_zero() -> None:
    """MET-13: "reducing it by one for every Effort spent to shake it off"."""
    table = rattled(5)
    out = run(table, c.ShakeOff(char="a", effort=2))
    assert char(out.state).rattle == 3
    assert one(out.events, "rattle_shaken").params == {"amount": 2, "removed": 2, "rattle": 3}
    out = run(out.state, c.ShakeOff(char="a", effort=9))
    assert codes(out.events) == ["rattle_shaken", "rattle_gone"]
    assert char(out.state).rattle == 0


def test_met13_other_effort_one_per_four_with_leftover() -> None:
    """MET-13: 1 rattle per 4 Effort on other activity; leftover carries over
    and is dropped when rattle reaches 0."""
    table = run(table_of(a={"mettle": 5}), CombatStart()).state
    table = run(table, c.Rattle(char="a", amount=3)).state
    out = run(table, c.Effort(char="a", effort=6))
    assert (char(out.state).rattle, char(out.state).effort_toward_rattle) == (2, 2)
    out = run(out.state, c.Effort(char="a", effort=3))
    assert (char(out.state).rattle, char(out.state).effort_toward_rattle) == (1, 1)
    out = run(out.state, c.Effort(char="a", effort=7))
    assert (char(out.state).rattle, char(out.state).effort_toward_rattle) == (0, 0)
    assert codes(out.events) == ["effort_spent", "rattle_gone"]
    assert one(out.events, "rattle_gone").rule == "MET-13"
    # Decision: Effort while not rattled does not bank.
    out = run(out.state, c.Effort(char="a", effort=3))
    assert one(out.events, "effort_spent").params["removed"] == 0
    assert char(out.state).effort_toward_rattle == 0


def test_met13_leftover_dropped_when_rattle_wears_off() -> None:
    table = rattled(3)
    table = run(table, c.Effort(char="a", effort=3)).state
    assert char(table).effort_toward_rattle == 3
    out = advance(table, 10.0)
    assert char(out.state).effort_toward_rattle == 0


def test_met13_unconscious_cannot_shake_off_or_spend_effort() -> None:
    """MET-07/MET-13: shaking off is an action; the unconscious cannot act."""
    table = rattled(3, status="unconscious")
    for cmd in (c.ShakeOff(char="a", effort=1), c.Effort(char="a", effort=4)):
        refused(table, cmd, "cannot_act")


def test_met15_relieve_and_not_rattled() -> None:
    """MET-15: one number, up and down, never below 0."""
    table = rattled(2)
    table = run(table, c.Rattle(char="a", amount=3)).state
    assert char(table).rattle == 5
    out = run(table, c.Relieve(char="a", amount=9))
    assert one(out.events, "rattle_relieved").params["removed"] == 5
    assert char(out.state).rattle == 0
    for cmd in (c.Relieve(char="a", amount=1), c.ShakeOff(char="a", effort=1)):
        before = snapshot(out.state)
        with pytest.raises(RuleError) as err:
            run(out.state, cmd)
        assert err.value.code == "not_rattled"
        assert snapshot(out.state) == before


def test_met14_combat_start_exactly_at_zero_records_it() -> None:
    """A combat start on a table not advanced yet still records rattle's end."""
    table = rattled(2)
    table.clock.now = 7.0
    out = run(table, CombatStart())
    assert codes(out.events) == ["combat_started", "rattle_gone"]


# --- property: one step equals many, across combat start/end commands ----

Step = tuple[str, Any]

steps = st.lists(
    st.one_of(
        st.tuples(st.just("wait"), st.floats(min_value=0, max_value=20, allow_nan=False)),
        st.tuples(st.just("rattle"), st.integers(min_value=1, max_value=15)),
        st.tuples(st.just("effort"), st.integers(min_value=1, max_value=9)),
        st.tuples(st.just("combat"), st.none()),
    ),
    max_size=12,
)


def _command(table: MettleTable, kind: str, value: Any) -> Command | None:
    if kind == "rattle":
        return c.Rattle(char="a", amount=value)
    if kind == "effort":
        return c.Effort(char="a", effort=value)
    return CombatEnd() if table.clock.in_combat else CombatStart()


def _play(plan: list[Step], splits: list[int]) -> tuple[bytes, list[Event]]:
    table = table_of(a={"mettle": 5}, b={"mettle": 5, "rattle": 7})
    events: list[Event] = []
    for i, (kind, value) in enumerate(plan):
        if kind == "wait":
            target = table.clock.now + value
            parts = splits[i % len(splits)] if splits else 1
            for k in range(1, parts + 1):
                to = target if k == parts else table.clock.now + value / parts
                out = advance(table, min(to, target))
                table, events = out.state, events + out.events
        else:
            cmd = _command(table, kind, value)
            assert cmd is not None
            out = run(table, cmd)
            table, events = out.state, events + out.events
        assert char(table).rattle >= 0
    return snapshot(table), events


@given(plan=steps, splits=st.lists(st.integers(min_value=1, max_value=7), max_size=5))
def test_met14_property_one_step_equals_many(plan: list[Step], splits: list[int]) -> None:
    """MET-14: advancing in one step or many gives the same state and events,
    with combat starts and ends in between."""
    assert _play(plan, []) == _play(plan, splits)


def test_met14_rattle_without_anchor_is_as_given() -> None:
    """A Character built directly (before validation fills the anchor)."""
    from vigil.rules.clock import GameClock
    from vigil.rules.mettle import rattle as r
    from vigil.rules.mettle.state import Character

    ch = Character(mettle=1, rattle=3)
    assert r.rattle_now(ch, GameClock(now=50.0)) == 3
    assert r.zero_at(ch, GameClock(now=50.0)) is None
