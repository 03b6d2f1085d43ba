"""DRYH-06/07: strength and dominance of the four pools.

Dominance is a total order over non-empty pools, so exactly one pool
dominates whenever any pool has a die, and the answer never depends on the
order the dice were listed or the pools were given:

1. higher strength (the highest die) wins (DRYH-06/07);
2. on a tie (the Decision of DRYH-07 in :mod:`.rule_book`), the tied pools'
   dice sorted high to low are compared position by position, a missing die
   losing to any die;
3. still equal: discipline > madness > exhaustion > pain.

Steps 1 and 2 together are exactly Python's tuple order on the sorted faces.
Helper dice are never passed in: they never count for strength (DRYH-06).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vigil.rules.dryh.state import POOLS, Pool

PRIORITY: dict[Pool, int] = {"discipline": 3, "madness": 2, "exhaustion": 1, "pain": 0}
"""DRYH-07 (a Decision in :mod:`.rule_book`): the last tie-break, highest first."""


def strength(faces: Sequence[int]) -> int | None:
    """DRYH-06: a pool's highest die; an empty pool has no strength."""
    return max(faces, default=None)


def rank(pool: Pool, faces: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The sort key of a pool under DRYH-07 (greater dominates)."""
    return tuple(sorted(faces, reverse=True)), PRIORITY[pool]


def beats(a: tuple[Pool, Sequence[int]], b: tuple[Pool, Sequence[int]]) -> bool:
    """Whether pool ``a`` dominates pool ``b`` (both non-empty, distinct)."""
    return rank(*a) > rank(*b)


def dominant(pools: Mapping[Pool, Sequence[int]]) -> Pool | None:
    """DRYH-07: the dominating pool, or None when no pool has a die."""
    candidates = [(p, pools.get(p, ())) for p in POOLS if pools.get(p)]
    if not candidates:
        return None
    return max(candidates, key=lambda c: rank(*c))[0]


def strengths(pools: Mapping[Pool, Sequence[int]]) -> dict[Pool, int | None]:
    return {p: strength(pools.get(p, ())) for p in POOLS}


def why_dominant(pools: Mapping[Pool, Sequence[int]]) -> dict[str, object] | None:
    """DRYH-07 in words' terms: the dominating pool and its closest rival,
    each with its strength, and what settled it — ``strength`` (a higher
    die), ``next_die`` (the tie-break on the following dice) or
    ``priority`` (the last tie-break); no rival when one pool alone has
    dice. None when no pool has a die. For the outcome's explanation, so
    that no client re-reads the dice."""
    filled = [(p, pools.get(p, ())) for p in POOLS if pools.get(p)]
    ranked = sorted(filled, key=lambda c: rank(*c), reverse=True)
    if not ranked:
        return None
    (pool, faces), rival = ranked[0], (ranked[1] if len(ranked) > 1 else None)
    out: dict[str, object] = {"pool": pool, "strength": strength(faces), "rival": None, "by": "alone"}
    if rival is not None:
        top, other = sorted(faces, reverse=True), sorted(rival[1], reverse=True)
        by = "strength" if top[0] != other[0] else "next_die" if top != other else "priority"
        out.update(rival=rival[0], rival_strength=strength(rival[1]), by=by)
    return out
