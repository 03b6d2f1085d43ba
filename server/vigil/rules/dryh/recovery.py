"""DRYH-18/22/23/24: getting better outside a roll."""

from __future__ import annotations

from vigil.rules.dryh import commands as c
from vigil.rules.dryh.guards import character
from vigil.rules.dryh.state import DryhTable
from vigil.rules.outcome import Event, RuleError


def hope_spend(t: DryhTable, cmd: c.HopeSpend) -> list[Event]:
    """DRYH-22: 1 hope removes one exhaustion or unchecks one response.
    It does not wake a crashed character, even if exhaustion drops back to 6
    (a Decision in :mod:`.rule_book`: only the GM does, DRYH-24)."""
    me = character(t, cmd.char)
    if t.hope < 1:
        raise RuleError("no_hope", rule="DRYH-22")
    before: int = getattr(me, cmd.what)
    if before == 0:
        raise RuleError("nothing_to_remove", rule="DRYH-22", char=cmd.char, what=cmd.what)
    setattr(me, cmd.what, before - 1)
    t.hope -= 1
    params = {"what": cmd.what, "before": before, "after": before - 1, "hope": t.hope}
    return [Event(code="hope_spent", at=t.clock.now, char=cmd.char, rule="DRYH-22", params=params)]


def recover_cost(discipline: int) -> int:
    """DRYH-23: five minus discipline, never below 1."""
    return max(5 - discipline, 1)


def recover_discipline(t: DryhTable, cmd: c.RecoverDiscipline) -> list[Event]:
    """DRYH-23: +1 discipline and −1 permanent madness for (5 − D) hope."""
    me = character(t, cmd.char)
    if me.madness < 1:
        raise RuleError("no_madness", rule="DRYH-23", char=cmd.char)
    cost = recover_cost(me.discipline)
    if t.hope < cost:
        raise RuleError("not_enough_hope", rule="DRYH-23", cost=cost, hope=t.hope)
    t.hope -= cost
    me.discipline = min(me.discipline + 1, 30)
    me.madness -= 1
    params = {"cost": cost, "discipline": me.discipline, "madness": me.madness, "hope": t.hope}
    return [
        Event(
            code="discipline_recovered",
            at=t.clock.now,
            char=cmd.char,
            rule="DRYH-23",
            params=params,
        )
    ]


def wake(t: DryhTable, cmd: c.Wake) -> list[Event]:
    """DRYH-24: the GM wakes a crashed character; with ``wake_resets``
    exhaustion and responses are cleared, otherwise exhaustion is 6."""
    me = character(t, cmd.char)
    if me.status != "crashed":
        raise RuleError("not_crashed", rule="DRYH-24", char=cmd.char)
    me.status = "awake"
    if t.options.wake_resets:
        me.exhaustion = me.fight = me.flight = 0
    else:
        me.exhaustion = 6
    params = {"exhaustion": me.exhaustion, "fight": me.fight, "flight": me.flight}
    return [Event(code="woke", at=t.clock.now, char=cmd.char, rule="DRYH-24", params=params)]


def clear_snap(t: DryhTable, cmd: c.ClearSnap) -> list[Event]:
    """DRYH-18: a snapped character is mad "for a time"; the GM ends it."""
    me = character(t, cmd.char)
    if not me.snapped:
        raise RuleError("not_snapped", rule="DRYH-18", char=cmd.char)
    me.snapped = False
    return [Event(code="snap_cleared", at=t.clock.now, char=cmd.char, rule="DRYH-18")]
