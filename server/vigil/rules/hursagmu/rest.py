"""HUR-07 resting off stuns, and HUR-08 the unconscious character's rest.

Out of combat an unconscious character rolls twice at each ``rest_next_at``,
which is anchored one round (6 s) after it fell unconscious or after combat
ended, then every round; in combat the GM's round advance drives the same
two rolls and the clock schedule is suspended (see conditions.sync), so no
round ever gets both.
"""

from __future__ import annotations

from vigil.rules.game import Ctx, Due
from vigil.rules.hursagmu.commands import RestAction
from vigil.rules.hursagmu.conditions import UNCONSCIOUS_AT, conditions, is_unconscious, settle
from vigil.rules.hursagmu.guards import awake
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import Character, HursagmuTable
from vigil.rules.outcome import Event, RuleError

ROLLS_PER_ROUND = 2  # HUR-08: two actions a round, both spent resting


def recovery_trait(ch: Character) -> str:
    """HUR-07: constitution or willpower, whichever is higher (constitution
    on a tie; the roll is the same)."""
    return "willpower" if ch.level("willpower") > ch.level("constitution") else "constitution"


def _roll_off_stuns(table: HursagmuTable, char_id: str, ctx: Ctx, rule: str) -> Event:
    ch = table.characters[char_id]
    trait = recovery_trait(ch)
    result = trait_roll(ctx.dice, ch.level(trait), ch.stuns)
    before = ch.stuns
    if result.success:
        ch.stuns = max(0, ch.stuns - result.dx)
    params = {**result.params(), "trait": trait, "before": before, "after": ch.stuns}
    return Event(code="rest_rolled", at=table.clock.now, char=char_id, rule=rule, params=params)


def rest_action(table: HursagmuTable, cmd: RestAction, ctx: Ctx) -> list[Event]:
    """HUR-07: one action given up; success removes dx stuns."""
    ch = awake(table, cmd.char)
    if ch.stuns == 0:
        raise RuleError("no_stuns", rule="HUR-07", char=cmd.char)
    before = conditions(ch)
    ch.may_act_second = False
    event = _roll_off_stuns(table, cmd.char, ctx, "HUR-07")
    return [event, *settle(table, cmd.char, before)]


def unconscious_rest(table: HursagmuTable, char_id: str, ctx: Ctx) -> list[Event]:
    """HUR-08: up to two rolls; waking on the first leaves the second action
    free (``may_act_second``), and no second roll is made."""
    ch = table.characters[char_id]
    before = conditions(ch)
    events: list[Event] = []
    for n in range(1, ROLLS_PER_ROUND + 1):
        event = _roll_off_stuns(table, char_id, ctx, "HUR-08")
        event.params["roll"] = n
        events.append(event)
        if ch.stuns < UNCONSCIOUS_AT:
            ch.may_act_second = n < ROLLS_PER_ROUND
            event.params["may_act_second"] = ch.may_act_second
            break
    return events + settle(table, char_id, before)


def rest_dues(table: HursagmuTable) -> list[Due]:
    return [
        Due(ch.rest_next_at, cid, "HUR-08")
        for cid, ch in table.characters.items()
        if ch.rest_next_at is not None and is_unconscious(ch) and not table.clock.in_combat
    ]


def fire_rest(table: HursagmuTable, char_id: str, ctx: Ctx) -> list[Event]:
    """The out-of-combat round: two rolls, then the next round in 6 s if
    still unconscious (``settle`` re-anchors from ``now``, the due time)."""
    ch = table.characters[char_id]
    ch.rest_next_at = None
    return unconscious_rest(table, char_id, ctx)


def on_round(table: HursagmuTable, ctx: Ctx) -> list[Event]:
    """HUR-08 in combat: a new round frees last round's second actions and
    lets every unconscious character rest, in character-id order."""
    events: list[Event] = []
    for cid in sorted(table.characters):
        ch = table.characters[cid]
        ch.may_act_second = False
        if is_unconscious(ch):
            events += unconscious_rest(table, cid, ctx)
    return events
