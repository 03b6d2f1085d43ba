"""DRYH-05/11/12: reading a roll's dice into successes, degree and outcome."""

from __future__ import annotations

from collections.abc import Iterable

from vigil.rules.dryh.dominance import dominant, why_dominant
from vigil.rules.dryh.state import POOLS, Declaration, Dice, Pool, Roll

PLAYER_POOLS: tuple[Pool, ...] = ("discipline", "exhaustion", "madness")


def hits(faces: Iterable[int]) -> int:
    """DRYH-05: a die showing 1, 2 or 3 is a success."""
    return sum(1 for f in faces if 1 <= f <= 3)


def player_successes(dice: Dice, declaration: Declaration, exhaustion: int) -> int:
    """DRYH-05 plus the talents: discipline, exhaustion, madness and every
    helper's discipline dice; DRYH-12 adds the exhaustion level, DRYH-11
    makes it a floor. ``exhaustion`` is the level when the dice were rolled
    (after any +1): a later hope spend does not change a talent already used
    (a Decision of DRYH-11 in :mod:`.rule_book`)."""
    count = sum(hits(dice.pool(p)) for p in PLAYER_POOLS)
    count += sum(hits(faces) for faces in dice.helpers.values())
    if declaration.talent == "exhaustion_major":
        count += exhaustion
    elif declaration.talent == "exhaustion_minor":
        count = max(count, exhaustion)
    return count


def gm_degree(dice: Dice) -> int:
    """DRYH-05: the GM's degree is the pain dice showing 1–3."""
    return hits(dice.pain)


def pools_of(dice: Dice) -> dict[Pool, list[int]]:
    """The four pools that can dominate (DRYH-06: never the helpers')."""
    return {p: dice.pool(p) for p in POOLS}


def reread(roll: Roll) -> None:
    """Recompute the stored reading after a roll or an adjustment, so the
    state always shows what the dice say now."""
    assert roll.dice is not None and roll.exhaustion_at_roll is not None
    roll.successes = player_successes(roll.dice, roll.declaration, roll.exhaustion_at_roll)
    roll.degree = gm_degree(roll.dice)
    roll.success = roll.successes >= roll.degree
    roll.dominant = dominant(pools_of(roll.dice))


def explain(roll: Roll) -> dict[str, object]:
    """Why the roll reads as it does, for the outcome's explanation:
    successes from the dice showing 1–3 (DRYH-05) and what the talent
    added or set (DRYH-11/12), against the GM's degree; and why its pool
    dominates (DRYH-07). Computed here, from the rules' own functions, so
    that the pages and the module only put it into words."""
    assert roll.dice is not None and roll.exhaustion_at_roll is not None
    from_dice = sum(hits(roll.dice.pool(p)) for p in PLAYER_POOLS)
    from_dice += sum(hits(faces) for faces in roll.dice.helpers.values())
    total = player_successes(roll.dice, roll.declaration, roll.exhaustion_at_roll)
    return {
        "from_dice": from_dice,
        "talent": roll.declaration.talent,
        "talent_adds": total - from_dice,
        "successes": total,
        "degree": gm_degree(roll.dice),
        "success": total >= gm_degree(roll.dice),
        "dominance": why_dominant(pools_of(roll.dice)),
    }
