"""HUR-14: falls.

Fewer than 2 whole spaces do nothing; otherwise the damage is 2 × spaces,
at most 20, applied against constitution (HUR-12) with no armour. An athlete
roll against that damage, made first, adds its dx to constitution.
"""

from __future__ import annotations

import math

from vigil.rules.game import Ctx
from vigil.rules.hursagmu.commands import Fall
from vigil.rules.hursagmu.conditions import conditions, settle
from vigil.rules.hursagmu.guards import add, awake, living
from vigil.rules.hursagmu.penalties import condition_penalty
from vigil.rules.hursagmu.resistance import resist
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import Event

MIN_SPACES = 2
DAMAGE_PER_SPACE = 2
MAX_DAMAGE = 20


def fall_damage(spaces: float) -> int:
    """Partial spaces round down: 2.9 spaces is a 2-space fall (4 damage)."""
    whole = math.floor(spaces)
    if whole < MIN_SPACES:
        return 0
    return min(MAX_DAMAGE, DAMAGE_PER_SPACE * whole)


def fall(table: HursagmuTable, cmd: Fall, ctx: Ctx) -> list[Event]:
    ch = awake(table, cmd.char) if cmd.athlete else living(table, cmd.char)
    now = table.clock.now
    amount = fall_damage(cmd.spaces)
    if amount == 0:
        # No athlete roll either: nothing to break (a Decision of HUR-14, rule_book).
        harmless = Event(
            code="fall_harmless",
            at=now,
            char=cmd.char,
            rule="HUR-14",
            params={"spaces": cmd.spaces},
        )
        return [harmless]
    before = conditions(ch)
    events: list[Event] = []
    bonus = 0
    if cmd.athlete:
        # Breaking a fall is a physical action: HUR-02's wound penalty applies.
        penalty = condition_penalty(ch, "physical")
        result = trait_roll(ctx.dice, ch.level("athlete"), amount, penalty)
        bonus = max(0, result.dx)
        ch.may_act_second = False
        params = {
            **result.params(),
            "trait": "athlete",
            "condition_penalty": penalty,
            "bonus": bonus,
        }
        events.append(Event(code="fall_broken", at=now, char=cmd.char, rule="HUR-14", params=params))
    taken, params = resist(table.options, ch, amount, "constitution", bonus, ctx.dice)
    add(ch, "wounds", taken)
    params.update(source="fall", spaces=cmd.spaces)
    events.append(Event(code="resisted", at=now, char=cmd.char, rule="HUR-14", params=params))
    return events + settle(table, cmd.char, before)
