"""State validation, corrections, summaries and refusals (MET-16, MET-17,
MET-20 and the common rules)."""

from __future__ import annotations

from typing import Any

import pytest
from mettle_helpers import char, refused, run, table_of

from vigil.rules.clock import HOUR, MINUTE
from vigil.rules.commands import Correct, Revive
from vigil.rules.mettle import commands as c
from vigil.rules.mettle import rest
from vigil.rules.mettle.state import Character
from vigil.rules.mettle.system import MAX_DISCIPLINES, MAX_KITS, SYSTEM
from vigil.rules.outcome import RuleError


def test_met10_correcting_status_owns_its_fields() -> None:
    """A GM correction to dying starts the MET-10 clock; back to active clears it."""
    table = table_of(a={"mettle": 2, "pain": 3})
    table.clock.now = 30.0
    dying = run(table, Correct(char="a", field="status", value="dying")).state
    a = char(dying)
    assert (a.dying_since, a.departs_at, a.stabilized) == (30.0, 30.0 + 2 * MINUTE, False)
    stable = run(dying, Correct(char="a", field="stabilized", value=True)).state
    assert char(stable).stabilized_at == 30.0
    active = run(stable, Correct(char="a", field="status", value="active")).state
    a = char(active)
    assert (a.dying_since, a.departs_at, a.stabilized, a.stabilized_at) == (None, None, False, None)
    assert SYSTEM.summary(active, "a").badges == []
    gone = run(active, Correct(char="a", field="status", value="departed")).state
    assert char(gone).departed_at == 30.0
    assert SYSTEM.summary(gone, "a").badges == ["departed"]


def test_met20_revive_by_the_gm() -> None:
    """MET-20: only an explicit GM revive (or correction) leaves departed."""
    table = table_of(a={"mettle": 2, "status": "departed", "pain": 9})
    out = run(table, Revive(char="a", fields={"status": "unconscious", "pain": 2}))
    assert char(out.state).status == "unconscious"
    assert char(out.state).departed_at is None
    refused(table, Revive(char="a", fields={"pain": 2}), "final_state")


def test_met16_injury_ids_are_validated_and_never_reused() -> None:
    """MET-16: two injuries may not share an id; new ids follow the highest."""
    with pytest.raises(RuleError) as err:
        table_of(a={"mettle": 2, "injuries": [{"id": "x", "penalty": 1}] * 2})
    assert err.value.code == "bad_state"
    table = table_of(a={"mettle": 2, "injuries": [{"id": "i7", "penalty": 1}, {"id": "cut", "penalty": 1}]})
    out = run(table, c.InjuryAdd(char="a", penalty=1))
    assert char(out.state).injuries[-1].id == "i8"


def test_met17_rest_fields_follow_the_resting_flag() -> None:
    table = table_of(a={"mettle": 2, "resting": True})
    assert char(table).rest_since == 0.0
    out = run(table, Correct(char="a", field="resting", value=False))
    assert (char(out.state).rest_since, char(out.state).rest_hours) == (None, 0)
    derived = SYSTEM.derived(out.state, "a")
    assert derived["next_rest_hour_at"] is None and derived["next_respite_at"] is None


@pytest.mark.parametrize(
    ("since", "now", "hours"),
    [
        (7609624.449125756, 35466424.44912575, 7738),  # float division rounds down
        (5077172.505113161, 16276772.50511316, 3110),  # float division rounds up
    ],
)
def test_met17_hour_count_matches_boundaries_exactly(since: float, now: float, hours: int) -> None:
    """The count of full hours agrees with the hour boundaries themselves,
    so an hour is never applied twice or skipped by rounding."""
    ch = Character(mettle=1, resting=True, rest_since=since)
    assert rest.hours_done(ch, now) == hours
    assert rest.boundary(ch, hours) <= now < rest.boundary(ch, hours + 1)


def test_refusals_leave_the_state_unchanged() -> None:
    """Each refusal names its code; nothing changes."""
    table = table_of(a={"mettle": 2, "status": "unconscious", "pain": 1})
    cases: list[tuple[Any, str]] = [
        (c.Pain(char="zz", amount=1), "unknown_character"),
        (c.ShakeOff(char="a", effort=1), "cannot_act"),
        (c.InjuryReduce(char="a", injury="i1", amount=1), "unknown_injury"),
        (c.RestStop(char="a"), "not_resting"),
        (c.Stabilize(char="a", helper="zz", discipline="lore", kit="k", tn=1), "unknown_character"),
        (c.Stabilize(char="a", helper="a", discipline="lore", kit="k", tn=1), "not_dying"),
    ]
    for cmd, code in cases:
        assert refused(table, cmd, code).english()


def test_kits_and_disciplines_commands_and_limits() -> None:
    table = table_of(a={"mettle": 2})
    table = run(table, c.KitSet(char="a", kit="medkit", uses=2)).state
    table = run(table, c.DisciplineSet(char="a", discipline="survival", level=3)).state
    assert (char(table).kits, char(table).disciplines) == ({"medkit": 2}, {"survival": 3})
    full = table_of(
        a={
            "mettle": 2,
            "kits": {f"k{i}": 1 for i in range(MAX_KITS)},
            "disciplines": {f"d{i}": 1 for i in range(MAX_DISCIPLINES)},
        }
    )
    run(full, c.KitSet(char="a", kit="k0", uses=5))  # an existing kit is fine
    for cmd in (
        c.KitSet(char="a", kit="new", uses=1),
        c.DisciplineSet(char="a", discipline="new", level=1),
    ):
        refused(full, cmd, "limit_reached")


def test_on_round_has_no_effect_and_derived_numbers() -> None:
    from vigil.rules.commands import CombatStart, NextRound

    table = table_of(a={"mettle": 2, "injuries": [{"id": "i1", "penalty": 2}]})
    table = run(table, CombatStart()).state
    table = run(table, c.Rattle(char="a", amount=3)).state
    out = run(table, NextRound())
    assert [e.code for e in out.events] == ["round_advanced"]
    derived = SYSTEM.derived(out.state, "a")
    assert derived["check_penalty"] == 5 and derived["tym_penalty"] == 2
    assert derived["rattle_zero_at"] is None and derived["can_act"] is True
    assert derived["next_rest_hour_at"] is None
    assert HOUR == 3600.0
