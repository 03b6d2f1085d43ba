"""HUR-11: a healer's daily roll for a patient.

One roll of 2d6 + healer trait is compared with wounds and with shocks
separately; each success lowers that value by its own dx. The roll comes
after the patient's natural recovery of the day (a Decision of HUR-11 in
:mod:`.rule_book`: the GM runs "morning" first; a spoiled rest, HUR-10,
prevents it).
"""

from __future__ import annotations

from typing import Any

from vigil.rules.game import Ctx
from vigil.rules.hursagmu.commands import Heal
from vigil.rules.hursagmu.conditions import conditions, settle
from vigil.rules.hursagmu.guards import awake, living
from vigil.rules.hursagmu.recovery import day_of
from vigil.rules.hursagmu.roll import TraitRoll, trait_roll
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import Event, RuleError


def _healer_level(table: HursagmuTable, cmd: Heal) -> int:
    if (cmd.healer is None) == (cmd.healer_level is None):
        raise RuleError("healer_choice", rule="HUR-11")
    if cmd.healer_level is not None:
        return cmd.healer_level
    assert cmd.healer is not None
    healer = awake(table, cmd.healer)
    if "healer" not in healer.traits:
        raise RuleError("not_a_healer", rule="HUR-11", char=cmd.healer)
    return healer.traits["healer"]


def heal(table: HursagmuTable, cmd: Heal, ctx: Ctx) -> list[Event]:
    patient = living(table, cmd.patient)
    level = _healer_level(table, cmd)
    day = day_of(table.clock.now)
    if patient.spoiled_day == day:
        raise RuleError("rest_spoiled", rule="HUR-10", char=cmd.patient)
    if patient.recovered_day != day:
        raise RuleError("recovery_first", rule="HUR-11", char=cmd.patient)
    if patient.healed_day == day:
        raise RuleError("already_healed", rule="HUR-11", char=cmd.patient, day=day)
    if patient.wounds == 0 and patient.shocks == 0:
        raise RuleError("nothing_to_heal", rule="HUR-11", char=cmd.patient)
    before = conditions(patient)
    first = trait_roll(ctx.dice, level, patient.wounds)
    params: dict[str, Any] = {
        "faces": list(first.faces),
        "level": level,
        "total": first.total,
        "healer": cmd.healer,
    }
    for track in ("wounds", "shocks"):
        value: int = getattr(patient, track)
        if value == 0:
            continue
        # The same faces against each value: one roll, two comparisons.
        result = TraitRoll(first.faces, level, 0, value)
        if result.success:
            setattr(patient, track, max(0, value - result.dx))
        params[track] = {
            "target": value,
            "success": result.success,
            "dx": result.dx,
            "after": getattr(patient, track),
        }
    patient.healed_day = day
    # A healer of the table is named ("Sarah tends Juk"); one given only by
    # its level is an NPC the table does not know by name.
    code = "healer_rolled" if cmd.healer is not None else "level_healer_rolled"
    event = Event(code=code, at=table.clock.now, char=cmd.patient, rule="HUR-11", params=params)
    return [event, *settle(table, cmd.patient, before)]
