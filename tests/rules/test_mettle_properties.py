"""Property tests over any sequence of commands and clock advances
(MET-10, MET-14, MET-17, MET-18 timed behaviour; MET-20 finality)."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st
from mettle_helpers import advance, char, run, snapshot, table_of

from vigil.rules import engine
from vigil.rules.clock import HOUR
from vigil.rules.commands import CombatEnd, CombatStart, Command
from vigil.rules.dice import RandomDice
from vigil.rules.mettle import commands as c
from vigil.rules.mettle.rattle import rattle_now
from vigil.rules.mettle.state import MettleTable
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import Event, RuleError

CHARS = ("a", "b", "h", "d")
small = st.integers(min_value=1, max_value=6)
who = st.sampled_from(CHARS)

commands: st.SearchStrategy[Command | str] = st.one_of(
    st.builds(c.Pain, char=who, amount=small),
    st.builds(c.Heal, char=who, amount=small),
    st.builds(c.Rattle, char=who, amount=small),
    st.builds(c.Relieve, char=who, amount=small),
    st.builds(c.ShakeOff, char=who, effort=small),
    st.builds(c.Effort, char=who, effort=small),
    st.builds(c.InjuryAdd, char=who, penalty=st.integers(min_value=1, max_value=3)),
    st.builds(c.InjuryRemove, char=who, injury=st.sampled_from(["i1", "i2"])),
    st.builds(c.RestStart, char=who),
    st.builds(c.RestStop, char=who),
    st.builds(c.Strenuous, char=who),
    st.builds(
        c.Stabilize,
        char=who,
        helper=st.just("h"),
        discipline=st.just("survival"),
        kit=st.just("medkit"),
        tn=small,
    ),
    st.builds(c.StabilizeByFiat, char=who),
    st.builds(c.Check, char=who, stat=small, tn=small),
    st.just("combat"),
)
waits = st.sampled_from([0.5, 1.0, 3.0, 59.0, 600.0, 0.7 * HOUR, HOUR, 5 * HOUR, 30 * HOUR])
plans = st.lists(st.one_of(st.tuples(st.just("wait"), waits), commands), min_size=2, max_size=14)


def start() -> MettleTable:
    return table_of(
        {"lot_weights": {"crit": 1, "plain": 4, "fail": 1}},
        a={"mettle": 3, "pain": 2, "resting": True, "injuries": [{"id": "i1", "penalty": 2}]},
        b={"mettle": 70, "status": "dying", "pain": 72, "resting": True},
        h={"mettle": 4, "rattle": 30, "disciplines": {"survival": 2}, "kits": {"medkit": 3}},
        d={"mettle": 2, "status": "departed", "pain": 5},
    )


def play(plan: list[Any], splits: int, seed: int) -> tuple[MettleTable, list[Event]]:
    table = start()
    dice = RandomDice(seed)
    events: list[Event] = []
    for step in plan:
        if isinstance(step, tuple):
            target = table.clock.now + step[1]
            for k in range(1, splits + 1):
                to = target if k == splits else table.clock.now + step[1] / splits
                out = engine.advance(SYSTEM, table, to, _ctx(dice))
                table, events = out.state, events + out.events
            continue
        cmd = _command(table, step)
        try:
            out = run(table, cmd, dice)
        except RuleError as err:
            if step != "combat" and step.char == "d":  # type: ignore[union-attr]
                assert err.code == "final_state"
            continue
        table, events = out.state, events + out.events
        _check_invariants(table)
    return table, events


def _ctx(dice: RandomDice) -> Any:
    from mettle_helpers import ctx

    return ctx(dice)


def _command(table: MettleTable, step: Command | str) -> Command:
    if step == "combat":
        return CombatEnd() if table.clock.in_combat else CombatStart()
    assert isinstance(step, Command)
    return step


def _check_invariants(table: MettleTable) -> None:
    """Counters never go negative and the state always re-validates."""
    msgspec.convert(msgspec.to_builtins(table), MettleTable)
    for char_id, ch in table.characters.items():
        assert ch.pain >= 0 and ch.rattle >= 0 and rattle_now(ch, table.clock) >= 0
        assert all(i.penalty >= 1 for i in ch.injuries)
        assert all(uses >= 0 for uses in ch.kits.values())
        assert (ch.departs_at is not None) == (ch.status == "dying") or ch.status == "departed"
        assert not ch.stabilized or ch.status in ("dying", "departed")
        assert SYSTEM.derived(table, char_id)["rest_hours"] >= 0


@given(plan=plans, splits=st.integers(min_value=2, max_value=5), seed=st.integers(0, 3))
def test_met10_met14_met17_one_step_equals_many(plan: list[Any], splits: int, seed: int) -> None:
    """Advancing in one step or in many gives the same state and events,
    with the same dice (MET-10, MET-14, MET-17, MET-18 are clock functions)."""
    one_state, one_events = play(plan, 1, seed)
    many_state, many_events = play(plan, splits, seed)
    assert snapshot(one_state) == snapshot(many_state)
    assert one_events == many_events
    _check_invariants(one_state)


@given(plan=plans, seed=st.integers(0, 1000))
def test_met02_same_seed_same_rolls(plan: list[Any], seed: int) -> None:
    """MET-02: the same seed draws the same lots and so the same history."""
    assert play(plan, 1, seed)[1] == play(plan, 1, seed)[1]


@given(plan=plans)
def test_met20_final_stays_final(plan: list[Any]) -> None:
    """MET-20: a departed character stays departed under any command
    sequence (every command on it is refused); only correct/revive leave."""
    table, _ = play(plan, 1, 0)
    assert char(table, "d").status == "departed"
    for ch in table.characters.values():
        if ch.status == "departed":
            assert not ch.resting
    revived = run(table, engine.Revive(char="d", fields={"status": "active", "pain": 0}))
    assert char(revived.state, "d").status == "active"


def test_met20_revive_refusals() -> None:
    table = start()
    try:
        run(table, engine.Revive(char="a", fields={"pain": 0}))
    except RuleError as err:
        assert err.code == "not_final"
    else:  # pragma: no cover
        raise AssertionError("revive of a living character must be refused")


def test_met10_one_step_equals_many_for_a_worked_day() -> None:
    """A concrete day: dying, stabilized, resting, rattled — second by
    second equals one jump."""
    table = start()
    table = run(table, c.Rattle(char="a", amount=4)).state
    table = run(table, c.StabilizeByFiat(char="b")).state
    table = run(table, c.Pain(char="h", amount=5)).state
    one_step = advance(table, 2 * HOUR)
    stepped = table
    events: list[Event] = []
    for t in range(60, int(2 * HOUR) + 1, 60):
        out = advance(stepped, float(t))
        stepped, events = out.state, events + out.events
    assert snapshot(one_step.state) == snapshot(stepped)
    assert one_step.events == events
    assert char(stepped, "h").status == "departed"
    assert char(stepped, "b").pain == 70
    assert {e.code for e in events} >= {"rattle_gone", "rest_hour", "departed", "no_longer_dying"}
