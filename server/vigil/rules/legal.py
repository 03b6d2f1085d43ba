"""Which commands the rules would accept now: the moves a client may offer.

A page that offers a move the server then refuses (help against a
nightmare challenge, hope with no coin, a dying character's actions) makes
a person guess. So the offers are not a second list of conditions: each
candidate command is put to the engine itself (:func:`engine.apply` on a
copy of the table, the copy every command makes anyway), and what the
engine accepts is legal. A new rule, or a changed one, changes the offers
with it.

Candidates come from the command types alone (their fields, read with
``msgspec.inspect``): the table's characters for a field naming one, the
things on the subject's sheet for a field naming one of them (an injury, a
kit, a trait), every choice of a required choice field, both values of a
flag, and for a number the smallest and largest it may take. Fields a
person fills freely (an amount, a TN) take those probe values; a refusal
that is about such a value (:data:`VALUE_REFUSALS`), not about the table
now, leaves the command offered as ``VALUES``: the form asks the value
and the server judges it. Manual dice faces and the nonce are left out
(the dice never decide whether a command is legal).

Pure and synchronous; the same for every viewer (the rules use the actor's
role only for manual dice, left out here), so the server computes it once
per state and each audience is shown its share (``vigil.moves``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec
from msgspec import inspect as mi

from vigil.rules import engine
from vigil.rules.commands import COMMON_COMMANDS, AddCharacter, Command, Correct
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx, Game
from vigil.rules.outcome import RuleError

VALUE_REFUSALS: Final = frozenset(
    {
        "bad_value",
        "bad_input",
        "bad_field",
        "final_state",
        "no_change",
        "no_harm",
        "healer_choice",
        "poison_too_short",
        "too_many_doses",
        "talent_needs_exhaustion",
        "talent_needs_madness",
        "pool_full",
        "tn_required",
    }
)
"""Refusals about the values a person gave, not about the table now: a
revive whose fields still leave the character dead, harm of nothing, a
poison too short for one dose. A command refused only with these for every
probe is offered with its form (:data:`VALUES`), which the person fills."""

ACCEPTED: Final = 1
"""Accepted as probed: the form's defaults (or the listed variants) work."""
VALUES: Final = 0
"""Legal now, if the values the person gives are: the form decides."""

_LEFT_OUT: Final = frozenset({"faces", "lots", "nonce"})
# Not table moves: a character is added by the table (character.create),
# and a correction's field and value are free text judged on arrival.
_NOT_PROBED: Final = (AddCharacter, Correct)
_MAX_TRIES: Final = 96
"""Probes per command and subject at most: past it the command is offered
for its form to decide (VALUES), so that a table of many characters costs
bounded work per change."""
_DICE_SEED: Final = "legal"


@dataclass(frozen=True)
class Move:
    """One command the rules accept now (or may, with the right values).

    ``tag`` is the command's wire type; ``subject`` the character it acts
    on (its first character field; None for a table-wide command);
    ``verdict`` is :data:`ACCEPTED` or :data:`VALUES`; ``variants`` the
    assignments of the fields that were varied beyond the subject (another
    character, a choice, a thing on the sheet, a flag) that were accepted
    (or, for VALUES, refused only for a value the person gives), each with
    its whole probe body (``bodies``, same order)."""

    tag: str
    subject: str | None
    verdict: int
    variants: tuple[dict[str, Any], ...]
    bodies: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class _Field:
    name: str
    required: bool
    default: Any
    kind: str  # "character", "ref", "choice", "flag", "number", "free"
    ref: str | None = None
    values: tuple[Any, ...] = ()


@functools.cache
def tag_of(cls: type[Command]) -> str:
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def commands_of(system: Game) -> tuple[type[Command], ...]:
    """The rules commands of a game a move may be: its own and the common
    ones (combat, revive, removing a character)."""
    return tuple(c for c in (*COMMON_COMMANDS, *system.commands) if c not in _NOT_PROBED)


@functools.cache
def _fields(cls: type[Command]) -> tuple[_Field, ...]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return tuple(_field(f) for f in info.fields if f.name not in _LEFT_OUT)


def _field(f: mi.Field) -> _Field:
    typ, extra = _unwrap(f.type)
    # A default made by a factory (an empty map) is left to the command.
    default = None if f.required or f.default is msgspec.NODEFAULT else f.default
    if isinstance(typ, mi.UnionType):
        plain = [t for t in typ.types if not isinstance(t, mi.NoneType)]
        typ, more = _unwrap(plain[0]) if len(plain) == 1 else (typ, {})
        extra = {**extra, **more}
    ref = extra.get("ref")
    if ref == "character":
        return _Field(f.name, f.required, default, "character")
    if ref is not None and not extra.get("new"):
        return _Field(f.name, f.required, default, "ref", ref=str(ref))
    if isinstance(typ, mi.LiteralType):
        return _Field(f.name, f.required, default, "choice", values=tuple(typ.values))
    if isinstance(typ, mi.BoolType):
        return _Field(f.name, f.required, default, "flag", values=(False, True))
    if isinstance(typ, mi.IntType | mi.FloatType):
        low = typ.ge if typ.ge is not None else (typ.gt + 1 if typ.gt is not None else None)
        high = typ.le if typ.le is not None else (typ.lt - 1 if typ.lt is not None else None)
        probes = [v for v in (1, low, high) if v is not None and (low is None or v >= low)]
        probes = [v for v in probes if high is None or v <= high]
        return _Field(f.name, f.required, default, "number", values=tuple(dict.fromkeys(probes or [0])))
    if isinstance(typ, mi.DictType) and f.required:
        return _Field(f.name, f.required, {}, "free")
    if isinstance(typ, mi.StrType) and f.required:
        # A name the person gives (a new kit's): one that fits most patterns.
        return _Field(f.name, f.required, "probe", "free")
    return _Field(f.name, f.required, default, "free")


def _unwrap(typ: mi.Type) -> tuple[mi.Type, dict[str, Any]]:
    extra: dict[str, Any] = {}
    while isinstance(typ, mi.Metadata):
        extra = {**extra, **(typ.extra or {})}
        typ = typ.type
    return typ, extra


def _things(system: Game, sheet: Any, ref: str) -> list[str]:
    """The ids of the things of kind ``ref`` on a character's sheet: the
    keys of a map keyed by them, or the ids of a list's items."""
    out: list[str] = []
    for name, (kind, where) in _ref_places(system).items():
        if name != ref:
            continue
        holder = getattr(sheet, where[0], None)
        if kind == "map" and isinstance(holder, dict):
            out += [str(k) for k in holder]
        elif kind == "list" and isinstance(holder, list):
            out += [str(getattr(item, where[1])) for item in holder]
    return out


_PLACES: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {}


def _ref_places(system: Game) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Where a character's things of each ref kind live (as the command
    catalogue's ``refs`` says to the clients), read once per game."""
    known = _PLACES.get(system.name)
    if known is not None:
        return known
    places: dict[str, tuple[str, tuple[str, ...]]] = {}
    info = mi.type_info(system.character_type)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        typ, _ = _unwrap(f.type)
        if isinstance(typ, mi.DictType):
            _key, extra = _unwrap(typ.key_type)
            if "ref" in extra:
                places[str(extra["ref"])] = ("map", (f.name,))
        elif isinstance(typ, mi.ListType):
            item, _ = _unwrap(typ.item_type)
            if isinstance(item, mi.StructType):
                for sub in item.fields:
                    _s, extra = _unwrap(sub.type)
                    if "ref" in extra and not extra.get("new"):
                        places[str(extra["ref"])] = ("list", (f.name, sub.name))
    _PLACES[system.name] = places
    return places


def _candidates(system: Game, table: Any, fields: Sequence[_Field], subject: str | None) -> list[list[Any]]:
    """For each field, the values to try (the subject's field its one value)."""
    chars = list(table.characters)
    subject_done = False
    out: list[list[Any]] = []
    for f in fields:
        if f.kind == "character":
            if f.required and not subject_done:
                out.append([subject])
                subject_done = True
            elif f.required:
                out.append(chars)
            else:
                out.append([None, *chars])
        elif f.kind == "ref":
            # Anyone's things of that kind (a helper's kit, the subject's
            # injury): the engine refuses the ones its owner lacks.
            things = (t for sheet in table.characters.values() for t in _things(system, sheet, f.ref or ""))
            out.append(list(dict.fromkeys(things)))
        elif f.kind == "choice":
            out.append(list(f.values) if f.required else [f.default])
        elif f.kind == "flag":
            out.append(
                [f.default, *(v for v in (False, True) if v is not f.default)]
                if not f.required
                else [False, True]
            )
        elif f.kind == "number":
            out.append([f.values[0]] if f.required else [f.default])
        else:
            out.append([f.default])
    return out


def subject_field(cls: type[Command]) -> str | None:
    """The field naming the character a command acts on: its first
    required character field (None for a table-wide command)."""
    return next((f.name for f in _fields(cls) if f.kind == "character" and f.required), None)


def accepts(system: Game, table: Any, body: dict[str, Any]) -> str | None:
    """Would the engine apply ``body`` (a rules command of ``system``, as
    sent) to ``table`` now? None if so, else the refusal's code. The table
    is untouched (the engine works on a copy)."""
    cls = {tag_of(c): c for c in commands_of(system)}.get(str(body.get("type")))
    if cls is None:
        return "wrong_system"
    return _check(system, table, cls, body)


def legal_moves(system: Game, table: Any) -> list[Move]:
    """Every move the rules accept on ``table`` now, each command of the
    game for each of its possible subjects (see the module's docstring)."""
    out: list[Move] = []
    for cls in commands_of(system):
        subjects: list[str | None] = list(table.characters) if subject_field(cls) else [None]
        for subject in subjects:
            move = _judge(system, table, cls, subject)
            if move is not None:
                out.append(move)
    return out


def _judge(system: Game, table: Any, cls: type[Command], subject: str | None) -> Move | None:
    """The move of ``cls`` on ``subject``, or None when the rules refuse
    it whatever the varied fields. The default body first, then each varied
    field alone through its other values: when every one of those is
    refused exactly as the default was (same code, same parameters), the
    refusal is about the subject or the table (no open roll, no coin), not
    about what was varied, and the command is not legal (another character
    is tried twice at most: ``tests/rules/test_legal_moves.py`` puts this
    to random bodies the engine accepts). Otherwise every
    combination is tried (at most ``_MAX_TRIES``), so that each accepted
    variant is listed."""
    fields = _fields(cls)
    if any(f.kind == "free" and f.required and f.default is None for f in fields):
        # A name or a text the person gives (a new kit's name): the form
        # asks it, the server judges it.
        return Move(tag_of(cls), subject, VALUES, (), ())
    candidates = _candidates(system, table, fields, subject)
    if any(not vs for vs in candidates):
        return None  # a thing to name that the sheet does not hold
    varied = [i for i, vs in enumerate(candidates) if len(vs) > 1 or fields[i].kind == "ref"]
    base = [vs[0] for vs in candidates]
    first = _refusal(system, table, cls, fields, base)
    widen = first is None
    for i in varied if not widen else ():
        # Another character is tried twice at most: a refusal about the
        # subject or the table does not change with the character named.
        others = candidates[i][1:3] if fields[i].kind == "character" else candidates[i][1:]
        for value in others:
            one = [*base[:i], value, *base[i + 1 :]]
            if _refusal(system, table, cls, fields, one) != first:
                widen = True
                break
        if widen:
            break
    if not widen:
        code = first[0] if first is not None else ""
        return Move(tag_of(cls), subject, VALUES, (), ()) if code in VALUE_REFUSALS else None
    variants: list[dict[str, Any]] = []
    bodies: list[dict[str, Any]] = []
    near: list[dict[str, Any]] = []  # refused only for a value the person gives
    near_bodies: list[dict[str, Any]] = []
    for tries, combo in enumerate(itertools.product(*candidates)):
        if tries >= _MAX_TRIES:
            # Too many to list: the form's fields decide, the server judges.
            return Move(tag_of(cls), subject, VALUES, (), ())
        refusal = _refusal(system, table, cls, fields, list(combo))
        if refusal is None:
            variants.append({fields[i].name: combo[i] for i in varied})
            bodies.append(_body(cls, fields, list(combo)))
        elif refusal[0] in VALUE_REFUSALS:
            near.append({fields[i].name: combo[i] for i in varied})
            near_bodies.append(_body(cls, fields, list(combo)))
    if bodies:
        return Move(tag_of(cls), subject, ACCEPTED, tuple(variants), tuple(bodies))
    # Legal with the right values: the variants that only lack them (a
    # stabilize attempt's helper and kit, its TN the GM's to give).
    return Move(tag_of(cls), subject, VALUES, tuple(near), tuple(near_bodies)) if near else None


def _body(cls: type[Command], fields: Sequence[_Field], combo: Sequence[Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"type": tag_of(cls)}
    for f, value in zip(fields, combo, strict=True):
        if value is not None or f.required:
            body[f.name] = value
    return body


def _refusal(
    system: Game, table: Any, cls: type[Command], fields: Sequence[_Field], combo: Sequence[Any]
) -> tuple[str, str] | None:
    """None when the engine accepts this combination, else its refusal
    (code and parameters, compared as text)."""
    # Built directly: every probe value is of its field's type and bounds.
    cmd = cls(**{f.name: v for f, v in zip(fields, combo, strict=True) if v is not None or f.required})
    try:
        engine.apply(system, table, cmd, _ctx())
    except RuleError as exc:
        return (exc.code, repr(sorted(exc.params.items())))
    return None


_CTX: Final = Ctx(dice=RandomDice(_DICE_SEED), actor=Actor(id="legal", role="gm"))
"""Dice from a fixed seed, never the table's (no die decides whether a
command is legal), as the GM (the rules read the role only for manual
dice, left out of the probes)."""


def _ctx() -> Ctx:
    return _CTX


def _check(system: Game, table: Any, cls: type[Command], body: dict[str, Any]) -> str | None:
    """The engine's verdict on ``body`` (:func:`_ctx`): None or a code."""
    try:
        cmd = msgspec.convert(body, cls)
    except msgspec.ValidationError:
        return "bad_input"
    try:
        engine.apply(system, table, cmd, _ctx())
    except RuleError as exc:
        return exc.code
    return None
