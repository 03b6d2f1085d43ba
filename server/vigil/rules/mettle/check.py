"""Checks and the Cast Lot (MET-01…MET-04).

Every check of the game goes through :func:`resolve`, so Test Your Mettle, a
stabilize attempt and a GM's generic check all apply the same penalties and
the same reading of the lot.
"""

from __future__ import annotations

from typing import Any

from vigil.rules.clock import GameClock
from vigil.rules.dice import DiceSource
from vigil.rules.mettle.rattle import rattle_now
from vigil.rules.mettle.state import LOTS, Character, CheckKind, Lot, Options


def cast_lot(given: Lot | None, options: Options, dice: DiceSource) -> tuple[Lot, bool]:
    """MET-02: the lot the GM submitted; else one drawn with ``lot_weights``;
    else plain (the bare comparison). Returns (lot, drawn by the server)."""
    if given is not None:
        return given, False
    weights = options.lot_weights
    if weights is None:
        return "plain", False
    return LOTS[dice.weighted([weights.crit, weights.plain, weights.fail])], True


def injury_penalty(char: Character) -> int:
    """MET-03: the sum of every injury's penalty, applied once to each check."""
    return sum(injury.penalty for injury in char.injuries)


def resolve(
    char: Character,
    clock: GameClock,
    *,
    stat: int,
    modifiers: int,
    tn: int,
    kind: CheckKind,
    lot: Lot,
    drawn: bool,
) -> dict[str, Any]:
    """MET-01: pass when ``stat + modifiers − rattle − injury ≥ TN`` unless
    the lot says otherwise (a crit passes, a fail fails: MET-02). The injury
    penalty is subtracted from the roll, never added to the TN (MET-03); the
    rattle penalty applies to every kind but Test Your Mettle (MET-04).
    Returns the event parameters, ``passed`` included."""
    injury = injury_penalty(char)
    rattle = 0 if kind == "tym" else rattle_now(char, clock)
    total = stat + modifiers - injury - rattle
    passed = lot == "crit" or (lot == "plain" and total >= tn)
    return {
        "kind": kind,
        "stat": stat,
        "modifiers": modifiers,
        "injury_penalty": injury,
        "rattle_penalty": rattle,
        "total": total,
        "tn": tn,
        "lot": lot,
        "lot_drawn": drawn,
        "passed": passed,
        # How people say it, the lot named only when it decided: "passes",
        # "fails on a fail lot" (never "lot fail, passed: no").
        "outcome": _outcome(passed, lot),
    }


def _outcome(passed: bool, lot: Lot) -> str:
    """The check's outcome as a choice code whose words say why: a crit or
    a fail lot decides whatever the total (MET-02), so it is named."""
    if lot == "crit":
        return "passes_on_a_crit_lot"
    if lot == "fail":
        return "fails_on_a_fail_lot"
    return "passes" if passed else "fails"
