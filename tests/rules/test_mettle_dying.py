"""The dying clock and stabilizing (MET-10, MET-11)."""

from __future__ import annotations

from typing import Any

import pytest
from mettle_helpers import advance, char, codes, one, refused, run, table_of

from vigil.rules.clock import DAY, MINUTE
from vigil.rules.commands import Correct
from vigil.rules.dice import RandomDice
from vigil.rules.game import Countdown
from vigil.rules.mettle import commands as c
from vigil.rules.mettle.state import MettleTable
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import RuleError


def dying_table(**helper: Any) -> MettleTable:
    """``a`` dying at t=100 (mettle 3, pain 5); ``h`` a helper with a kit."""
    sheet = {"mettle": 4, "disciplines": {"survival": 3}, "kits": {"medkit": 2}, **helper}
    table = table_of(a={"mettle": 3}, h=sheet)
    table.clock.now = 100.0
    return run(table, c.Pain(char="a", amount=5)).state


def stabilize(**kw: Any) -> c.Stabilize:
    args: dict[str, Any] = {
        "char": "a",
        "helper": "h",
        "discipline": "survival",
        "kit": "medkit",
        "tn": 3,
    }
    args.update(kw)
    return c.Stabilize(**args)


def test_met10_unstabilized_departs_at_onset_plus_mettle_minutes() -> None:
    """MET-10: "your spirit will depart your body in a number of minutes
    equal to your Mettle" — whether or not anyone is connected."""
    table = dying_table()
    deadline = 100.0 + 3 * MINUTE
    assert char(table).departs_at == deadline
    early = advance(table, deadline - 1)
    assert char(early.state).status == "dying"
    assert early.events == []
    out = advance(table, deadline + 500)
    a = char(out.state)
    assert (a.status, a.departed_at) == ("departed", deadline)
    event = one(out.events, "departed")
    assert (event.at, event.rule, event.params) == (deadline, "MET-10", {"cause": "time"})
    assert SYSTEM.final_status(out.state, "a") == "departed"


def test_met10_stabilized_departs_at_stabilization_plus_mettle_days() -> None:
    """MET-10: stabilized, the spirit stays mettle days from stabilization."""
    table = advance(dying_table(), 130.0).state
    out = run(table, stabilize(lot="crit"))
    a = char(out.state)
    assert a.stabilized and a.stabilized_at == 130.0
    assert a.departs_at == 130.0 + 3 * DAY
    assert char(advance(out.state, 130.0 + 3 * DAY - 1).state).status == "dying"
    late = advance(out.state, 130.0 + 3 * DAY)
    assert char(late.state).status == "departed"


def test_met10_summary_countdown_and_badges() -> None:
    """MET-10: the dying countdown runs from onset, then from stabilization."""
    table = dying_table()
    summary = SYSTEM.summary(table, "a")
    assert summary.badges == ["dying"]
    assert summary.countdowns == [Countdown(kind="dying", until=280.0, since=100.0)]
    table.clock.now = 160.0
    table = run(table, c.StabilizeByFiat(char="a", means="herbs")).state
    summary = SYSTEM.summary(table, "a")
    assert summary.badges == ["dying", "stabilized"]
    assert summary.countdowns == [Countdown(kind="dying", until=160.0 + 3 * DAY, since=160.0)]
    assert SYSTEM.derived(table, "a")["departs_at"] == 160.0 + 3 * DAY


def test_met11_stabilize_pass_spends_kit_and_makes_helper_busy() -> None:
    """MET-11 Decision: the check resolves at once; the helper is then busy
    for the dying character's current pain in minutes; one kit use spent."""
    table = dying_table()
    out = run(table, stabilize())
    attempt = one(out.events, "stabilize_attempt")
    assert attempt.rule == "MET-11"
    assert attempt.params["total"] == 3 and attempt.params["passed"] is True
    assert attempt.params["busy_until"] == 100.0 + 5 * MINUTE
    assert char(out.state, "h").kits == {"medkit": 1}
    assert char(out.state, "h").busy_until == 100.0 + 5 * MINUTE
    assert char(out.state).stabilized
    assert codes(out.events) == ["stabilize_attempt", "stabilized"]
    assert SYSTEM.summary(out.state, "h").countdowns == [Countdown(kind="busy", until=400.0)]
    assert SYSTEM.derived(out.state, "h")["helper_busy"] is True


def test_met11_stabilize_fail_still_spends_kit_and_time() -> None:
    """MET-11: a failed attempt still costs a use and the pain minutes."""
    table = dying_table()
    out = run(table, stabilize(tn=4))
    assert one(out.events, "stabilize_attempt").params["passed"] is False
    assert not char(out.state).stabilized
    assert char(out.state, "h").kits == {"medkit": 1}
    assert char(out.state, "h").busy_until == 400.0


def test_met11_refused_while_busy_on_anyone_then_allowed() -> None:
    """MET-11 Decision: a busy helper cannot start another attempt, on
    anyone, until the pain minutes have passed."""
    table = dying_table()
    table = run(table, stabilize(tn=9)).state  # fails, busy until 400
    with pytest.raises(RuleError) as err:
        run(table, stabilize())
    assert (err.value.code, err.value.params["until"]) == ("helper_busy", 400.0)
    table = advance(table, 250.0).state  # still dying (deadline 280), still busy
    refused(table, stabilize(), "helper_busy")


def test_met11_helper_free_after_busy_time() -> None:
    table = table_of(
        a={"mettle": 30, "status": "dying", "pain": 31},
        b={"mettle": 30, "status": "dying", "pain": 31},
        h={"mettle": 4, "disciplines": {"lore": 1}, "kits": {"herbs": 5}},
    )
    table = run(table, stabilize(discipline="lore", kit="herbs", tn=9)).state
    assert char(table, "h").busy_until == 31 * MINUTE
    with pytest.raises(RuleError):
        run(table, stabilize(char="b", discipline="lore", kit="herbs", tn=0))
    table = run(table, c.StabilizeByFiat(char="b")).state
    table = advance(table, 31 * MINUTE).state
    assert char(table).status == "departed"
    table = run(table, Correct(char="b", field="stabilized", value=False)).state
    assert SYSTEM.summary(table, "h").countdowns == []
    out = run(table, stabilize(char="b", discipline="lore", kit="herbs", tn=0))
    assert char(out.state, "b").stabilized


def test_met11_refused_without_kit_uses() -> None:
    """MET-11: "as long as there are Uses of a relevant Kit available"."""
    for sheet in ({"kits": {"medkit": 0}}, {"kits": {}}):
        table = dying_table(**sheet)
        refused(table, stabilize(), "no_kit_uses")


def test_met11_helper_penalties_and_missing_discipline() -> None:
    """MET-03/MET-04 apply to the helper's check; a discipline it does not
    have counts 0."""
    table = dying_table(injuries=[{"id": "i1", "penalty": 1}])
    table = run(table, c.Rattle(char="h", amount=1)).state
    out = run(table, stabilize(tn=1))
    params = one(out.events, "stabilize_attempt").params
    assert (params["rattle_penalty"], params["injury_penalty"], params["total"]) == (1, 1, 1)
    out = run(table, stabilize(discipline="intuition", tn=0, modifiers=2))
    params = one(out.events, "stabilize_attempt").params
    assert (params["stat"], params["total"], params["passed"]) == (0, 0, True)


@pytest.mark.parametrize(
    ("target", "helper", "code"),
    [
        ({"mettle": 3}, {}, "not_dying"),
        ({"mettle": 3, "status": "dying", "pain": 5, "stabilized": True}, {}, "already_stabilized"),
        ({"mettle": 3, "status": "dying", "pain": 5}, {"status": "unconscious"}, "cannot_act"),
        ({"mettle": 3, "status": "dying", "pain": 5}, {"status": "departed"}, "final_state"),
        ({"mettle": 3, "status": "departed", "pain": 5}, {}, "final_state"),
    ],
)
def test_met11_refusals(target: dict[str, Any], helper: dict[str, Any], code: str) -> None:
    table = table_of(a=target, h={"mettle": 3, "kits": {"medkit": 1}, **helper})
    refused(table, stabilize(), code)


def test_met11_stabilize_by_fiat_and_its_refusals() -> None:
    """MET-11: the GM may stabilize directly (herbs, magic, healing aid)."""
    table = dying_table()
    out = run(table, c.StabilizeByFiat(char="a"))
    assert one(out.events, "stabilized").params == {"departs_at": 100.0 + 3 * DAY, "by": "gm"}
    for state, code in ((out.state, "already_stabilized"), (table_of(a={"mettle": 2}), "not_dying")):
        with pytest.raises(RuleError) as err:
            run(state, c.StabilizeByFiat(char="a"))
        assert err.value.code == code


def test_met11_stabilize_lot_drawn_with_weights() -> None:
    """MET-02 with MET-11: the server draws the lot when the table asks it."""
    table = dying_table()
    table.options.lot_weights = SYSTEM.new_table(
        {"lot_weights": {"crit": 1, "plain": 0, "fail": 0}}
    ).options.lot_weights
    out = run(table, stabilize(tn=99), dice=RandomDice(3))
    params = one(out.events, "stabilize_attempt").params
    assert (params["lot"], params["lot_drawn"], params["passed"]) == ("crit", True, True)


def test_met11_a_player_attempt_uses_the_tables_stabilize_tn() -> None:
    """MET-11: the TN is the GM's input. An attempt without one (a player's,
    as the helper) takes the table option ``stabilize_tn``; with neither it
    is refused and nothing (not even a kit use) is spent."""
    from vigil.rules import engine
    from vigil.rules.commands import AddCharacter
    from vigil.rules.game import Actor, Ctx

    system = SYSTEM
    gm = Ctx(dice=RandomDice(3), actor=Actor("gm", "gm"))
    t = system.new_table({})
    t = engine.apply(system, t, AddCharacter(id="n", sheet={"mettle": 3}), gm).state
    helper = {"mettle": 5, "kits": {"herbs": 2}, "disciplines": {"survival": 4}}
    t = engine.apply(system, t, AddCharacter(id="h", sheet=helper), gm).state
    t = engine.apply(system, t, c.Pain(char="n", amount=6), gm).state
    attempt = c.Stabilize(char="n", helper="h", discipline="survival", kit="herbs")
    with pytest.raises(RuleError) as err:
        engine.apply(system, t, attempt, gm)
    assert err.value.code == "tn_required"
    t2 = system.new_table({"stabilize_tn": 3})
    t2.characters = t.characters
    out = engine.apply(system, t2, attempt, gm)
    event = next(e for e in out.events if e.code == "stabilize_attempt")
    assert event.params["tn"] == 3 and out.state.characters["h"].kits["herbs"] == 1
