"""DRYH-01…04: a conflict roll from opening to the dice on the table.

Phases run ``open → declared → rolled → adjusted → resolved``; each command
names the phases it accepts and anything else is refused with
``wrong_phase``. A character takes part in at most one open roll at a time,
as protagonist or helper (a Decision of DRYH-01 in :mod:`.rule_book`).
"""

from __future__ import annotations

import msgspec

from vigil.rules.dice import DiceSource, roll
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.consequences import raise_exhaustion
from vigil.rules.dryh.guards import awake, character, open_roll
from vigil.rules.dryh.reading import explain, reread
from vigil.rules.dryh.state import MAX_HELPERS, Declaration, Dice, DryhTable, Roll
from vigil.rules.outcome import Event, RuleError


def busy_in(t: DryhTable, char: str) -> str | None:
    """The protagonist of the open roll ``char`` takes part in, if any."""
    for owner, r in t.rolls.items():
        if owner == char or char in r.helpers:
            return owner
    return None


def open_(t: DryhTable, cmd: c.Open) -> list[Event]:
    """DRYH-01: the GM opens a challenge of ``pain`` dice for one character."""
    awake(t, cmd.char)
    if (owner := busy_in(t, cmd.char)) is not None:
        raise RuleError("in_another_roll", rule="DRYH-01", char=cmd.char, owner=owner)
    now = t.clock.now
    t.rolls[cmd.char] = Roll(opened_at=now, pain=cmd.pain, kind=cmd.kind)
    params = {"pain": cmd.pain, "kind": cmd.kind}
    return [Event(code="roll_opened", at=now, char=cmd.char, rule="DRYH-01", params=params)]


def cancel(t: DryhTable, cmd: c.Cancel) -> list[Event]:
    """Before the dice are rolled the GM may withdraw a roll; nothing happens."""
    open_roll(t, cmd.char, "open", "declared")
    del t.rolls[cmd.char]
    return [Event(code="roll_cancelled", at=t.clock.now, char=cmd.char, rule="DRYH-01")]


def declare(t: DryhTable, cmd: c.Declare) -> list[Event]:
    """DRYH-02/11/12/13: change what is added to the roll, until it is rolled."""
    r = open_roll(t, cmd.char, "open", "declared")
    me = character(t, cmd.char)
    old = r.declaration
    if cmd.exhaustion_up and old.raises_exhaustion:
        raise RuleError("exhaustion_up_once", rule="DRYH-02", char=cmd.char)
    new = Declaration(
        madness=old.madness if cmd.madness is None else cmd.madness,
        exhaustion_up=old.exhaustion_up if cmd.exhaustion_up is None else cmd.exhaustion_up,
        talent=old.talent if cmd.talent is None else cmd.talent,
    )
    check_talent(new, me.exhaustion, cmd.char)
    r.declaration = new
    r.phase = "declared"
    params = msgspec.to_builtins(new)
    # The sentence's words for the +1 exhaustion (a spoken choice, never "exhaustion +1: no").
    params["exhaustion_choice"] = "one_more_exhaustion_die" if new.exhaustion_up else "no_extra_exhaustion"
    params["counts"] = {"madness_dice": new.madness}  # "1 madness die", "no madness dice"
    return [Event(code="roll_declared", at=t.clock.now, char=cmd.char, rule="DRYH-02", params=params)]


def check_talent(d: Declaration, exhaustion: int, char: str) -> None:
    """DRYH-11: minor use needs exhaustion ≥ 1 before the roll, before its
    +1 (a Decision in :mod:`.rule_book`: the +1 lands when the dice are rolled).
    DRYH-13: a madness talent needs 1–6 temporary madness dice."""
    if d.talent == "exhaustion_minor" and exhaustion < 1:
        raise RuleError("talent_needs_exhaustion", rule="DRYH-11", char=char)
    if d.talent == "madness" and d.madness < 1:
        raise RuleError("talent_needs_madness", rule="DRYH-13", char=char)


def help_(t: DryhTable, cmd: c.Help) -> list[Event]:
    """DRYH-03: lend (or take back) a helper's discipline dice before the roll."""
    r = open_roll(t, cmd.char, "open", "declared")
    now = t.clock.now
    if cmd.leave:
        if cmd.helper not in r.helpers:
            raise RuleError("not_helping", rule="DRYH-03", char=cmd.helper, owner=cmd.char)
        r.helpers.remove(cmd.helper)
        return [
            Event(
                code="helper_left",
                at=now,
                char=cmd.helper,
                rule="DRYH-03",
                params={"owner": cmd.char},
            )
        ]
    if r.kind == "nightmare":
        raise RuleError("help_nightmare_challenge", rule="DRYH-03", owner=cmd.char)
    awake(t, cmd.helper)
    if (owner := busy_in(t, cmd.helper)) is not None:
        raise RuleError("in_another_roll", rule="DRYH-03", char=cmd.helper, owner=owner)
    if len(r.helpers) >= MAX_HELPERS:
        raise RuleError("too_many_helpers", rule="DRYH-03", limit=MAX_HELPERS)
    r.helpers.append(cmd.helper)
    return [
        Event(
            code="helper_joined",
            at=now,
            char=cmd.helper,
            rule="DRYH-03",
            params={"owner": cmd.char},
        )
    ]


def roll_(t: DryhTable, cmd: c.Roll, dice: DiceSource) -> list[Event]:
    """DRYH-04: roll every pool. The declared +1 exhaustion lands first (it
    may crash the character, DRYH-17, and the roll still goes on). Dice are
    drawn in a fixed order — discipline, exhaustion, madness, pain, then the
    helpers in joining order — which is also the order of manual faces."""
    r = open_roll(t, cmd.char, "open", "declared")
    me = awake(t, cmd.char)
    for helper in r.helpers:
        awake(t, helper)
    check_talent(r.declaration, me.exhaustion, cmd.char)
    events: list[Event] = []
    if r.declaration.raises_exhaustion:
        rule = "DRYH-12" if r.declaration.talent == "exhaustion_major" else "DRYH-02"
        events += raise_exhaustion(t, cmd.char, rule)
    r.dice = Dice(
        discipline=roll(dice, me.discipline),
        exhaustion=roll(dice, me.exhaustion),
        madness=roll(dice, me.madness + r.declaration.madness),
        pain=roll(dice, r.pain),
        helpers={h: roll(dice, t.characters[h].discipline) for h in r.helpers},
    )
    r.exhaustion_at_roll = me.exhaustion
    r.phase = "rolled"
    reread(r)
    params = {
        "dice": msgspec.to_builtins(r.dice),
        "successes": r.successes,
        "degree": r.degree,
        "success": r.success,
        "dominant": r.dominant,
        "explain": explain(r),
    }
    events.append(Event(code="roll_rolled", at=t.clock.now, char=cmd.char, rule="DRYH-04", params=params))
    return events
