"""Harm dealt by the GM: direct stuns/wounds/shocks, and damage resisted
with constitution (HUR-12). Both end by settling the character's conditions
(HUR-04…06)."""

from __future__ import annotations

from vigil.rules.game import Ctx
from vigil.rules.hursagmu.commands import Damage, Harm
from vigil.rules.hursagmu.conditions import conditions, settle
from vigil.rules.hursagmu.guards import add, living
from vigil.rules.hursagmu.resistance import resist
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import Event, RuleError


def harm(table: HursagmuTable, cmd: Harm) -> list[Event]:
    ch = living(table, cmd.char)
    if cmd.stuns == cmd.wounds == cmd.shocks == 0:
        raise RuleError("no_harm", char=cmd.char)
    before = conditions(ch)
    add(ch, "stuns", cmd.stuns)
    add(ch, "wounds", cmd.wounds)
    add(ch, "shocks", cmd.shocks)
    params: dict[str, object] = {"stuns": cmd.stuns, "wounds": cmd.wounds, "shocks": cmd.shocks}
    # What the sentence lists: the harm given, never a count of 0 ("takes 8 wounds").
    params["counts"] = {k: v for k, v in params.items() if v}
    event = Event(code="harmed", at=table.clock.now, char=cmd.char, params=params)
    return [event, *settle(table, cmd.char, before)]


def damage(table: HursagmuTable, cmd: Damage, ctx: Ctx) -> list[Event]:
    """HUR-12: damage against constitution, ``bonus`` for armour and the like."""
    ch = living(table, cmd.char)
    before = conditions(ch)
    taken, params = resist(table.options, ch, cmd.amount, "constitution", cmd.bonus, ctx.dice)
    add(ch, "wounds", taken)
    params["source"] = "damage"
    event = Event(code="resisted", at=table.clock.now, char=cmd.char, rule="HUR-12", params=params)
    return [event, *settle(table, cmd.char, before)]
