"""Pain and Test Your Mettle (MET-05…MET-09), healing (MET-08, MET-12),
departed (MET-20)."""

from __future__ import annotations

from typing import Any

import pytest
from mettle_helpers import char, codes, one, refused, run, table_of

from vigil.rules.clock import DAY, MINUTE
from vigil.rules.mettle import commands as c

DYING = {"status": "dying", "pain": 7}
STABLE = {"status": "dying", "pain": 7, "stabilized": True}

# (start sheet, pain added, lot) -> (status, stabilized)
TYM_TABLE: list[tuple[str, dict[str, Any], int, str, str, bool]] = [
    # MET-06, active: a pass keeps fighting; a fail falls by pain vs mettle.
    ("active below", {}, 3, "crit", "active", False),
    ("active below", {}, 3, "plain", "active", False),
    ("active below", {}, 3, "fail", "unconscious", False),
    ("active equal", {}, 5, "crit", "active", False),
    ("active equal", {}, 5, "plain", "active", False),
    ("active equal", {}, 5, "fail", "unconscious", False),
    ("active above", {}, 7, "crit", "active", False),
    ("active above", {}, 7, "plain", "dying", False),
    ("active above", {}, 7, "fail", "dying", False),
    # MET-07, unconscious: crit wakes, plain pass stays, fail applies MET-06.
    ("unconscious below", {"status": "unconscious", "pain": 3}, 1, "crit", "active", False),
    ("unconscious below", {"status": "unconscious", "pain": 3}, 1, "plain", "unconscious", False),
    ("unconscious below", {"status": "unconscious", "pain": 3}, 1, "fail", "unconscious", False),
    ("unconscious above", {"status": "unconscious", "pain": 5}, 2, "crit", "active", False),
    ("unconscious above", {"status": "unconscious", "pain": 5}, 2, "plain", "dying", False),
    ("unconscious above", {"status": "unconscious", "pain": 5}, 2, "fail", "dying", False),
    # MET-09, dying: a pass (a crit) keeps the spirit, a fail departs.
    ("dying", DYING, 1, "crit", "dying", False),
    ("dying", DYING, 1, "plain", "departed", False),
    ("dying", DYING, 1, "fail", "departed", False),
    ("stabilized", STABLE, 1, "crit", "dying", True),
    ("stabilized", STABLE, 1, "plain", "departed", True),
    ("stabilized", STABLE, 1, "fail", "departed", True),
]


@pytest.mark.parametrize(("label", "sheet", "amount", "lot", "status", "stabilized"), TYM_TABLE)
def test_met05_to_met09_tym_outcomes_table(
    label: str, sheet: dict[str, Any], amount: int, lot: str, status: str, stabilized: bool
) -> None:
    """MET-05…MET-09: every status against every lot."""
    table = table_of(a={"mettle": 5, **sheet})
    before = char(table)
    out = run(table, c.Pain(char="a", amount=amount, lot=lot))  # type: ignore[arg-type]
    after = char(out.state)
    assert after.pain == before.pain + amount
    assert after.status == status, label
    assert after.stabilized == stabilized
    tym = one(out.events, "tym")
    assert tym.rule == "MET-05"
    assert tym.params["tn"] == after.pain
    assert tym.params["lot"] == lot
    if status == before.status == "dying":
        assert after.departs_at == before.departs_at  # MET-12: same deadline


def test_met05_tym_is_mettle_against_total_pain_seed_example() -> None:
    """Seed: "If you pass the Check (your Mettle meets or exceeds your Pain and
    your Cast Lot doesn't say otherwise), you continue fighting"."""
    table = table_of(a={"mettle": 4, "pain": 2, "rattle": 9})
    out = run(table, c.Pain(char="a", amount=2))
    tym = one(out.events, "tym")
    assert tym.params["total"] == 4
    assert tym.params["tn"] == 4
    assert tym.params["rattle_penalty"] == 0  # MET-04: never on TYM
    assert tym.params["passed"] is True
    assert char(out.state).status == "active"
    out = run(out.state, c.Pain(char="a", amount=1))
    assert char(out.state).status == "dying"


def test_met06_seed_example_unconscious_or_dying() -> None:
    """Seed: "If your current Pain is less than or equal to your Mettle stat,
    you fall Unconscious. If your current Pain is greater than your Mettle,
    you begin Dying." """
    table = table_of(a={"mettle": 3, "pain": 2}, b={"mettle": 3, "pain": 3})
    out = run(table, c.Pain(char="a", amount=1, lot="fail"))
    assert char(out.state).status == "unconscious"
    assert codes(out.events) == ["pain_taken", "tym", "fell_unconscious"]
    out = run(table, c.Pain(char="b", amount=1))
    assert char(out.state, "b").status == "dying"
    assert one(out.events, "began_dying").rule == "MET-06"


def test_met03_injury_penalty_applies_to_tym() -> None:
    """MET-03: mettle 5 with an injury of 2 fails a TYM at pain 4 → unconscious."""
    table = table_of(a={"mettle": 5, "injuries": [{"id": "i1", "penalty": 2}]})
    out = run(table, c.Pain(char="a", amount=4))
    tym = one(out.events, "tym")
    assert tym.params["injury_penalty"] == 2
    assert tym.params["total"] == 3
    assert char(out.state).status == "unconscious"


def test_met06_dying_deadline_from_onset() -> None:
    """MET-06/MET-10: departs at onset + mettle minutes, not stabilized."""
    table = table_of(a={"mettle": 4})
    table.clock.now = 1000.0
    out = run(table, c.Pain(char="a", amount=5))
    a = char(out.state)
    assert (a.status, a.stabilized, a.dying_since) == ("dying", False, 1000.0)
    assert a.departs_at == 1000.0 + 4 * MINUTE
    assert one(out.events, "began_dying").params == {"departs_at": 1000.0 + 4 * MINUTE}


def test_met07_crit_wakes_even_above_mettle() -> None:
    """MET-07: "If you roll a CRIT when TYM, the new pain jars you back"."""
    table = table_of(a={"mettle": 2, "status": "unconscious", "pain": 2})
    out = run(table, c.Pain(char="a", amount=3, lot="crit"))
    assert char(out.state).status == "active"
    assert one(out.events, "regained_consciousness").rule == "MET-07"


@pytest.mark.parametrize(("heal", "status"), [(1, "unconscious"), (2, "active"), (9, "active")])
def test_met08_healing_below_mettle_wakes(heal: int, status: str) -> None:
    """MET-08: pain below mettle wakes; Decision: equal keeps unconscious."""
    table = table_of(a={"mettle": 4, "status": "unconscious", "pain": 5})
    out = run(table, c.Heal(char="a", amount=heal))
    assert char(out.state).status == status
    assert char(out.state).pain == max(0, 5 - heal)
    assert one(out.events, "healed").params["healed"] == min(5, heal)


def test_met12_healing_wasted_while_dying_unstabilized() -> None:
    """MET-12: "Any healing delivered to a character who has not yet been
    Stabilized is wasted" — pain unchanged, the history says so."""
    table = table_of(a={"mettle": 3, "status": "dying", "pain": 6})
    out = run(table, c.Heal(char="a", amount=5))
    assert char(out.state) == char(table)
    event = one(out.events, "healing_wasted")
    assert event.rule == "MET-12"
    assert event.params == {"amount": 5, "pain": 6}


@pytest.mark.parametrize(
    ("heal", "status", "stabilized"),
    [(1, "dying", True), (3, "unconscious", False), (4, "active", False)],
)
def test_met12_healing_once_stabilized(heal: int, status: str, stabilized: bool) -> None:
    """MET-12: stabilized healing works: < mettle active, = unconscious,
    > still dying with the same deadline; leaving dying clears the clock."""
    table = table_of(a={"mettle": 3, "status": "dying", "pain": 6, "stabilized": True})
    table.clock.now = 50.0
    deadline = char(table).departs_at
    out = run(table, c.Heal(char="a", amount=heal))
    a = char(out.state)
    assert (a.status, a.stabilized) == (status, stabilized)
    if status == "dying":
        assert a.departs_at == deadline
        assert codes(out.events) == ["healed"]
    else:
        assert a.departs_at is None and a.dying_since is None and a.stabilized_at is None


def test_met12_stabilized_keeps_stabilization_through_passed_tym() -> None:
    """MET-12: new pain on a stabilized dying character keeps it stabilized
    when its TYM passes."""
    table = table_of(a={"mettle": 3, "status": "dying", "pain": 6, "stabilized": True})
    out = run(table, c.Pain(char="a", amount=2, lot="crit"))
    a = char(out.state)
    assert a.stabilized and a.status == "dying"
    assert a.departs_at == 3 * DAY


def test_met20_departed_refuses_pain_heal_rest() -> None:
    """MET-20: departed is final; pain, healing and rest are refused."""
    table = table_of(a={"mettle": 3, "status": "departed", "pain": 9})
    for cmd in (
        c.Pain(char="a", amount=1),
        c.Heal(char="a", amount=1),
        c.RestStart(char="a"),
        c.Rattle(char="a", amount=1),
        c.InjuryAdd(char="a", penalty=1),
    ):
        refused(table, cmd, "final_state")


def test_met20_tym_fail_departs_and_stops_rest() -> None:
    """MET-09/MET-20: a failed TYM while dying departs; rest ends with it."""
    table = table_of(a={"mettle": 3, "status": "dying", "pain": 6, "resting": True})
    table.clock.now = 10.0
    out = run(table, c.Pain(char="a", amount=1))
    a = char(out.state)
    assert (a.status, a.resting, a.departed_at) == ("departed", False, 10.0)
    assert one(out.events, "departed").params == {"cause": "tym"}
    assert "rest_interrupted" not in codes(out.events)


def test_met05_pain_adds_up_while_unconscious() -> None:
    """MET-05: pain adds up even while unconscious."""
    table = table_of(a={"mettle": 9, "status": "unconscious", "pain": 1})
    out = run(table, c.Pain(char="a", amount=2))
    assert char(out.state).pain == 3
    assert char(out.state).status == "unconscious"
