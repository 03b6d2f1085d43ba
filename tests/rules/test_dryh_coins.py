"""DRYH-08/09/10 coins on a rolled roll, and the talents DRYH-11/12/13."""

from __future__ import annotations

import msgspec
import pytest
from dryh_helpers import PLAYER, codes, new_table, one, refused, rolled, run

from vigil.rules.commands import Correct
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.coins import without_despair
from vigil.rules.dryh.state import Adjustment, Dice


def coins(t, hope: int = 0, despair: int = 0):  # type: ignore[no-untyped-def]
    t, _ = run(t, Correct(field="hope", value=hope))
    t, _ = run(t, Correct(field="despair", value=despair))
    return t


def test_dryh08_despair_adds_a_six_to_any_pool_even_empty() -> None:
    """DRYH-08: +6 in an empty pool; the coin moves from despair to hope."""
    t = coins(new_table({"a": {"discipline": 1}}), despair=2)
    t, _ = rolled(t, d=[5], p=[2])
    t, ev = run(t, c.DespairSpend(char="a", pool="madness"))
    r = t.rolls["a"]
    assert r.dice.madness == [6] and r.dominant == "madness" and r.phase == "adjusted"  # type: ignore[union-attr]
    assert (t.despair, t.hope) == (1, 1)
    assert r.adjustments == [Adjustment(source="despair", op="add", pool="madness", face=6)]
    e = ev[0]
    assert e.code == "despair_spent" and e.rule == "DRYH-08"
    assert e.params["faces"] == [6] and e.params["dominant"] == "madness"


def test_dryh08_despair_removes_a_six_and_is_refused_without_one() -> None:
    """DRYH-08: removing needs a 6 in that pool; spending needs a coin."""
    t = coins(new_table({"a": {"discipline": 2}}), despair=1)
    t, _ = rolled(t, d=[6, 2], p=[5])
    refused(t, c.DespairSpend(char="a", pool="pain", op="remove"), "no_six")
    t, _ = run(t, c.DespairSpend(char="a", pool="discipline", op="remove"))
    assert t.rolls["a"].dice.discipline == [2]  # type: ignore[union-attr]
    assert t.rolls["a"].dominant == "pain"
    refused(t, c.DespairSpend(char="a", pool="pain"), "no_despair")


def test_dryh08_never_a_helpers_dice_and_only_after_the_roll() -> None:
    """DRYH-08: the pool is one of the four (decoder); not before rolling."""
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type":"dryh.despair_spend","char":"a","pool":"helpers"}', type=c.DespairSpend)
    t = coins(new_table(), despair=1)
    t, _ = run(t, c.Open(char="a", pain=1))
    refused(t, c.DespairSpend(char="a", pool="pain"), "wrong_phase")
    refused(t, c.HopeImprove(char="a"), "wrong_phase")


def test_dryh09_hope_adds_a_one_to_discipline() -> None:
    """DRYH-09: a 1 in discipline: a success, and it counts in tie-breaks."""
    t = coins(new_table({"a": {"discipline": 1, "madness": 1}}), hope=2)
    t, _ = rolled(t, d=[5], m=[5], p=[5, 1])
    r = t.rolls["a"]
    assert (r.successes, r.degree, r.dominant) == (0, 1, "pain")  # P[5,1] > D[5], M[5]
    t, ev = run(t, c.HopeImprove(char="a"), actor=PLAYER)
    r = t.rolls["a"]
    assert r.dice.discipline == [5, 1] and t.hope == 1  # type: ignore[union-attr]
    assert (r.successes, r.success, r.dominant) == (1, True, "discipline")
    assert ev[0].code == "hope_improved" and ev[0].rule == "DRYH-09"
    t, _ = run(t, c.HopeImprove(char="a"))
    refused(t, c.HopeImprove(char="a"), "no_hope")


def test_dryh09_pool_size_is_bounded() -> None:
    t = coins(new_table({"a": {"discipline": 30}}), hope=40)
    t, _ = rolled(t, d=[4] * 30)
    for _ in range(34):
        t, _ = run(t, c.HopeImprove(char="a"))
    refused(t, c.HopeImprove(char="a"), "pool_full")


def test_dryh10_no_coin_when_only_despair_made_pain_dominate() -> None:
    """DRYH-10: D[5] vs P[4]; the GM adds a 6 to pain; pain dominates, no coin."""
    t = coins(new_table({"a": {"discipline": 1}}), despair=1)
    t, _ = rolled(t, d=[5], p=[4])
    t, _ = run(t, c.DespairSpend(char="a", pool="pain"))
    assert t.rolls["a"].dominant == "pain"
    t, ev = run(t, c.Resolve(char="a"))
    assert "despair_withheld" in codes(ev) and "despair_paid" not in codes(ev)
    assert one(ev, "despair_withheld").rule == "DRYH-10"
    assert t.despair == 0 and t.hope == 1 and "a" not in t.rolls


def test_dryh10_removing_a_six_counts_as_a_despair_adjustment() -> None:
    """DRYH-10: the GM removes discipline's 6 so pain dominates: no coin."""
    t = coins(new_table({"a": {"discipline": 1}}), despair=1)
    t, _ = rolled(t, d=[6], p=[5])
    t, _ = run(t, c.DespairSpend(char="a", pool="discipline", op="remove"))
    t, ev = run(t, c.Resolve(char="a"))
    assert "despair_withheld" in codes(ev) and t.despair == 0


def test_dryh10_hope_additions_are_kept_in_the_recount() -> None:
    """DRYH-10: D[5] P[5,1]: hope makes D[5,1] win the tie; a despair 6 in
    pain then makes pain dominate only through despair — no coin. Without
    the hope the recount would have said pain, and the coin would be paid."""
    t = coins(new_table({"a": {"discipline": 1}}), hope=1, despair=1)
    t, _ = rolled(t, d=[5], p=[5, 1])
    t, _ = run(t, c.HopeImprove(char="a"))
    assert t.rolls["a"].dominant == "discipline"
    t, _ = run(t, c.DespairSpend(char="a", pool="pain"))
    t, ev = run(t, c.Resolve(char="a"))
    assert "despair_withheld" in codes(ev)


def test_dryh10_coin_paid_when_pain_dominated_anyway() -> None:
    """DRYH-10/19: pain already dominated before the GM's spend: coin paid."""
    t = coins(new_table({"a": {"discipline": 1}}), despair=1)
    t, _ = rolled(t, d=[3], p=[6, 2])
    t, _ = run(t, c.DespairSpend(char="a", pool="pain"))
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "despair_paid", "roll_closed"]
    assert t.despair == 1 and t.hope == 1


def test_dryh10_recount_undoes_despair_in_reverse() -> None:
    """DRYH-10: add-then-remove in one pool undoes to the original dice."""
    dice = Dice(discipline=[4], pain=[5])
    adj = [
        Adjustment(source="despair", op="add", pool="pain", face=6),
        Adjustment(source="hope", op="add", pool="discipline", face=1),
        Adjustment(source="despair", op="remove", pool="pain", face=6),
    ]
    assert without_despair(dice, adj).pain == [5]
    stale = [Adjustment(source="despair", op="add", pool="madness", face=6)]
    assert without_despair(dice, stale).madness == []  # a 6 already gone stays gone


def test_dryh11_minor_exhaustion_talent_floor() -> None:
    """DRYH-11: needs exhaustion ≥ 1; successes are at least the exhaustion."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 0}})
    t, _ = run(t, c.Open(char="a", pain=2))
    refused(t, c.Declare(char="a", talent="exhaustion_minor"), "talent_needs_exhaustion")
    t = new_table({"a": {"discipline": 1, "exhaustion": 2}})
    t, _ = rolled(t, d=[6], e=[5, 4], p=[1, 2], declare={"talent": "exhaustion_minor"})
    r = t.rolls["a"]
    assert (r.successes, r.degree, r.success) == (2, 2, True)
    t = new_table({"a": {"discipline": 3, "exhaustion": 1}})
    t, _ = rolled(t, d=[1, 2, 3], e=[6], p=[], declare={"talent": "exhaustion_minor"})
    assert t.rolls["a"].successes == 3  # a floor, not an addition


def test_dryh11_minor_talent_rechecked_at_roll_time() -> None:
    """DRYH-11: exhaustion spent away after the declaration refuses the roll."""
    t = coins(new_table({"a": {"discipline": 1, "exhaustion": 1}}), hope=1)
    t, _ = run(t, c.Open(char="a", pain=0))
    t, _ = run(t, c.Declare(char="a", talent="exhaustion_minor"))
    t, _ = run(t, c.HopeSpend(char="a", what="exhaustion"))
    refused(t, c.Roll(char="a"), "talent_needs_exhaustion", faces=[3])


def test_dryh12_major_exhaustion_talent_is_the_plus_one() -> None:
    """DRYH-12: +1 exhaustion, then add the exhaustion to successes; it is
    the once-per-roll increase, so a separate +1 is refused."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 2}})
    t, _ = run(t, c.Open(char="a", pain=4))
    t, _ = run(t, c.Declare(char="a", talent="exhaustion_major"))
    refused(t, c.Declare(char="a", exhaustion_up=True), "exhaustion_up_once")
    t, ev = run(t, c.Roll(char="a"), [6, 5, 4, 4, 1, 1, 1, 1])
    assert t.characters["a"].exhaustion == 3
    assert one(ev, "exhaustion_raised").rule == "DRYH-12"
    assert (t.rolls["a"].successes, t.rolls["a"].degree) == (3, 4)


def test_dryh12_major_with_declared_plus_one_is_one_increase() -> None:
    """DRYH-12 Decision: a +1 declared alongside the talent does not stack."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 1}})
    t, _ = rolled(t, d=[5], e=[5, 5], declare={"exhaustion_up": True, "talent": "exhaustion_major"})
    assert t.characters["a"].exhaustion == 2 and t.rolls["a"].successes == 2


def test_dryh12_major_talent_can_crash_and_the_roll_resolves() -> None:
    """DRYH-12/17: the increase crashes the character; the roll still resolves."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 6}})
    t, ev = rolled(t, d=[5], e=[6] * 7, p=[1], declare={"talent": "exhaustion_major"})
    assert t.characters["a"].status == "crashed" and "crashed" in codes(ev)
    assert t.rolls["a"].successes == 7
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "exhaustion_raised", "roll_closed"]  # no second crash
    assert t.characters["a"].exhaustion == 8


def test_dryh13_madness_talent_needs_temporary_madness() -> None:
    """DRYH-13: 1–6 temporary madness dice, which the GM may amend."""
    t = new_table({"a": {"discipline": 1}})
    t, _ = run(t, c.Open(char="a", pain=1))
    refused(t, c.Declare(char="a", talent="madness"), "talent_needs_madness")
    t, _ = run(t, c.Declare(char="a", talent="madness", madness=1), actor=PLAYER)
    t, _ = run(t, c.Declare(char="a", madness=4))  # the GM sets the potency
    refused(t, c.Declare(char="a", madness=0), "talent_needs_madness")
    t, _ = run(t, c.Roll(char="a"), [5, 1, 2, 6, 6, 4])
    r = t.rolls["a"]
    assert r.dice.madness == [1, 2, 6, 6] and r.dominant == "madness"  # type: ignore[union-attr]
    assert t.characters["a"].madness == 0
