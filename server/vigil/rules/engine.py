"""The one entry point for changing a table: commands and clock advances.

Every operation starts by copying the state, so a command refused half-way
(a RuleError anywhere, even after some dice were drawn) leaves the caller's
state untouched. Game modules may therefore write plain mutating code on the
copy, which reads far closer to the rule texts than rebuilding immutable
values at every step. The copy is :mod:`vigil.rules.sharing`'s: characters
the operation never reaches are the old state's own objects in the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import msgspec

from vigil.plain_errors import explained
from vigil.rules.commands import (
    AddCharacter,
    CombatEnd,
    CombatStart,
    Command,
    Correct,
    NextRound,
    RemoveCharacter,
    Revive,
    Rolls,
)
from vigil.rules.dice import ScriptedDice
from vigil.rules.game import Ctx, Due, Game
from vigil.rules.outcome import Event, RuleError
from vigil.rules.sharing import as_read, copy_all, copy_state, settle

__all__ = ["Outcome", "advance", "apply", "copy_state", "next_deadline", "next_due", "settle"]

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    state: T
    events: list[Event]


def apply(system: Game, table: T, cmd: Command, ctx: Ctx) -> Outcome[T]:
    """Apply one command at the table's current clock time."""
    t = copy_state(table)
    if isinstance(cmd, Rolls) and (cmd.faces is not None or cmd.lots is not None):
        if not getattr(t.options, "manual_dice", False):  # type: ignore[attr-defined]
            raise RuleError("manual_dice_off")
        if ctx.actor.role != "gm":
            raise RuleError("manual_dice_gm_only")
        scripted = ScriptedDice(cmd.faces or [], cmd.lots or [])
        events = _dispatch(system, t, cmd, replace(ctx, dice=scripted))
        scripted.check_all_used()
    else:
        events = _dispatch(system, t, cmd, ctx)
    return Outcome(settle(t), _stamp(events, ctx))


def advance(system: Game, table: T, to: float, ctx: Ctx) -> Outcome[T]:
    """Advance the clock to ``to``, applying each due effect in (time,
    character, rule) order at its own time. Because effects are applied one
    at a time in a total order, advancing in one step or in many gives the
    same state and draws the same dice in the same order. More than
    ``ctx.max_effects`` effects is refused before anything is kept."""
    now = table.clock.now  # type: ignore[attr-defined]
    if to < now:
        raise RuleError("clock_backwards", now=now, to=to)
    first = next_due(system, table)
    if first is None or first.time > to:
        # Nothing happens but the clock moving: no rule reaches a
        # character (``due`` only reads), so none is copied.
        t = copy_state(table)
        t.clock.now = to  # type: ignore[attr-defined]
        return Outcome(settle(t), [])
    t = copy_state(table)
    clock = t.clock  # type: ignore[attr-defined]
    events: list[Event] = []
    count = 0
    due: Due | None = first  # the copy is still the same as ``table``
    while due is not None and due.time <= to:
        count += 1
        if count > ctx.max_effects:
            raise RuleError("advance_too_large", limit=ctx.max_effects)
        clock.now = max(clock.now, due.time)
        events.extend(system.fire(t, due, ctx))
        # ``due`` only reads: it is given the copy as it is now without
        # copying the characters it reads, which the effects did not reach.
        due = next_due(system, as_read(t))
    clock.now = to
    return Outcome(settle(t), _stamp(events, ctx))


def next_due(system: Game, table: Any) -> Due | None:
    return min(system.due(table), default=None)


def next_deadline(system: Game, table: Any) -> float | None:
    """When the server must wake to advance this table, or None."""
    due = next_due(system, table)
    return None if due is None else due.time


def _stamp(events: list[Event], ctx: Ctx) -> list[Event]:
    for event in events:
        if event.actor is None:
            event.actor = ctx.actor.id
    return events


def _dispatch(system: Game, t: Any, cmd: Command, ctx: Ctx) -> list[Event]:
    now = t.clock.now
    match cmd:
        case AddCharacter():
            if cmd.id in t.characters:
                raise RuleError("character_exists", id=cmd.id)
            t.characters[cmd.id] = _convert(cmd.sheet, system.character_type, "sheet", cmd.sheet)
            _validate(system, t)
            return [Event(code="character_added", at=now, char=cmd.id)]
        case RemoveCharacter():
            _require(t, cmd.char)
            del t.characters[cmd.char]
            _validate(system, t)
            return [Event(code="character_removed", at=now, char=cmd.char)]
        case Correct():
            return [_correct(system, t, cmd.char, cmd.field, cmd.value, now)]
        case Revive():
            _require(t, cmd.char)
            if system.final_status(t, cmd.char) is None:
                raise RuleError("not_final", char=cmd.char)
            for path, value in cmd.fields.items():
                _set_path(system, t, cmd.char, path, value)
            _validate(system, t)
            if (status := system.final_status(t, cmd.char)) is not None:
                raise RuleError("final_state", char=cmd.char, status=status)
            return [Event(code="revived", at=now, char=cmd.char, params={"fields": cmd.fields})]
        case CombatStart():
            if t.clock.in_combat:
                raise RuleError("already_in_combat")
            t.clock.in_combat = True
            t.clock.round = 1
            return [Event(code="combat_started", at=now), *system.on_combat(t, True, ctx)]
        case CombatEnd():
            if not t.clock.in_combat:
                raise RuleError("not_in_combat")
            t.clock.in_combat = False
            t.clock.round = 0
            return [Event(code="combat_ended", at=now), *system.on_combat(t, False, ctx)]
        case NextRound():
            if not t.clock.in_combat:
                raise RuleError("not_in_combat")
            t.clock.round += 1
            event = Event(code="round_advanced", at=now, params={"round": t.clock.round})
            return [event, *system.on_round(t, ctx)]
        case _:
            if not isinstance(cmd, system.commands):
                raise RuleError("wrong_system")
            return system.apply(t, cmd, ctx)


def _validate(system: Game, t: Any) -> None:
    """``system.validate``, which walks every character, given the copy in
    the form its reach needs (:data:`~vigil.rules.game.ValidateReach`): as it
    is, for one that only reads (:func:`~vigil.rules.sharing.as_read`) or
    copies only what it changes; with every character copied first, in one
    go rather than one by one, for one that may normalize any."""
    match system.validate_reach:
        case "reads":
            system.validate(as_read(t))
        case "writes":
            system.validate(t)
        case "all":
            copy_all(t)
            system.validate(t)


def _require(t: Any, char: str) -> None:
    if char not in t.characters:
        raise RuleError("unknown_character", char=char)


def _correct(system: Game, t: Any, char: str | None, path: str, value: Any, now: float) -> Event:
    """A correction may also take a character out of a final state
    ("Corrections and revive" in :data:`vigil.rules.reference.COMMON`); the
    event records who did it, for the audit trail."""
    if char is not None:
        _require(t, char)
    _set_path(system, t, char, path, value)
    _validate(system, t)
    return Event(
        code="corrected",
        at=now,
        char=char,
        params={"field": path, "value": value, "target": char},
    )


PROTECTED_TABLE_FIELDS = frozenset({"clock", "characters", "options"})
"""Table-level fields a correction may not set: the clock moves by clock
commands, characters by theirs, options by ``table.options``."""


def _set_path(system: Game, t: Any, char: str | None, path: str, value: Any) -> None:
    """Set a dotted path, then re-validate the whole containing Struct with
    msgspec, so that a correction can only ever produce a valid value."""
    parts = path.split(".")
    if char is None:
        if parts[0] in PROTECTED_TABLE_FIELDS or parts[0] not in t.__struct_fields__:
            raise RuleError("bad_field", field=path)
        target: Any = t
        target_type: type[Any] = system.table_type
    else:
        target = t.characters[char]
        target_type = system.character_type
    data = msgspec.to_builtins(target)
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict):
            if part not in node and not (last and i > 0):
                raise RuleError("bad_field", field=path)
            if last:
                node[part] = value
            else:
                node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise RuleError("bad_field", field=path)
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        else:
            raise RuleError("bad_field", field=path)
    new = _convert(data, target_type, path, value)
    if char is None:
        setattr(t, parts[0], getattr(new, parts[0]))
    else:
        t.characters[char] = new


def _convert(data: Any, typ: type[T], field: str, value: Any) -> T:
    try:
        return msgspec.convert(data, typ)
    except msgspec.ValidationError as exc:
        _, reason, why = explained(str(exc))
        raise RuleError("bad_value", field=field, value=_short(value), reason=reason, **why) from None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
