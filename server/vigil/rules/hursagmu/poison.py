"""HUR-13: poisons and drugs.

Doses fall at application + k × interval for k = 1 … ⌊duration / interval⌋
(at most 1,000; more is refused), so a poison's whole schedule is fixed when
it is applied and each dose is its own timed effect, keyed by the poison's
id. Each application is its own poison: two stack. (These are Decisions of
HUR-13 in :mod:`.rule_book`.)
A poison is resisted with constitution and causes wounds, a drug with
willpower and causes shocks (HUR-12, no armour); after the last dose the
character has fought it off.
"""

from __future__ import annotations

from vigil.rules.game import Ctx, Due
from vigil.rules.hursagmu.commands import ApplyPoison
from vigil.rules.hursagmu.conditions import conditions, final_status, settle
from vigil.rules.hursagmu.guards import add, living
from vigil.rules.hursagmu.resistance import resist
from vigil.rules.hursagmu.state import MAX_DOSES, HursagmuTable, Poison
from vigil.rules.outcome import Event, RuleError

EFFECT = {"poison": ("constitution", "wounds"), "drug": ("willpower", "shocks")}


def apply_poison(table: HursagmuTable, cmd: ApplyPoison) -> list[Event]:
    ch = living(table, cmd.char)
    doses = cmd.duration // cmd.interval
    if doses < 1:
        raise RuleError("poison_too_short", rule="HUR-13", interval=cmd.interval, duration=cmd.duration)
    if doses > MAX_DOSES:
        raise RuleError("too_many_doses", rule="HUR-13", doses=doses, limit=MAX_DOSES)
    seq = ch.poison_seq + 1
    while f"p{seq:04d}" in ch.poisons:  # a corrected sheet may hold any id
        seq += 1
    pid = f"p{seq:04d}"
    ch.poison_seq = seq
    poison = Poison(
        kind=cmd.kind,
        name=cmd.name,
        damage=cmd.damage,
        applied_at=table.clock.now,
        interval=cmd.interval,
        doses=doses,
    )
    ch.poisons[pid] = poison
    params = {
        "poison": pid,
        "kind": cmd.kind,
        "name": cmd.name,
        **poison.said,
        "damage": cmd.damage,
        "interval": cmd.interval,
        "doses": doses,
        "first_at": poison.dose_at(1),
        "ends_at": poison.ends_at,
    }
    return [Event(code="poisoned", at=table.clock.now, char=cmd.char, rule="HUR-13", params=params)]


def poison_dues(table: HursagmuTable) -> list[Due]:
    return [
        Due(p.dose_at(p.next_dose), cid, "HUR-13", pid)
        for cid, ch in table.characters.items()
        if final_status(ch) is None
        for pid, p in ch.poisons.items()
    ]


def fire_dose(table: HursagmuTable, char_id: str, pid: str, ctx: Ctx) -> list[Event]:
    ch = table.characters[char_id]
    poison = ch.poisons[pid]
    trait, track = EFFECT[poison.kind]
    before = conditions(ch)
    taken, params = resist(table.options, ch, poison.damage, trait, 0, ctx.dice)
    add(ch, track, taken)
    dose = poison.next_dose
    params.update(
        poison=pid,
        **poison.said,
        dose=dose,
        doses=poison.doses,
        track=track,
        counts={track: taken},
    )
    now = table.clock.now
    events = [Event(code="poison_dose", at=now, char=char_id, rule="HUR-13", params=params)]
    if dose >= poison.doses:
        del ch.poisons[pid]
        if final_status(ch) is None:
            events.append(
                Event(
                    code="poison_fought_off",
                    at=now,
                    char=char_id,
                    rule="HUR-13",
                    params={"poison": pid, **poison.said},
                )
            )
    else:
        poison.next_dose = dose + 1
    return events + settle(table, char_id, before)
