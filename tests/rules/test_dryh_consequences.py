"""DRYH-14…21: consequences, crash, snap, helpers' fallout, failure option."""

from __future__ import annotations

from dryh_helpers import PLAYER, by_code, codes, new_table, one, refused, rolled, run

from vigil.rules.commands import Correct
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.system import SYSTEM
from vigil.rules.dryh.view import legal_moves


def test_dryh14_discipline_dominates_player_chooses() -> None:
    """DRYH-14: uncheck a response, exhaustion −1, or nothing; resolution waits."""
    t = new_table({"a": {"discipline": 2, "fight": 1, "exhaustion": 2}})
    t, _ = rolled(t, d=[6, 1], e=[2, 2], p=[4])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "choice_pending"]
    r = t.rolls["a"]
    assert r.phase == "resolved" and r.pending == {"a": "discipline"}
    refused(t, c.Resolve(char="a"), "wrong_phase")
    refused(t, c.DespairSpend(char="a", pool="pain"), "wrong_phase")
    refused(t, c.Choose(char="a", choice="check_fight"), "bad_choice")
    refused(t, c.Choose(char="a", choice="uncheck_flight"), "nothing_to_remove")
    refused(t, c.Choose(char="a", who="b", choice="nothing"), "no_pending_choice")
    for choice, field, value in (
        ("uncheck_fight", "fight", 0),
        ("exhaustion_down", "exhaustion", 1),
        ("nothing", "exhaustion", 2),
    ):
        t2, ev = run(t, c.Choose(char="a", choice=choice), actor=PLAYER)  # type: ignore[arg-type]
        assert getattr(t2.characters["a"], field) == value
        assert codes(ev) == ["discipline_chosen", "roll_closed"] and "a" not in t2.rolls
        assert ev[0].rule == "DRYH-14" and ev[0].params == {"choice": choice}


def test_dryh14_nothing_to_choose_closes_at_once() -> None:
    """DRYH-14 Decision: with no check and no exhaustion, nothing is asked."""
    t = new_table({"a": {"discipline": 1}})
    t, _ = rolled(t, d=[6], p=[2])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "roll_closed"] and t.rolls == {}


def test_dryh15_exhaustion_dominates_plus_one_and_dryh17_crash() -> None:
    """DRYH-15: exhaustion +1; DRYH-17: above 6 the character crashes."""
    t = new_table({"a": {"discipline": 1, "exhaustion": 6}})
    t, _ = rolled(t, d=[2], e=[6, 1, 1, 1, 1, 1], p=[5])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "exhaustion_raised", "crashed", "roll_closed"]
    assert one(ev, "exhaustion_raised").rule == "DRYH-15"
    assert one(ev, "crashed").rule == "DRYH-17"
    a = t.characters["a"]
    assert (a.exhaustion, a.status) == (7, "crashed")
    assert SYSTEM.summary(t, "a").badges == ["crashed"]
    refused(t, c.Open(char="a", pain=1), "crashed")


def test_dryh16_madness_dominates_check_a_response_of_choice() -> None:
    """DRYH-16: the player checks fight or flight; resolution waits."""
    t = new_table({"a": {"discipline": 1, "madness": 1}})
    t, _ = rolled(t, d=[2], m=[6], p=[1])
    t, ev = run(t, c.Resolve(char="a"))
    assert t.rolls["a"].pending == {"a": "madness"}
    refused(t, c.Choose(char="a", choice="nothing"), "bad_choice")
    t2, _ = run(t, Correct(char="a", field="fight", value=3))
    refused(t2, c.Choose(char="a", choice="check_fight"), "response_full")
    t, ev = run(t, c.Choose(char="a", choice="check_flight"))
    assert t.characters["a"].flight == 1
    assert codes(ev) == ["response_checked", "roll_closed"] and ev[0].rule == "DRYH-16"


def test_dryh16_one_kind_left_is_checked_at_once() -> None:
    """DRYH-16 Decision: a choice with one answer is made at once."""
    t = new_table({"a": {"discipline": 1, "madness": 1, "fight": 3}})
    t, _ = rolled(t, d=[2], m=[6])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "response_checked", "roll_closed"]
    assert t.characters["a"].flight == 1


def test_dryh18_snap_when_no_response_left() -> None:
    """DRYH-16/18: no box left: snap — responses cleared, D−1, M+1, snapped."""
    t = new_table({"a": {"discipline": 3, "madness": 1, "fight": 3, "flight": 3}})
    t, _ = rolled(t, d=[2, 2, 2], m=[6])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "snapped", "roll_closed"]
    a = t.characters["a"]
    assert (a.fight, a.flight, a.discipline, a.madness, a.snapped) == (0, 0, 2, 2, True)
    assert SYSTEM.summary(t, "a").badges == ["snapped"]
    t, ev = run(t, c.ClearSnap(char="a"))
    assert not t.characters["a"].snapped and ev[0].code == "snap_cleared"
    refused(t, c.ClearSnap(char="a"), "not_snapped")


def test_dryh18_losing_all_discipline_makes_a_nightmare() -> None:
    """DRYH-18: at discipline 0 the character is a nightmare: final."""
    t = new_table({"a": {"discipline": 1, "madness": 1, "fight": 3, "flight": 3}})
    t, _ = rolled(t, d=[2], m=[6])
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "snapped", "became_nightmare", "roll_closed"]
    assert t.characters["a"].status == "nightmare"
    assert SYSTEM.final_status(t, "a") == "nightmare"
    assert SYSTEM.summary(t, "a").badges == ["nightmare", "snapped"]
    for cmd in (
        c.Open(char="a", pain=1),
        c.HopeSpend(char="a", what="exhaustion"),
        c.RecoverDiscipline(char="a"),
        c.Wake(char="a"),
    ):
        refused(t, cmd, "final_state")


def test_dryh07_no_dice_nothing_dominates_no_consequence() -> None:
    """DRYH-07: with no die in any pool nothing dominates; 0 meets 0 (DRYH-05)."""
    t = new_table({"a": {"discipline": 0, "fight": 1}})
    t, _ = rolled(t)
    r = t.rolls["a"]
    assert (r.dominant, r.successes, r.degree, r.success) == (None, 0, 0, True)
    t, ev = run(t, c.Resolve(char="a"))
    assert codes(ev) == ["roll_resolved", "roll_closed"] and t.characters["a"].fight == 1


def test_dryh19_pain_dominates_pays_despair() -> None:
    """DRYH-19: one coin into despair."""
    t = new_table({"a": {"discipline": 1}})
    t, _ = rolled(t, d=[3], p=[6])
    t, ev = run(t, c.Resolve(char="a"))
    assert t.despair == 1 and one(ev, "despair_paid").rule == "DRYH-19"


HELPED = {"a": {"discipline": 1, "madness": 1}, "b": {"discipline": 1}, "h": {"discipline": 2}}


def test_dryh20_helpers_share_exhaustion() -> None:
    """DRYH-20: exhaustion dominating gives every helper +1 too."""
    t = new_table({**HELPED, "a": {"discipline": 1, "exhaustion": 1}})
    t, _ = rolled(t, d=[1], e=[6], helpers={"b": [3], "h": [2, 2]})
    t, ev = run(t, c.Resolve(char="a"))
    assert [t.characters[x].exhaustion for x in "abh"] == [2, 1, 1]
    assert [(e.char, e.rule) for e in by_code(ev, "exhaustion_raised")] == [
        ("a", "DRYH-15"),
        ("b", "DRYH-20"),
        ("h", "DRYH-20"),
    ]


def test_dryh20_helpers_share_madness_with_their_own_choice() -> None:
    """DRYH-20: each helper checks a response or snaps; a helper's choice is pending too."""
    t = new_table({**HELPED, "h": {"discipline": 2, "fight": 3, "flight": 3}})
    t, _ = rolled(t, d=[1], m=[6], helpers={"b": [5], "h": [1, 1]})
    t, ev = run(t, c.Resolve(char="a"))
    assert t.rolls["a"].pending == {"a": "madness", "b": "madness"}
    assert one(ev, "snapped").char == "h" and t.characters["h"].discipline == 1
    t, ev = run(t, c.Choose(char="a", who="b", choice="check_fight"), actor=PLAYER)
    assert codes(ev) == ["response_checked"] and ev[0].rule == "DRYH-20"
    assert t.characters["b"].fight == 1 and "a" in t.rolls
    refused(t, c.Choose(char="a", who="b", choice="check_fight"), "no_pending_choice")
    t, ev = run(t, c.Choose(char="a", choice="check_fight"))
    assert codes(ev) == ["response_checked", "roll_closed"] and t.rolls == {}


def test_dryh20_helpers_share_pain_one_coin_each() -> None:
    """DRYH-20 Decision: pain dominating pays one despair per affected character."""
    t = new_table(HELPED)
    t, _ = rolled(t, d=[1], m=[1], p=[6], helpers={"b": [2], "h": [5, 5]})
    t, ev = run(t, c.Resolve(char="a"))
    assert t.despair == 3 and [e.char for e in by_code(ev, "despair_paid")] == ["a", "b", "h"]


def test_dryh20_discipline_gives_helpers_nothing() -> None:
    """DRYH-20: discipline dominating affects the protagonist only."""
    t = new_table({**HELPED, "b": {"discipline": 1, "fight": 1}})
    t, _ = rolled(t, d=[6], m=[1], helpers={"b": [6]})
    t, _ = run(t, c.Resolve(char="a"))
    assert t.characters["b"].fight == 1 and t.rolls == {}


def test_dryh21_failure_consequences_off_by_default() -> None:
    """DRYH-21: off unless the table turns the option on."""
    t = new_table({"a": {"discipline": 1}})
    t, _ = rolled(t, d=[5], p=[1])
    refused(t, c.Resolve(char="a", failure="exhaustion"), "failure_consequences_off")


def test_dryh21_failure_consequences_on() -> None:
    """DRYH-21: on a failed roll the GM may add +1 exhaustion or check a
    response — never the kind that dominated; not on a success."""
    t = new_table({"a": {"discipline": 1}}, failure_consequences=True)
    ok, _ = rolled(t, d=[1], p=[6])
    refused(ok, c.Resolve(char="a", failure="fight"), "roll_succeeded")
    pain, _ = rolled(t, d=[5], p=[6, 1])
    done, ev = run(pain, c.Resolve(char="a", failure="flight"))
    assert done.characters["a"].flight == 1 and one(ev, "response_checked").rule == "DRYH-21"
    done, ev = run(pain, c.Resolve(char="a", failure="exhaustion"))
    assert done.characters["a"].exhaustion == 1 and one(ev, "exhaustion_raised").rule == "DRYH-21"
    mad, _ = rolled(t, d=[5], m=[6], p=[1], declare={"madness": 1})
    refused(mad, c.Resolve(char="a", failure="fight"), "failure_same_kind")
    run(mad, c.Resolve(char="a", failure="exhaustion"))
    exh = new_table({"a": {"discipline": 1, "exhaustion": 1}}, failure_consequences=True)
    exh, _ = rolled(exh, d=[5], e=[6], p=[1])
    refused(exh, c.Resolve(char="a", failure="exhaustion"), "failure_same_kind")


def test_dryh21_failure_response_full_or_snap() -> None:
    """DRYH-21/18: a full kind is refused while the other has room; none left snaps."""
    t = new_table({"a": {"discipline": 2, "fight": 3}}, failure_consequences=True)
    t, _ = rolled(t, d=[5, 5], p=[6, 1])
    refused(t, c.Resolve(char="a", failure="fight"), "response_full")
    t2, _ = run(t, Correct(char="a", field="flight", value=3))
    t2, ev = run(t2, c.Resolve(char="a", failure="fight"))
    assert "snapped" in codes(ev) and t2.characters["a"].discipline == 1


def test_dryh_full_conflict_through_all_phases() -> None:
    """A whole conflict: DRYH-01 open, 02 declare, 03 help, 04 roll, 08
    despair spends, 09 hope, 10 no-coin check, 16/20 resolution and choices."""
    chars = {"a": {"discipline": 2, "madness": 1, "exhaustion": 1}, "b": {"discipline": 1}}
    t = new_table(chars)
    t, _ = run(t, Correct(field="hope", value=1))
    t, _ = run(t, Correct(field="despair", value=2))
    t, _ = run(t, c.Open(char="a", pain=3))
    t, _ = run(t, c.Declare(char="a", madness=1, exhaustion_up=True), actor=PLAYER)
    t, _ = run(t, c.Help(char="a", helper="b"), actor=PLAYER)
    # D[4,5] E[2,5] M[5,3] P[1,2,6], helper b[3]
    t, ev = run(t, c.Roll(char="a"), [4, 5, 2, 5, 5, 3, 1, 2, 6, 3], actor=PLAYER)
    r = t.rolls["a"]
    assert t.characters["a"].exhaustion == 2 and r.exhaustion_at_roll == 2
    assert (r.phase, r.successes, r.degree, r.success, r.dominant) == ("rolled", 3, 2, True, "pain")
    t, _ = run(t, c.DespairSpend(char="a", pool="madness"))  # M[5,3,6] beats P[6,2,1]
    assert t.rolls["a"].dominant == "madness" and (t.despair, t.hope) == (1, 2)
    t, _ = run(t, c.HopeImprove(char="a"), actor=PLAYER)
    assert t.rolls["a"].successes == 4 and t.hope == 1
    t, _ = run(t, c.DespairSpend(char="a", pool="pain", op="remove"))
    assert t.rolls["a"].dice.pain == [1, 2] and (t.despair, t.hope) == (0, 2)  # type: ignore[union-attr]
    refused(t, c.DespairSpend(char="a", pool="pain"), "no_despair")
    everyone = frozenset(t.characters)
    assert SYSTEM.public_table(t, everyone, frozenset())["rolls"]["a"]["dominant"] == "madness"
    t, ev = run(t, c.Resolve(char="a"))
    resolved = ev[0]
    assert resolved.code == "roll_resolved"
    assert resolved.params["dice"] == {
        "discipline": [4, 5, 1],
        "exhaustion": [2, 5],
        "madness": [5, 3, 6],
        "pain": [1, 2],
        "helpers": {"b": [3]},
    }
    assert len(resolved.params["adjustments"]) == 3 and resolved.params["success"] is True
    assert resolved.params["strengths"] == {
        "discipline": 5,
        "exhaustion": 5,
        "madness": 6,
        "pain": 2,
    }
    assert t.rolls["a"].pending == {"a": "madness", "b": "madness"} and t.despair == 0
    t, _ = run(t, c.Choose(char="a", who="b", choice="check_flight"), actor=PLAYER)
    t, ev = run(t, c.Choose(char="a", choice="check_fight"), actor=PLAYER)
    assert codes(ev)[-1] == "roll_closed" and t.rolls == {}
    a, b = t.characters["a"], t.characters["b"]
    assert (a.fight, a.flight, a.madness, a.exhaustion) == (1, 0, 1, 2)
    assert (b.fight, b.flight) == (0, 1)
    assert (t.hope, t.despair) == (2, 0)


def test_legal_moves_are_exactly_what_the_rules_accept() -> None:
    """The view's ``legal`` menus (issue 13, item 10): every listed move is
    accepted and every unlisted one refused, so a menu never offers a move
    the server refuses (no fight to uncheck; failure consequences off)."""
    off = new_table({"a": {"discipline": 2}})
    off, _ = rolled(off, d=[5, 5], p=[6, 1])
    assert legal_moves(off, "a", off.rolls["a"]) == {"failures": ["none"], "choices": {}}
    on = new_table({"a": {"discipline": 2, "fight": 3}}, failure_consequences=True)
    on, _ = rolled(on, d=[5, 5], p=[6, 1])
    legal = legal_moves(on, "a", on.rolls["a"])
    assert legal["failures"] == ["none", "exhaustion", "flight"]  # fight is full (DRYH-21/18)
    refused(on, c.Resolve(char="a", failure="fight"), "response_full")

    t = new_table({"a": {"discipline": 2, "flight": 1, "exhaustion": 2}})
    t, _ = rolled(t, d=[6, 1], e=[2, 2], p=[4])
    t, _ = run(t, c.Resolve(char="a"))
    legal = legal_moves(t, "a", t.rolls["a"])
    assert legal == {"failures": [], "choices": {"a": ["uncheck_flight", "exhaustion_down", "nothing"]}}
    refused(t, c.Choose(char="a", choice="uncheck_fight"), "nothing_to_remove")
    for choice in legal["choices"]["a"]:
        run(t, c.Choose(char="a", choice=choice))  # type: ignore[arg-type]
    view = SYSTEM.public_table(t, frozenset({"a"}), frozenset())
    assert view["rolls"]["a"]["legal"] == legal
