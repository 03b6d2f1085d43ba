"""DRYH-08/09/10: coins spent on a rolled roll, before it is resolved.

Adjustments change the roll's current dice and are also listed in
``roll.adjustments``, so DRYH-10 can take the GM's spends back out and ask
whether pain would still dominate, and so the history shows every coin.
"""

from __future__ import annotations

import msgspec

from vigil.rules.dryh import commands as c
from vigil.rules.dryh.dominance import dominant
from vigil.rules.dryh.guards import open_roll
from vigil.rules.dryh.reading import pools_of, reread
from vigil.rules.dryh.state import POOLS, Adjustment, Dice, DryhTable, Pool, Roll
from vigil.rules.outcome import Event, RuleError

MAX_FACES = 64
"""A pool's size limit in the state; a spend that would pass it is refused."""


def despair_spend(t: DryhTable, cmd: c.DespairSpend) -> list[Event]:
    """DRYH-08: add or remove a 6 in any of the four pools, empty ones
    included (never a helper's); the coin moves from despair to hope."""
    r = open_roll(t, cmd.char, "rolled", "adjusted")
    if t.despair < 1:
        raise RuleError("no_despair", rule="DRYH-08")
    assert r.dice is not None
    faces = r.dice.pool(cmd.pool)
    if cmd.op == "remove":
        if 6 not in faces:
            raise RuleError("no_six", rule="DRYH-08", pool=cmd.pool)
        faces.remove(6)
    else:
        add_face(faces, cmd.pool)
        faces.append(6)
    t.despair -= 1
    t.hope += 1
    return adjusted(
        t,
        cmd.char,
        r,
        Adjustment(source="despair", op=cmd.op, pool=cmd.pool, face=6),
        "despair_spent",
        "DRYH-08",
    )


def hope_improve(t: DryhTable, cmd: c.HopeImprove) -> list[Event]:
    """DRYH-09: 1 hope adds a die showing 1 to the protagonist's discipline."""
    r = open_roll(t, cmd.char, "rolled", "adjusted")
    if t.hope < 1:
        raise RuleError("no_hope", rule="DRYH-09")
    assert r.dice is not None
    add_face(r.dice.discipline, "discipline")
    r.dice.discipline.append(1)
    t.hope -= 1
    return adjusted(
        t,
        cmd.char,
        r,
        Adjustment(source="hope", op="add", pool="discipline", face=1),
        "hope_improved",
        "DRYH-09",
    )


def add_face(faces: list[int], pool: Pool) -> None:
    if len(faces) >= MAX_FACES:
        raise RuleError("pool_full", pool=pool, limit=MAX_FACES)


def adjusted(t: DryhTable, char: str, r: Roll, adj: Adjustment, code: str, rule: str) -> list[Event]:
    r.adjustments.append(adj)
    r.phase = "adjusted"
    reread(r)
    assert r.dice is not None
    params = {
        **msgspec.to_builtins(adj),
        "faces": list(r.dice.pool(adj.pool)),
        "successes": r.successes,
        "degree": r.degree,
        "success": r.success,
        "dominant": r.dominant,
        "hope": t.hope,
        "despair": t.despair,
    }
    return [Event(code=code, at=t.clock.now, char=char, rule=rule, params=params)]


def without_despair(dice: Dice, adjustments: list[Adjustment]) -> Dice:
    """DRYH-10: the dice as they would be with every despair adjustment
    undone and the hope additions kept."""
    pools = {p: list(dice.pool(p)) for p in POOLS}
    for adj in reversed(adjustments):
        if adj.source != "despair":
            continue
        faces = pools[adj.pool]
        if adj.op == "remove":
            faces.append(6)
        elif 6 in faces:
            faces.remove(6)
    return msgspec.structs.replace(dice, **pools)


def despair_bought_pain(r: Roll) -> bool:
    """DRYH-10: pain dominates now, but would not without the despair spends."""
    assert r.dice is not None
    undone = without_despair(r.dice, r.adjustments)
    return r.dominant == "pain" and dominant(pools_of(undone)) != "pain"
