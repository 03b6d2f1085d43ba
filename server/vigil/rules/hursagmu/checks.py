"""HUR-01/02/03 as the GM asks for them: a generic trait roll with the
condition and sense penalties applied, a dim-light Perception check, and
losing or regaining a sense."""

from __future__ import annotations

from vigil.rules.game import Ctx
from vigil.rules.hursagmu.commands import SeeDim, SetSenses, TraitRollCmd
from vigil.rules.hursagmu.guards import awake, living
from vigil.rules.hursagmu.penalties import (
    condition_penalty,
    condition_source,
    require_perceivable,
    sense_penalty,
)
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import Event, RuleError


def roll_trait(table: HursagmuTable, cmd: TraitRollCmd, ctx: Ctx) -> list[Event]:
    """A trait not on the sheet is refused here (a GM's typo must not roll at
    level 0), unlike the rules' own constitution/willpower lookups."""
    ch = awake(table, cmd.char)
    if cmd.trait not in ch.traits:
        raise RuleError("unknown_trait", char=cmd.char, trait=cmd.trait)
    if cmd.kind == "perception":
        require_perceivable(ch, cmd.needs_sight, cmd.needs_hearing, cmd.darkness)
    condition = condition_penalty(ch, cmd.kind)
    senses = sense_penalty(ch, cmd.needs_sight, cmd.needs_hearing, cmd.darkness)
    result = trait_roll(ctx.dice, ch.traits[cmd.trait], cmd.target, cmd.modifiers + condition + senses)
    ch.may_act_second = False  # HUR-08: it has now taken that action
    params = {
        **result.params(),
        "trait": cmd.trait,
        "kind": cmd.kind,
        "asked": cmd.modifiers,
        "condition_penalty": condition,
        "sense_penalty": senses,
        **condition_source(ch, cmd.kind),
    }
    return [Event(code="trait_rolled", at=table.clock.now, char=cmd.char, rule="HUR-01", params=params)]


def see_dim(table: HursagmuTable, cmd: SeeDim, ctx: Ctx) -> list[Event]:
    """HUR-03: a Perception roll strictly higher than the challenge sees for
    that round (a mental action, so delirium counts: HUR-02)."""
    ch = awake(table, cmd.char)
    require_perceivable(ch, True, False, False)
    condition = condition_penalty(ch, "perception")
    result = trait_roll(ctx.dice, ch.level("perception"), cmd.challenge + 1, cmd.modifiers + condition)
    ch.may_act_second = False
    params = {
        **result.params(),
        "challenge": cmd.challenge,
        "condition_penalty": condition,
        **condition_source(ch, "perception"),
        "sees": result.success,
        "sight": "sees" if result.success else "sees_nothing",  # the sentence's words
    }
    return [Event(code="dim_light_check", at=table.clock.now, char=cmd.char, rule="HUR-03", params=params)]


def set_senses(table: HursagmuTable, cmd: SetSenses) -> list[Event]:
    ch = living(table, cmd.char)
    blind = ch.blind if cmd.blind is None else cmd.blind
    deaf = ch.deaf if cmd.deaf is None else cmd.deaf
    if (blind, deaf) == (ch.blind, ch.deaf):
        raise RuleError("no_change", char=cmd.char)
    ch.blind, ch.deaf = blind, deaf
    senses = {(True, True): "blind_and_deaf", (True, False): "blind", (False, True): "deaf"}
    # ``senses``: the sentence's words ("Juk is now blind", never "blind yes, deaf no").
    params = {"blind": blind, "deaf": deaf, "senses": senses.get((blind, deaf), "able_to_see_and_hear")}
    return [Event(code="senses_changed", at=table.clock.now, char=cmd.char, rule="HUR-03", params=params)]
