"""DRYH-01…05: opening, declaring, helping and rolling a conflict."""

from __future__ import annotations

import msgspec
import pytest
from dryh_helpers import GM, PLAYER, codes, new_table, one, refused, rolled, run

from vigil.rules.commands import Correct
from vigil.rules.dice import RandomDice
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.state import Roll

TEAM = {"a": {"discipline": 3}, "b": {"discipline": 2}, "x": {}}


def test_dryh01_gm_opens_a_challenge() -> None:
    """DRYH-01: pain count and kind; at most one open roll per character."""
    t = new_table()
    t, ev = run(t, c.Open(char="a", pain=4, kind="nightmare"))
    assert t.rolls["a"] == Roll(phase="open", pain=4, kind="nightmare")
    assert ev[0].code == "roll_opened" and ev[0].rule == "DRYH-01"
    assert ev[0].params == {"pain": 4, "kind": "nightmare"} and ev[0].actor == GM.id
    refused(t, c.Open(char="a", pain=1), "in_another_roll")


def test_dryh01_open_bounds_are_refused_by_the_decoder() -> None:
    """DRYH-01: 0–30 pain dice; a typo in a field name is an error."""
    dec = msgspec.json.Decoder(c.Open)
    assert dec.decode(b'{"type":"dryh.open","char":"a","pain":30}').pain == 30
    for bad in (
        b'{"type":"dryh.open","char":"a","pain":31}',
        b'{"type":"dryh.open","char":"a","pain":-1}',
        b'{"type":"dryh.open","char":"a","pain":1,"kind":"other"}',
        b'{"type":"dryh.open","char":"a","pain":1,"pian":2}',
    ):
        with pytest.raises(msgspec.ValidationError):
            dec.decode(bad)


def test_dryh01_refusals_unknown_crashed_nightmare() -> None:
    t = new_table(
        {"a": {"status": "crashed", "exhaustion": 7}, "n": {"status": "nightmare", "discipline": 0}}
    )
    refused(t, c.Open(char="zz", pain=1), "unknown_character")
    refused(t, c.Open(char="a", pain=1), "crashed")
    refused(t, c.Open(char="n", pain=1), "final_state")


def test_dryh01_cancel_before_roll_only() -> None:
    """The GM may cancel an unrolled roll, with no effect; not after."""
    t = new_table()
    before = msgspec.to_builtins(t)
    t, _ = run(t, c.Open(char="a", pain=2))
    t, ev = run(t, c.Cancel(char="a"))
    assert codes(ev) == ["roll_cancelled"] and msgspec.to_builtins(t) == before
    refused(t, c.Cancel(char="a"), "no_open_roll")
    t, _ = rolled(t, d=[1, 2, 3], p=[4])
    refused(t, c.Cancel(char="a"), "wrong_phase")


def test_dryh02_declarations_change_until_the_roll() -> None:
    """DRYH-02: temporary madness, +1 exhaustion, talent; a second +1 refused."""
    t = new_table({"a": {"exhaustion": 1}})
    t, _ = run(t, c.Open(char="a", pain=1))
    t, ev = run(t, c.Declare(char="a", madness=2, exhaustion_up=True), actor=PLAYER)
    d = t.rolls["a"].declaration
    assert (d.madness, d.exhaustion_up, d.talent) == (2, True, "none")
    assert t.rolls["a"].phase == "declared" and ev[0].actor == PLAYER.id
    refused(t, c.Declare(char="a", exhaustion_up=True), "exhaustion_up_once")
    t, _ = run(t, c.Declare(char="a", madness=0))
    assert t.rolls["a"].declaration.exhaustion_up  # untouched field kept
    t, _ = run(t, c.Declare(char="a", exhaustion_up=False, talent="exhaustion_minor"))
    assert t.rolls["a"].declaration.talent == "exhaustion_minor"
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type":"dryh.declare","char":"a","madness":7}', type=c.Declare)


def test_dryh02_plus_one_lands_at_roll_and_can_crash() -> None:
    """DRYH-02/17: the +1 is applied when rolled; above 6 it crashes, the roll goes on."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 6}})
    t, ev = rolled(t, d=[4], e=[1] * 7, p=[5], declare={"exhaustion_up": True})
    a = t.characters["a"]
    assert a.exhaustion == 7 and a.status == "crashed"
    assert codes(ev)[-3:] == ["exhaustion_raised", "crashed", "roll_rolled"]
    assert t.rolls["a"].phase == "rolled" and len(t.rolls["a"].dice.exhaustion) == 7  # type: ignore[union-attr]


def test_dryh03_helpers_join_leave_and_are_limited() -> None:
    """DRYH-03: awake helpers lend discipline; at most 6; not twice; not self."""
    chars = {
        "a": {},
        **{f"h{i}": {} for i in range(7)},
        "z": {"status": "crashed", "exhaustion": 7},
    }
    t = new_table(chars)
    t, _ = run(t, c.Open(char="a", pain=1))
    refused(t, c.Help(char="a", helper="a"), "in_another_roll")
    refused(t, c.Help(char="a", helper="z"), "crashed")
    for i in range(6):
        t, ev = run(t, c.Help(char="a", helper=f"h{i}"), actor=PLAYER)
        assert ev[0].code == "helper_joined" and ev[0].params == {"owner": "a"}
    refused(t, c.Help(char="a", helper="h0"), "in_another_roll")
    refused(t, c.Help(char="a", helper="h6"), "too_many_helpers")
    t, ev = run(t, c.Help(char="a", helper="h0", leave=True))
    assert codes(ev) == ["helper_left"] and "h0" not in t.rolls["a"].helpers
    refused(t, c.Help(char="a", helper="h0", leave=True), "not_helping")
    refused(t, c.Open(char="h1", pain=1), "in_another_roll")


def test_dryh03_house_rule_no_help_against_a_nightmare_challenge() -> None:
    """DRYH-03 house rule: help is refused on a nightmare challenge."""
    t = new_table(TEAM)
    t, _ = run(t, c.Open(char="a", pain=3, kind="nightmare"))
    refused(t, c.Help(char="a", helper="b"), "help_nightmare_challenge")


def test_dryh04_pools_and_draw_order() -> None:
    """DRYH-04: D, E (after +1), M + T, P, then helpers in joining order."""
    t = new_table({"a": {"discipline": 2, "madness": 1, "exhaustion": 1}, "b": {"discipline": 1}, "x": {}})
    t, ev = rolled(
        t,
        d=[1, 6],
        e=[2, 4],
        m=[5, 5, 3],
        p=[1, 2, 6, 6],
        helpers={"b": [3]},
        declare={"exhaustion_up": True, "madness": 2},
    )
    r = t.rolls["a"]
    assert r.dice is not None
    assert (r.dice.discipline, r.dice.exhaustion, r.dice.madness) == ([1, 6], [2, 4], [5, 5, 3])
    assert r.dice.pain == [1, 2, 6, 6] and r.dice.helpers == {"b": [3]}
    assert t.characters["a"].madness == 1  # DRYH-04: temporary madness is not permanent
    assert r.exhaustion_at_roll == 2
    assert (r.successes, r.degree, r.success, r.dominant) == (
        4,
        2,
        True,
        "pain",
    )  # P[6,6] beats D[6,1]
    roll_ev = one(ev, "roll_rolled")
    assert roll_ev.params["dice"]["pain"] == [1, 2, 6, 6] and roll_ev.rule == "DRYH-04"


def test_dryh04_roll_refusals() -> None:
    """DRYH-04: out of phase, crashed protagonist or helper, too few faces."""
    t = new_table({"a": {"discipline": 1}, "b": {"discipline": 1}, "x": {}})
    t, _ = run(t, c.Open(char="a", pain=1))
    t, _ = run(t, c.Help(char="a", helper="b"))
    refused(t, c.Roll(char="a"), "dice_too_few", faces=[1, 2])
    t2, _ = run(t, Correct(char="b", field="status", value="crashed"))
    refused(t2, c.Roll(char="a"), "crashed", faces=[1, 1, 1])
    t3, _ = run(t, Correct(char="a", field="status", value="crashed"))
    refused(t3, c.Roll(char="a"), "crashed", faces=[1, 1, 1])
    refused(t, c.Roll(char="x"), "no_open_roll")
    t, _ = run(t, c.Roll(char="a"), [1, 1, 1])
    refused(t, c.Roll(char="a"), "wrong_phase", faces=[1, 1, 1])
    refused(t, c.Declare(char="a", madness=1), "wrong_phase")
    refused(t, c.Help(char="a", helper="x"), "wrong_phase")


def test_dryh05_meet_or_beat() -> None:
    """DRYH-05: player successes ≥ degree succeeds; fewer fails."""
    t = new_table()
    t, _ = rolled(t, d=[1, 2, 5], p=[1, 3, 6])
    assert t.rolls["a"].success is True and t.rolls["a"].successes == t.rolls["a"].degree == 2
    t = new_table()
    t, _ = rolled(t, d=[1, 5, 5], p=[1, 3, 6])
    assert t.rolls["a"].success is False


def test_dryh04_manual_dice_are_gm_only_and_need_the_option() -> None:
    """Manual dice: with ``manual_dice`` the GM submits faces in draw order."""
    t = new_table({"a": {"discipline": 2}}, manual_dice=True)
    t, _ = run(t, c.Open(char="a", pain=1))
    refused(t, c.Roll(char="a", faces=[1, 2, 3]), "manual_dice_gm_only", actor=PLAYER)
    refused(t, c.Roll(char="a", faces=[1, 2, 3, 4]), "dice_too_many")
    t2, _ = run(t, c.Roll(char="a", faces=[1, 2, 3]), dice=RandomDice(1))
    assert t2.rolls["a"].dice.discipline == [1, 2] and t2.rolls["a"].dice.pain == [3]  # type: ignore[union-attr]
    off = new_table({"a": {}})
    off, _ = run(off, c.Open(char="a", pain=0))
    refused(off, c.Roll(char="a", faces=[1, 2, 3]), "manual_dice_off")


def test_dryh04_same_seed_same_rolls() -> None:
    """Seeded dice: the same seed rolls the same faces."""
    t = new_table({"a": {"discipline": 3, "madness": 2}})
    t, _ = run(t, c.Open(char="a", pain=5))
    one = run(t, c.Roll(char="a"), dice=RandomDice(42))[0]
    two = run(t, c.Roll(char="a"), dice=RandomDice(42))[0]
    assert one.rolls == two.rolls
