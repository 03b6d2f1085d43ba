"""HUR-14: falls.

Fewer than 2 whole spaces do nothing; otherwise the damage is 2 × spaces,
at most 20, applied against constitution (HUR-12) with no armour. An athlete
roll against that damage, made first, adds its dx to constitution.

The GM declares the fall; the falling character then chooses, as a pending
fall: ``break_fall`` (the athlete roll, its player's) or ``take_fall``.
Until then it does nothing else of its own (:data:`WAIT`; a Decision of
HUR-14 in :mod:`.rule_book`).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from vigil.rules.commands import Command
from vigil.rules.game import Ctx, Wait
from vigil.rules.hursagmu.commands import BreakFall, Fall, TakeFall
from vigil.rules.hursagmu.conditions import conditions, final_status, is_unconscious, settle
from vigil.rules.hursagmu.guards import add, awake, living
from vigil.rules.hursagmu.penalties import condition_penalty
from vigil.rules.hursagmu.resistance import resist
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import Character, HursagmuTable
from vigil.rules.outcome import Event, RuleError

MIN_SPACES = 2
DAMAGE_PER_SPACE = 2
MAX_DAMAGE = 20

# A pending fall holds its character as a pending choice holds a DRYH roll
# open: the answers settle it; the character's own actions (its rolls, a
# rest, healing another) wait until then. The GM's doings to it (harm,
# damage, poison, senses, the night's terms, the morning) and the clock's
# effects do not.
WAIT = Wait(
    field="pending_fall",
    answers=("hursagmu.break_fall", "hursagmu.take_fall"),
    blocks={
        "hursagmu.trait_roll": "char",
        "hursagmu.see_dim": "char",
        "hursagmu.rest": "char",
        "hursagmu.heal": "healer",
    },
    refusal="falling",
)


def refuse_while_falling(table: HursagmuTable, cmd: Command) -> None:
    """HUR-14: refuse ``cmd`` when the character acting in it (``WAIT.blocks``)
    has a fall pending (one in a final state is refused for that instead)."""
    name = WAIT.blocks.get(str(type(cmd).__struct_config__.tag))
    if name is None:
        return
    plain: dict[str, Any] = msgspec.structs.asdict(cmd)
    char_id = plain.get(name)
    ch = table.characters.get(char_id) if isinstance(char_id, str) else None
    if ch is not None and ch.pending_fall is not None and final_status(ch) is None:
        raise RuleError(WAIT.refusal, rule="HUR-14", char=char_id, spaces=ch.pending_fall)


def fall_damage(spaces: float) -> int:
    """Partial spaces round down: 2.9 spaces is a 2-space fall (4 damage)."""
    whole = math.floor(spaces)
    if whole < MIN_SPACES:
        return 0
    return min(MAX_DAMAGE, DAMAGE_PER_SPACE * whole)


def fall(table: HursagmuTable, cmd: Fall, ctx: Ctx) -> list[Event]:
    """The GM's declaration. A harmless fall is told at once; one that can
    harm an awake character waits as its pending fall (its player rolls or
    takes it, as DRYH's pending choices); the unconscious cannot roll, so
    their fall lands now."""
    ch = living(table, cmd.char)
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
    if ch.pending_fall is not None:
        raise RuleError("fall_pending", rule="HUR-14", char=cmd.char, spaces=ch.pending_fall)
    if is_unconscious(ch):
        return land(table, cmd.char, cmd.spaces, 0, ctx)
    ch.pending_fall = cmd.spaces
    params = {"spaces": cmd.spaces, "damage": amount}
    return [Event(code="fall_declared", at=now, char=cmd.char, rule="HUR-14", params=params)]


def _pending(ch: Character, char_id: str) -> float:
    if ch.pending_fall is None:
        raise RuleError("no_pending_fall", rule="HUR-14", char=char_id)
    return ch.pending_fall


def break_fall(table: HursagmuTable, cmd: BreakFall, ctx: Ctx) -> list[Event]:
    """Athlete against the damage; a success's dx adds to constitution."""
    ch = awake(table, cmd.char)
    spaces = _pending(ch, cmd.char)
    amount = fall_damage(spaces)
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
    broken = Event(code="fall_broken", at=table.clock.now, char=cmd.char, rule="HUR-14", params=params)
    return [broken, *land(table, cmd.char, spaces, bonus, ctx)]


def take_fall(table: HursagmuTable, cmd: TakeFall, ctx: Ctx) -> list[Event]:
    """The fall resisted with constitution alone."""
    ch = living(table, cmd.char)
    return land(table, cmd.char, _pending(ch, cmd.char), 0, ctx)


def land(table: HursagmuTable, char_id: str, spaces: float, bonus: int, ctx: Ctx) -> list[Event]:
    """The fall's damage against constitution (HUR-12, no armour) plus ``bonus``."""
    ch = table.characters[char_id]
    ch.pending_fall = None
    before = conditions(ch)
    taken, params = resist(table.options, ch, fall_damage(spaces), "constitution", bonus, ctx.dice)
    add(ch, "wounds", taken)
    params.update(source="fall", spaces=spaces)
    resisted = Event(code="resisted", at=table.clock.now, char=char_id, rule="HUR-14", params=params)
    return [resisted, *settle(table, char_id, before)]
