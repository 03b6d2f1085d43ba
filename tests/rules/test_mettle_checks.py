"""Checks and the Cast Lot (MET-01…MET-04), table options, words."""

from __future__ import annotations

import msgspec
import pytest
from mettle_helpers import PLAYER, char, decode, new_table, one, refused, run, snapshot, table_of

from vigil.rules import words
from vigil.rules.dice import RandomDice
from vigil.rules.mettle import commands as c
from vigil.rules.mettle import words as mettle_words
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import Event, RuleError


@pytest.mark.parametrize(
    ("stat", "mods", "tn", "lot", "passed"),
    [
        (3, 1, 4, "plain", True),
        (3, 0, 4, "plain", False),
        (0, 0, 99, "crit", True),
        (99, 0, 0, "fail", False),
    ],
)
def test_met01_met02_check_compares_and_lot_overrides(
    stat: int, mods: int, tn: int, lot: str, passed: bool
) -> None:
    """MET-01: stat + modifiers ≥ TN; MET-02: a crit passes whatever the
    numbers, a fail fails whatever the numbers."""
    table = table_of(a={"mettle": 3})
    out = run(table, c.Check(char="a", stat=stat, modifiers=mods, tn=tn, lot=lot))  # type: ignore[arg-type]
    event = one(out.events, "check")
    assert (event.rule, event.params["passed"], event.params["total"]) == (
        "MET-01",
        passed,
        stat + mods,
    )
    assert snapshot(out.state) == snapshot(table)


def test_met03_injury_penalty_subtracted_once() -> None:
    """MET-03: the sum of all injuries, subtracted from the roll only."""
    injuries = [{"id": "i1", "penalty": 1}, {"id": "i2", "penalty": 2}]
    table = table_of(a={"mettle": 3, "injuries": injuries})
    params = one(run(table, c.Check(char="a", stat=6, tn=3)).events, "check").params
    assert (params["injury_penalty"], params["total"], params["tn"], params["passed"]) == (
        3,
        3,
        3,
        True,
    )


def test_met02_without_lot_or_weights_the_check_is_plain() -> None:
    table = table_of(a={"mettle": 3})
    params = one(run(table, c.Check(char="a", stat=1, tn=1)).events, "check").params
    assert (params["lot"], params["lot_drawn"]) == ("plain", False)


def test_met02_lot_weights_draw_and_same_seed_same_lots() -> None:
    """MET-02 option ``lot_weights``: the server draws; a seed repeats."""
    table = table_of({"lot_weights": {"crit": 1, "plain": 1, "fail": 1}}, a={"mettle": 3})

    def lots(seed: int) -> list[str]:
        dice = RandomDice(seed)
        return [
            one(run(table, c.Check(char="a", stat=0, tn=0), dice).events, "check").params["lot"]
            for _ in range(30)
        ]

    assert lots(7) == lots(7)
    assert set(lots(7)) == {"crit", "plain", "fail"}
    given = run(table, c.Check(char="a", stat=0, tn=0, lot="fail")).events
    assert one(given, "check").params["lot_drawn"] is False


def test_met02_manual_lots_by_the_gm() -> None:
    """MET-02 with ``manual_dice``: the GM submits the drawn lot by index."""
    options = {"lot_weights": {}, "manual_dice": True}
    table = table_of(options, a={"mettle": 3})
    out = run(table, c.Pain(char="a", amount=9, lots=[0]))
    assert one(out.events, "tym").params["lot"] == "crit"
    assert char(out.state).status == "active"
    refused(table, c.Pain(char="a", amount=1, lots=[0]), "manual_dice_gm_only", actor=PLAYER)
    refused(table, c.Pain(char="a", amount=1, lots=[3]), "dice_bad_lot")
    refused(table, c.Pain(char="a", amount=1, lot="plain", lots=[1]), "dice_too_many")
    plain = table_of(a={"mettle": 3})
    refused(plain, c.Pain(char="a", amount=1, lots=[1]), "manual_dice_off")


def test_met02_options_defaults_and_refusals() -> None:
    """Table options: ``lot_weights`` None and ``manual_dice`` False by default."""
    table = new_table()
    assert (table.options.lot_weights, table.options.manual_dice) == (None, False)
    weights = new_table(lot_weights={}).options.lot_weights
    assert weights is not None and (weights.crit, weights.plain, weights.fail) == (1, 10, 1)
    for bad in ({"lot_weights": {"crit": 0, "plain": 0, "fail": 0}}, {"bogus": 1}):
        with pytest.raises(RuleError) as err:
            new_table(**bad)
        assert err.value.code == "bad_options"


def test_met02_all_zero_lot_weights_are_refused_when_options_change() -> None:
    """MET-02: weights that are all 0 could never draw a lot, so an option
    change to them is refused like a new table with them (not left to fail
    at the next check)."""
    table = table_of(a={"mettle": 3})
    table.options = msgspec.convert({"lot_weights": {"crit": 0, "plain": 0, "fail": 0}}, type(table.options))
    with pytest.raises(RuleError) as err:
        SYSTEM.validate(table)
    assert err.value.code == "bad_options"


def test_met01_checks_need_an_acting_character_except_tym() -> None:
    """MET-07: the unconscious cannot act; a TYM may still be asked."""
    table = table_of(a={"mettle": 3, "status": "unconscious", "pain": 2})
    refused(table, c.Check(char="a", stat=1, tn=1), "cannot_act")
    out = run(table, c.Check(char="a", stat=3, tn=2, kind="tym"))
    assert one(out.events, "check").params["passed"] is True


def test_met01_commands_are_bounded_by_the_decoder() -> None:
    """Bad input is refused by the typed decoder (docs/design.md "Limits")."""
    assert decode({"type": "mettle.pain", "char": "a", "amount": 2}) == c.Pain(char="a", amount=2)
    for bad in (
        {"type": "mettle.pain", "char": "a", "amount": 0},
        {"type": "mettle.pain", "char": "a", "amount": 1, "lot": "great"},
        {"type": "mettle.pain", "char": "a", "amount": 1, "extra": 1},
        {"type": "mettle.injury_add", "char": "a", "penalty": 1, "label": "x" * 65},
        {"type": "mettle.stabilize", "char": "a", "helper": "h", "discipline": "x", "kit": "k", "tn": 1},
        {"type": "mettle.kit_set", "char": "a", "kit": "k", "uses": -1},
    ):
        with pytest.raises(msgspec.ValidationError):
            decode(bad)


def test_every_code_has_an_english_template() -> None:
    """Every event and error code of the game renders as a sentence."""
    events, errors = words.catalogue()
    assert set(mettle_words.EVENTS) <= set(events)
    assert set(mettle_words.ERRORS) <= set(errors)
    sentence = words.english(Event(code="tym", at=0, char="a", params={"total": 1, "tn": 2}))
    assert sentence.startswith("a tests their mettle with 1 against pain 2")
    assert SYSTEM.name == "mettle"
