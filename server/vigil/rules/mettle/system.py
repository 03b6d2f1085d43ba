"""Pain & Mettle wired to the engine: command dispatch, timed effects,
summaries. The rules themselves live in the concept modules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from vigil.rules.clock import DAY, MINUTE, GameClock
from vigil.rules.commands import Command
from vigil.rules.game import Countdown, Ctx, Due, Summary, ValidateReach, Wait
from vigil.rules.mettle import commands as c
from vigil.rules.mettle import dying, injuries, pain, rattle, rest
from vigil.rules.mettle import words as _words  # noqa: F401  (registers templates)
from vigil.rules.mettle.check import cast_lot, injury_penalty, resolve
from vigil.rules.mettle.rule_book import RULE_BOOK
from vigil.rules.mettle.state import Character, MettleTable, Options
from vigil.rules.outcome import Event, RuleError, options_refused
from vigil.rules.reference import RuleBook

MAX_KITS = 64
MAX_DISCIPLINES = 64
MAX_INJURIES = 1000


class MettleSystem:
    name = "mettle"
    table_type: type[Any] = MettleTable
    character_type: type[Any] = Character
    options_type: type[Any] = Options
    commands: tuple[type[Command], ...] = c.COMMANDS
    rule_book: RuleBook = RULE_BOOK
    pending_choices: Mapping[str, tuple[str, ...]] = {}
    waits: tuple[Wait, ...] = ()
    table_view_reads_sheets: bool = False
    validate_reach: ValidateReach = "all"  # it normalizes any

    def new_table(self, options: Mapping[str, Any]) -> MettleTable:
        try:
            opts = msgspec.convert(dict(options), Options)
        except msgspec.ValidationError as exc:
            raise options_refused(exc) from None
        _check_options(opts)
        return MettleTable(options=opts)

    def validate(self, table: MettleTable) -> None:
        """Check invariants after an add, correction, revive or option change,
        and fill in the fields a status owns, so a GM who corrects ``status``
        to dying starts the clock and one who sets it back to active clears it."""
        _check_options(table.options)
        for char_id, char in table.characters.items():
            _normalize(char, table.clock.now, char_id)

    def apply(self, table: MettleTable, cmd: Command, ctx: Ctx) -> list[Event]:
        clock = table.clock
        now = clock.now
        match cmd:
            case c.Pain():
                char = _char(table, cmd.char)
                lot, drawn = cast_lot(cmd.lot, table.options, ctx.dice)
                return pain.take_pain(char, clock, cmd.char, cmd.amount, lot, drawn)
            case c.Heal():
                return pain.heal(_char(table, cmd.char), now, cmd.char, cmd.amount)
            case c.Rattle():
                return _receive_rattle(_char(table, cmd.char), clock, cmd.char, cmd.amount)
            case c.Relieve():
                return _lower_rattle(table, cmd.char, cmd.amount, "rattle_relieved", "MET-15")
            case c.ShakeOff():
                _acting(table, cmd.char)
                return _lower_rattle(table, cmd.char, cmd.effort, "rattle_shaken", "MET-13")
            case c.Effort():
                return _effort(_acting(table, cmd.char), clock, cmd.char, cmd.effort)
            case c.InjuryAdd():
                char = _char(table, cmd.char)
                _limit(cmd.char, len(char.injuries) < MAX_INJURIES, "injuries", MAX_INJURIES)
                return injuries.add(char, now, cmd.char, cmd.label, cmd.penalty)
            case c.InjuryRemove():
                return injuries.remove(_char(table, cmd.char), now, cmd.char, cmd.injury)
            case c.InjuryReduce():
                char = _char(table, cmd.char)
                return injuries.reduce(char, now, cmd.char, cmd.injury, cmd.amount)
            case c.Check():
                return _check(table, cmd, ctx)
            case c.Stabilize():
                target = _char(table, cmd.char)
                helper = _char(table, cmd.helper)
                return dying.attempt(target, helper, cmd, clock, table.options, ctx.dice)
            case c.StabilizeByFiat():
                return dying.by_fiat(_char(table, cmd.char), now, cmd.char, cmd.means)
            case c.RestStart():
                char = _char(table, cmd.char)
                if char.resting:
                    raise RuleError("already_resting", rule="MET-17", char=cmd.char)
                return rest.start(char, now, cmd.char)
            case c.RestStop():
                return rest.stop(_resting(table, cmd.char), now, cmd.char)
            case c.Strenuous():
                return rest.interrupt(_resting(table, cmd.char), now, cmd.char, cmd.reason)
            case c.KitSet():
                return _set_kit(_char(table, cmd.char), now, cmd)
            case c.DisciplineSet():
                return _set_discipline(_char(table, cmd.char), now, cmd)
        raise RuleError("wrong_system")  # pragma: no cover - the engine checks the type

    def due(self, table: MettleTable) -> Iterable[Due]:
        """MET-10 departures, MET-14 rattle reaching 0, MET-17/18 rest hours."""
        clock = table.clock
        for char_id, char in table.characters.items():
            if char.status == "departed":
                continue
            if (departs := dying.departure_due(char)) is not None:
                yield Due(departs, char_id, "MET-10")
            if (zero := rattle.zero_at(char, clock)) is not None:
                yield Due(zero, char_id, "MET-14")
            if (effect := rest.next_effect(char, clock.now)) is not None:
                yield Due(effect.time, char_id, effect.rule, str(effect.hour))

    def fire(self, table: MettleTable, due: Due, ctx: Ctx) -> list[Event]:
        char = table.characters[due.char]
        now = table.clock.now
        if due.rule == "MET-10":
            return dying.fire_departure(char, now, due.char)
        if due.rule == "MET-14":
            return rattle.gone(char, table.clock, rule="MET-14", char_id=due.char)
        effect = rest.RestEffect(due.time, due.rule, int(due.key))
        return rest.fire(char, now, due.char, effect)

    def on_combat(self, table: MettleTable, starting: bool, ctx: Ctx) -> list[Event]:
        """MET-14: rattle stops wearing off in combat (rest goes on: MET-17)."""
        events: list[Event] = []
        for char_id, char in table.characters.items():
            if char.status != "departed":
                events += rattle.combat(char, table.clock, starting, char_id)
        return events

    def on_round(self, table: MettleTable, ctx: Ctx) -> list[Event]:
        return []

    def final_status(self, table: MettleTable, char_id: str) -> str | None:
        """MET-20: departed is the only final status."""
        status = table.characters[char_id].status
        return status if status == "departed" else None

    def summary(self, table: MettleTable, char_id: str) -> Summary:
        char = table.characters[char_id]
        now = table.clock.now
        badges: list[str] = []
        if char.status != "active":
            badges.append(char.status)
        if char.stabilized:
            badges.append("stabilized")
        if char.resting:
            badges.append("resting")
        countdowns: list[Countdown] = []
        if char.status == "dying" and char.departs_at is not None:
            since = char.stabilized_at if char.stabilized else char.dying_since
            countdowns.append(Countdown(kind="dying", until=char.departs_at, since=since))
        if char.busy_until is not None and char.busy_until > now:
            countdowns.append(Countdown(kind="busy", until=char.busy_until))
        return Summary(badges=badges, countdowns=countdowns)

    def public_table(
        self,
        table: Any,
        full: frozenset[str],
        status: frozenset[str],
        shared: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Pain & Mettle keeps no table-level state beyond the clock and options."""
        return {}

    def render_reads(self, table: MettleTable, char_id: str) -> Any:
        """Countdowns and penalties read the clock and the options, and
        nothing else of the table-level state."""
        return (table.clock, table.options)

    def derived(self, table: MettleTable, char_id: str) -> dict[str, Any]:
        char = table.characters[char_id]
        clock = table.clock
        injury = injury_penalty(char)
        rattle_value = rattle.rattle_now(char, clock)
        done = rest.hours_done(char, clock.now)
        resting = char.resting and char.rest_since is not None
        busy = char.busy_until is not None and char.busy_until > clock.now
        return {
            "status": char.status,
            "can_act": char.status == "active",
            "rattle": rattle_value,
            "rattle_zero_at": rattle.zero_at(char, clock),
            "injury_penalty": injury,
            "check_penalty": injury + rattle_value,
            "tym_penalty": injury,
            "departs_at": char.departs_at,
            "stabilized": char.stabilized,
            "rest_hours": done,
            "hours_toward_respite": done % rest.RESPITE_HOURS,
            "respite_hours": rest.RESPITE_HOURS,
            "next_rest_hour_at": rest.boundary(char, done + 1) if resting else None,
            "next_respite_at": (
                rest.boundary(char, (done // rest.RESPITE_HOURS + 1) * rest.RESPITE_HOURS)
                if resting
                else None
            ),
            "helper_busy": busy,
            "busy_until": char.busy_until if busy else None,
        }


def _check_options(options: Options) -> None:
    """MET-02: lots drawn with weights that are all 0 cannot be drawn at all,
    so such weights are refused however they are set."""
    weights = options.lot_weights
    if weights is not None and weights.crit + weights.plain + weights.fail == 0:
        raise RuleError("bad_options", field="lot_weights", reason="they must not all be 0")


def _char(table: MettleTable, char_id: str) -> Character:
    char = table.characters.get(char_id)
    if char is None:
        raise RuleError("unknown_character", char=char_id)
    if char.status == "departed":
        raise RuleError("final_state", rule="MET-20", char=char_id, status=char.status)
    return char


def _acting(table: MettleTable, char_id: str) -> Character:
    """MET-07/MET-09: an unconscious or dying character cannot act."""
    char = _char(table, char_id)
    if char.status != "active":
        raise RuleError("cannot_act", rule="MET-07", char=char_id, status=char.status)
    return char


def _resting(table: MettleTable, char_id: str) -> Character:
    char = _char(table, char_id)
    if not char.resting:
        raise RuleError("not_resting", rule="MET-17", char=char_id)
    return char


def _limit(char_id: str, fits: bool, what: str, limit: int) -> None:
    if not fits:
        raise RuleError("limit_reached", char=char_id, what=what, limit=limit)


def _receive_rattle(char: Character, clock: GameClock, char_id: str, amount: int) -> list[Event]:
    """MET-15: rattle adds up as one number; new rattle interrupts rest (MET-17)."""
    events = rattle.change(char, clock, amount, rule="MET-15", char_id=char_id)
    params = {"amount": amount, "rattle": char.rattle}
    event = Event(code="rattle_received", at=clock.now, char=char_id, rule="MET-15", params=params)
    return [event, *events, *rest.interrupt(char, clock.now, char_id, "rattle")]


def _set_kit(char: Character, now: float, cmd: c.KitSet) -> list[Event]:
    """Kit uses, spent by stabilize attempts (MET-11)."""
    _limit(cmd.char, cmd.kit in char.kits or len(char.kits) < MAX_KITS, "kits", MAX_KITS)
    char.kits[cmd.kit] = cmd.uses
    params = {"kit": cmd.kit, "uses": cmd.uses}
    return [Event(code="kit_set", at=now, char=cmd.char, rule="MET-11", params=params)]


def _set_discipline(char: Character, now: float, cmd: c.DisciplineSet) -> list[Event]:
    """Discipline levels, the stat of a stabilize check (MET-11)."""
    fits = cmd.discipline in char.disciplines or len(char.disciplines) < MAX_DISCIPLINES
    _limit(cmd.char, fits, "disciplines", MAX_DISCIPLINES)
    char.disciplines[cmd.discipline] = cmd.level
    params = {"discipline": cmd.discipline, "level": cmd.level}
    return [Event(code="discipline_set", at=now, char=cmd.char, rule="MET-11", params=params)]


def _lower_rattle(table: MettleTable, char_id: str, amount: int, code: str, rule: str) -> list[Event]:
    """MET-13 shaking off (N effort removes N) and MET-15 relief."""
    char = _char(table, char_id)
    clock = table.clock
    before = rattle.rattle_now(char, clock)
    if before == 0:
        raise RuleError("not_rattled", rule=rule, char=char_id)
    gone = rattle.change(char, clock, -amount, rule=rule, char_id=char_id)
    params = {"amount": amount, "removed": before - char.rattle, "rattle": char.rattle}
    return [Event(code=code, at=clock.now, char=char_id, rule=rule, params=params), *gone]


def _effort(char: Character, clock: GameClock, char_id: str, effort: int) -> list[Event]:
    """MET-13: other activity removes 1 rattle per 4 Effort; the remainder
    carries over. Effort spent while not rattled does not bank (a Decision
    in :mod:`.rule_book`)."""
    rattle.materialize(char, clock)
    total = char.effort_toward_rattle + effort if char.rattle > 0 else 0
    removed = min(total // 4, char.rattle)
    char.rattle -= removed
    char.effort_toward_rattle = total % 4 if char.rattle > 0 else 0
    params = {
        "effort": effort,
        "removed": removed,
        "leftover": char.effort_toward_rattle,
        "rattle": char.rattle,
    }
    events = [Event(code="effort_spent", at=clock.now, char=char_id, rule="MET-13", params=params)]
    if removed > 0 and char.rattle == 0:
        events += rattle.gone(char, clock, rule="MET-13", char_id=char_id)
    return events


def _check(table: MettleTable, cmd: c.Check, ctx: Ctx) -> list[Event]:
    """MET-01: a GM's generic check. Test Your Mettle may be asked of anyone
    not departed; any other check needs a character able to act (MET-07)."""
    char = _char(table, cmd.char) if cmd.kind == "tym" else _acting(table, cmd.char)
    lot, drawn = cast_lot(cmd.lot, table.options, ctx.dice)
    params = resolve(
        char,
        table.clock,
        stat=cmd.stat,
        modifiers=cmd.modifiers,
        tn=cmd.tn,
        kind=cmd.kind,
        lot=lot,
        drawn=drawn,
    )
    return [Event(code="check", at=table.clock.now, char=cmd.char, rule="MET-01", params=params)]


def _normalize(char: Character, now: float, char_id: str) -> None:
    """Fill the fields each status owns and refuse what cannot be mended."""
    if char.rattle_set_at is None:
        char.rattle_set_at = now
    if char.status == "departed":
        char.resting = False
        if char.departed_at is None:
            char.departed_at = now
    else:
        char.departed_at = None
    if char.status == "dying":
        if char.dying_since is None:
            char.dying_since = now
        if not char.stabilized:
            char.stabilized_at = None
        elif char.stabilized_at is None:
            char.stabilized_at = now
        if char.departs_at is None:
            char.departs_at = (
                char.stabilized_at + char.mettle * DAY
                if char.stabilized_at is not None
                else char.dying_since + char.mettle * MINUTE
            )
    elif char.status != "departed":
        char.stabilized = False
        char.stabilized_at = None
        char.dying_since = None
        char.departs_at = None
    if not char.resting:
        char.rest_since = None
        char.rest_hours = 0
    elif char.rest_since is None:
        char.rest_since = now
        char.rest_hours = 0
    ids = [injury.id for injury in char.injuries]
    if len(set(ids)) != len(ids):
        raise RuleError("bad_state", char=char_id, reason="two injuries share an id")
    for injury_id in ids:
        if injury_id[:1] == "i" and injury_id[1:].isdigit():
            char.next_injury = max(char.next_injury, int(injury_id[1:]) + 1)


SYSTEM = MettleSystem()
