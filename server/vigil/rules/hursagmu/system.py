"""Hursagmu wired to the engine: command dispatch, timed effects, combat
rounds, statuses. Timed effects are the unconscious rest (HUR-08, one per
character), the wake hour (HUR-09, option) and poison doses (HUR-13, one per
poison, keyed by its id)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from vigil.rules.commands import Command
from vigil.rules.game import Countdown, Ctx, Due, Summary, ValidateReach, Wait
from vigil.rules.hursagmu import checks, falls, harm, healing, poison, recovery, rest
from vigil.rules.hursagmu import words as _words  # noqa: F401  (registers templates)
from vigil.rules.hursagmu.commands import (
    COMMANDS,
    ApplyPoison,
    BreakFall,
    Damage,
    Fall,
    Harm,
    Heal,
    Morning,
    RestAction,
    SeeDim,
    SetRest,
    SetSenses,
    TakeFall,
    TraitRollCmd,
)
from vigil.rules.hursagmu.conditions import conditions, final_status, in_step, is_unconscious, sync
from vigil.rules.hursagmu.penalties import SENSE_PENALTY, condition_penalty
from vigil.rules.hursagmu.recovery import day_of
from vigil.rules.hursagmu.rule_book import RULE_BOOK
from vigil.rules.hursagmu.state import Character, HursagmuTable, Options
from vigil.rules.outcome import Event, RuleError, options_refused
from vigil.rules.reference import RuleBook
from vigil.rules.sharing import peek


class HursagmuSystem:
    name = "hursagmu"
    table_type: type[Any] = HursagmuTable
    character_type: type[Any] = Character
    options_type: type[Any] = Options
    commands: tuple[type[Command], ...] = COMMANDS
    rule_book: RuleBook = RULE_BOOK
    pending_choices: Mapping[str, tuple[str, ...]] = {}
    waits: tuple[Wait, ...] = (falls.WAIT,)
    table_view_reads_sheets: bool = False
    validate_reach: ValidateReach = "writes"  # it normalizes only what is out of step

    def new_table(self, options: Mapping[str, Any]) -> HursagmuTable:
        try:
            opts = msgspec.convert(dict(options), Options)
        except msgspec.ValidationError as exc:
            raise options_refused(exc) from None
        return HursagmuTable(options=opts)

    def validate(self, table: Any) -> None:
        """Check what msgspec cannot, then resync each character's schedule,
        so a corrected or added sheet gets the rest and poisons it implies
        (an unconscious newcomer starts resting, a corrected death stops
        poisons). It reads every character without copying it
        (:func:`~vigil.rules.sharing.peek`) and copies only one out of step:
        a correction to one character of twenty copies one."""
        t: HursagmuTable = table
        for cid, ch in peek(t.characters):
            for pid, p in ch.poisons.items():
                if p.next_dose > p.doses:
                    last = "its next dose comes after its last"
                    raise RuleError("bad_poison", char=cid, poison=pid, reason=last, **p.said)
            if not in_step(t, ch):
                sync(t, t.characters[cid])

    def apply(self, table: Any, cmd: Command, ctx: Ctx) -> list[Event]:
        t: HursagmuTable = table
        falls.refuse_while_falling(t, cmd)
        match cmd:
            case TraitRollCmd():
                return checks.roll_trait(t, cmd, ctx)
            case SeeDim():
                return checks.see_dim(t, cmd, ctx)
            case SetSenses():
                return checks.set_senses(t, cmd)
            case Harm():
                return harm.harm(t, cmd)
            case Damage():
                return harm.damage(t, cmd, ctx)
            case RestAction():
                return rest.rest_action(t, cmd, ctx)
            case SetRest():
                return recovery.set_rest(t, cmd)
            case Morning():
                return recovery.morning(t, cmd, ctx)
            case Heal():
                return healing.heal(t, cmd, ctx)
            case ApplyPoison():
                return poison.apply_poison(t, cmd)
            case Fall():
                return falls.fall(t, cmd, ctx)
            case BreakFall():
                return falls.break_fall(t, cmd, ctx)
            case TakeFall():
                return falls.take_fall(t, cmd, ctx)
        raise RuleError("wrong_system")

    def due(self, table: Any) -> Iterable[Due]:
        t: HursagmuTable = table
        return [*rest.rest_dues(t), *recovery.wake_dues(t), *poison.poison_dues(t)]

    def fire(self, table: Any, due: Due, ctx: Ctx) -> list[Event]:
        t: HursagmuTable = table
        if due.rule == "HUR-08":
            return rest.fire_rest(t, due.char, ctx)
        if due.rule == "HUR-09":
            return recovery.fire_wake(t, due.char, ctx)
        return poison.fire_dose(t, due.char, due.key, ctx)

    def on_combat(self, table: Any, starting: bool, ctx: Ctx) -> list[Event]:
        """HUR-08: combat suspends the clock's rest rounds (the GM's rounds
        take over); its end restarts them one round later. Second actions
        belong to a round, so both clear them."""
        t: HursagmuTable = table
        for cid, seen in peek(t.characters):
            if seen.may_act_second or not in_step(t, seen):
                ch = t.characters[cid]
                ch.may_act_second = False
                sync(t, ch)
        return []

    def on_round(self, table: Any, ctx: Ctx) -> list[Event]:
        return rest.on_round(table, ctx)

    def final_status(self, table: Any, char_id: str) -> str | None:
        t: HursagmuTable = table
        return final_status(t.characters[char_id])

    def summary(self, table: Any, char_id: str) -> Summary:
        t: HursagmuTable = table
        ch = t.characters[char_id]
        badges = conditions(ch)
        if is_unconscious(ch):
            badges.insert(1, "resting")  # HUR-08: the unconscious are resting
        badges += [s for s, on in (("blind", ch.blind), ("deaf", ch.deaf)) if on]
        if ch.pending_fall is not None:
            badges.append("falling")  # HUR-14: a fall waits on its answer
        countdowns = [
            Countdown(kind=p.kind, until=p.ends_at, since=p.applied_at) for _, p in sorted(ch.poisons.items())
        ]
        return Summary(badges=badges, countdowns=countdowns)

    def public_table(
        self,
        table: Any,
        full: frozenset[str],
        status: frozenset[str],
        shared: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Hursagmu keeps no table-level state beyond the clock and options."""
        return {}

    def render_reads(self, table: Any, char_id: str) -> Any:
        """Countdowns and penalties read the clock and the options, and
        nothing else of the table-level state."""
        return (table.clock, table.options)

    def derived(self, table: Any, char_id: str) -> dict[str, Any]:
        t: HursagmuTable = table
        ch = t.characters[char_id]
        day = day_of(t.clock.now)
        return {
            "statuses": conditions(ch),
            "penalties": {
                "physical": condition_penalty(ch, "physical"),
                "mental": condition_penalty(ch, "mental"),
                "sight": SENSE_PENALTY if ch.blind else 0,
                "hearing": SENSE_PENALTY if ch.deaf else 0,
            },
            "day": day,
            "recovered_today": ch.recovered_day == day,
            "healed_today": ch.healed_day == day,
            "rest_spoiled_today": ch.spoiled_day == day,
            "may_act_second": ch.may_act_second,
            "next_rest_at": ch.rest_next_at,
            "next_recovery_at": recovery.next_recovery_roll(t, ch),
            "poisons": {
                pid: {
                    **p.said,
                    "next_dose_at": p.dose_at(p.next_dose),
                    "doses_left": p.doses - p.next_dose + 1,
                    "ends_at": p.ends_at,
                }
                for pid, p in sorted(ch.poisons.items())
            },
        }


SYSTEM = HursagmuSystem()
