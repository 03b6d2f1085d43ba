"""The command catalogue: every command a client may send, with typed fields,
who may send it and the lang keys that name it; every game's table options,
sheet fields and correctable field paths; the WebSocket close codes.

Clients build their forms from it instead of knowing each command
(schemas/catalogue.json; ``foundry-module/scripts/core/catalogue.js`` is the
same data as an ES module).
Everything is derived: the fields from the command Structs and the games'
state types (``msgspec.inspect``), the senders from the permission tables,
the games from ``GAMES``. What the types cannot say is marked on them with
``msgspec.Meta(extra=...)``, which msgspec keeps out of the JSON Schema:

- ``{"ref": "character"}`` (``CharId``): a field naming a character;
- ``{"ref": "<thing>"}``: the id of a thing on a character's sheet (an
  injury, a kit, a trait...), with ``"new": True`` when the command may
  name a new one; the sheet field holding them carries the same marker, so
  the catalogue also says where a form finds the existing ones;
- ``{"shape": ...}``: a body left untyped because its type is the game's
  (a sheet, options, a correction's value, revive fields) or a whole export;
- ``{"kept": True}`` (``rules.clock.KEPT``): bookkeeping the rules keep for
  themselves; the Field says ``"entry": "rules"`` (else ``"person"``) and
  no form asks it or offers it for correction;
- ``{"from": "<field>"}``: an id a form makes from another field of the
  command (a character's id from its name), which a person may still edit;
- ``{"time": "clock" | "duration"}`` (``rules.clock.AT`` / ``SPAN``): a
  game time or a span of game time in seconds, which a form shows as a
  clock time ("day 2, 07:00") or in minutes, hours and days.

Commands come in the order of play (:data:`ORDER_OF_PLAY`), each with its
group, so that every client lists the forms a table needs most first.

A type the catalogue cannot describe (an unmarked ``Any``, a union other
than ``X | None``, a non-string enum...) raises :class:`CatalogueError`:
a form must never fall back to free JSON.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

import msgspec
from msgspec import inspect as mi

from vigil import permissions, rules_doc
from vigil.auth import ROLES
from vigil.close_codes import CloseCode
from vigil.protocol import ALL_COMMANDS, PROTOCOL_VERSION
from vigil.rules.commands import Command, Rolls
from vigil.rules.engine import PROTECTED_TABLE_FIELDS
from vigil.rules.game import Game
from vigil.rules.games import GAMES
from vigil.rules.legal import commands_of, tag_of
from vigil.table import DEFAULT_SETTINGS
from vigil.table_commands import OPERATOR_COMMANDS

Json = dict[str, Any]

PER_GAME_SHAPES = frozenset({"sheet", "options", "correctable", "revive"})
"""``shape`` markers whose type is the game's own (``games.<game>.<shape>``;
``revive`` takes sheet field names or character correctable paths as keys)."""
DOCUMENT_SHAPE = "export"
"""``shape`` marker of a whole ``table.export`` result (Field type "document")."""
_MARKERS = frozenset({"ref", "new", "shape", "game_from", "kept", "time", "from"})
TIME_KINDS = frozenset({"clock", "duration"})

ORDER_OF_PLAY: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "harm",
        (
            "mettle.pain", "mettle.heal", "mettle.rattle", "mettle.relieve", "mettle.injury_add",
            "mettle.injury_reduce", "mettle.injury_remove", "mettle.stabilize", "mettle.stabilize_by_fiat",
            "hursagmu.damage", "hursagmu.harm", "hursagmu.heal", "hursagmu.poison", "hursagmu.fall",
            "hursagmu.break_fall", "hursagmu.take_fall",
        ),
    ),
    (
        "rolls",
        (
            "dryh.open", "dryh.declare", "dryh.help", "dryh.roll", "dryh.despair_spend", "dryh.hope_improve",
            "dryh.resolve", "dryh.choose", "dryh.cancel", "dryh.hope_spend", "dryh.recover_discipline",
            "mettle.check", "mettle.shake_off", "mettle.effort", "hursagmu.trait_roll", "hursagmu.see_dim",
        ),
    ),
    (
        "conditions",
        (
            "mettle.rest_start", "mettle.rest_stop", "mettle.strenuous", "hursagmu.rest",
            "hursagmu.rest_terms", "hursagmu.morning", "hursagmu.senses", "dryh.wake", "dryh.clear_snap",
        ),
    ),
    (
        "table",
        (
            "combat.start", "combat.next_round", "combat.end", "clock.pause", "clock.run", "clock.set",
            "clock.follow", "clock.world", "dryh.session_start", "dryh.session_end", "dice.reveal", "undo",
        ),
    ),
    (
        "bookkeeping",
        (
            "mettle.kit_set", "mettle.discipline_set", "character.create", "character.meta", "revive",
            "correct", "character.remove", "table.options", "token.mint", "token.list", "token.revoke",
            "table.rotate_key", "table.reset_history", "table.export", "table.archive",
        ),
    ),
    ("operator", ("table.create", "table.import", "table.list", "table.delete")),
)  # fmt: skip
"""Every command in the order a table needs it, by group: harm and healing
(the main action of a fight first), rolls and checks, conditions, the
table's clock and combat, bookkeeping last. The one order of the pages'
forms and the Foundry window's (a command missing here fails the build)."""

EDITS_CURRENT = frozenset({"character.meta"})
"""Commands whose omitted fields stay as they are: a form starts from the
character's current values (its name, kind, visibility, notes...), which
the view holds under the fields' own names."""

FOUNDRY_ONLY = frozenset({"clock.follow", "clock.world"})
"""Commands only a Foundry client can fill (Foundry's world time): a page
served by Vigil offers no form for them."""


class CatalogueError(TypeError):
    """A command or state type that no Field type describes."""


def build() -> Json:
    """The whole catalogue (schemas/catalogue.json)."""
    commands = {_tag(cls): _command(cls) for cls in ALL_COMMANDS}
    commands = {tag: commands[tag] for tag in _play_order(commands)}
    return {
        "protocol": PROTOCOL_VERSION,
        "roles": list(ROLES),
        "groups": [group for group, _ in ORDER_OF_PLAY],
        "games": {name: _game(name, system, commands) for name, system in GAMES.items()},
        "commands": commands,
        "close_codes": {
            str(int(code)): {"name": _close_name(code), "final": code.final, "label": _close_label(code)}
            for code in CloseCode
        },
    }


def label_keys(catalogue: Json) -> set[str]:
    """Every lang key the catalogue names (a choice's label is its field's
    ``choice_labels`` prefix and the value), for the en.json check."""
    keys: set[str] = {game["label"] for game in catalogue["games"].values()}
    keys |= {code["label"] for code in catalogue["close_codes"].values()}
    fields: list[Json] = []
    for command in catalogue["commands"].values():
        keys |= {command["label"], command["help"]}
        fields += command["fields"]
    for game in catalogue["games"].values():
        fields += game["options"] + game["sheet"] + [c["field"] for c in game["correctable"]]
    for field in _walk(fields):
        keys.add(field["label"])
        if "description" in field:
            keys.add(field["description"])
        if field["type"] == "enum":
            keys |= {f"{field['choice_labels']}.{value}" for value in field["choices"]}
    return keys


# ---- commands ----------------------------------------------------------------


def _play_order(commands: dict[str, Json]) -> list[str]:
    """The tags of ``commands`` in :data:`ORDER_OF_PLAY`, each given its group."""
    order = [tag for _, tags in ORDER_OF_PLAY for tag in tags]
    if sorted(order) != sorted(commands) or len(set(order)) != len(order):
        missing = sorted(set(commands) - set(order))
        unknown = sorted(set(order) - set(commands))
        raise CatalogueError(f"ORDER_OF_PLAY: missing {missing}, unknown or twice {unknown}")
    for group, tags in ORDER_OF_PLAY:
        for tag in tags:
            commands[tag]["group"] = group
    return order


def _tag(cls: type[Command]) -> str:
    tag = cls.__struct_config__.tag
    if not isinstance(tag, str):
        raise CatalogueError(f"{cls.__name__}: a command needs a string tag")
    return tag


_GAME_OF: dict[str, str] = {_tag(c): name for name, system in GAMES.items() for c in system.commands}


# The manual-dice extras of a rolling command (faces, lots): a form offers
# them only while the table's ``manual_dice`` option is on.
MANUAL_DICE_FIELDS = ("faces", "lots")
# The field by which a rolling command carries its client's nonce: never a
# form's field (the client library fills it, docs/dice.md).
NONCE_FIELD = "nonce"


_JUDGED = frozenset(tag_of(c) for system in GAMES.values() for c in commands_of(system))
"""Commands whose legality now the views publish (``legal``, from the
rules' own checks: vigil.rules.legal): a client offers one only when the
state says so. Others (the clock, options, tokens) as the senders say."""


def _command(cls: type[Command]) -> Json:
    """One command. Its scope: "operator" for the operator's commands,
    "character" when it must name a character it acts on, else "table";
    ``manual_dice`` lists the fields that only a table with manual dice
    takes (a rolling command's faces and lots); ``nonce`` names the field
    the client library fills with its entropy (no form shows it)."""
    tag = _tag(cls)
    fields = [f for f in struct_fields(cls, tag, own_first=True) if f["name"] != NONCE_FIELD]
    if cls in OPERATOR_COMMANDS:
        scope = "operator"
    elif any(f["type"] == "character" and f["required"] for f in fields):
        scope = "character"
    else:
        scope = "table"
    return {
        "type": tag,
        "game": _GAME_OF.get(tag),
        "scope": scope,
        "label": f"VIGIL.Command.{tag}.label",
        "help": f"VIGIL.Command.{tag}.help",
        "fields": fields,
        "manual_dice": list(MANUAL_DICE_FIELDS) if issubclass(cls, Rolls) else [],
        "nonce": NONCE_FIELD if issubclass(cls, Rolls) else None,
        "foundry_only": tag in FOUNDRY_ONLY,
        "edits_current": tag in EDITS_CURRENT,
        "legal": tag in _JUDGED,
        "senders": _senders(tag),
    }


def _senders(tag: str) -> Json:
    """Who may send ``tag``: ``allowed()`` itself for the roles that need no
    body, its tables for a player's conditions (tests probe ``allowed()``
    with bodies built from this answer)."""
    player: Json | None = None
    if tag in permissions.PLAYER_ANY:
        player = {"any": True}
    elif tag in permissions.PLAYER_OWN:
        player = {
            "own": list(permissions.PLAYER_OWN[tag]),
            "gm_only": dict(permissions.GM_ONLY_FIELDS.get(tag, {})),
        }
    nobody: frozenset[str] = frozenset()
    return {
        "operator": permissions.allowed("operator", nobody, tag, {}),
        "gm": permissions.allowed("gm", nobody, tag, {}),
        "player": player,
        "spectator": permissions.allowed("spectator", nobody, tag, {}),
    }


# ---- games -------------------------------------------------------------------


def _game(name: str, system: Game, commands: dict[str, Json]) -> Json:
    sheet = struct_fields(system.character_type, f"{name} sheet")
    table = struct_fields(system.table_type, f"{name} table")
    settings = [
        _field(key, mi.type_info(type(value)), f"setting {key}", required=False, default=value)
        for key, value in DEFAULT_SETTINGS.items()
    ]
    table_level = [f for f in table if f["name"] not in PROTECTED_TABLE_FIELDS]
    correctable = [
        *(c for f in sheet for c in _paths(f["name"], f, char=True)),
        *(c for f in table_level for c in _paths(f["name"], f, char=False)),
    ]
    options = [*struct_fields(system.options_type, f"{name} options"), *settings]
    for option in options:
        _describe(name, option, option["name"])
    return {
        "label": f"VIGIL.Game.{name}",
        "options": options,
        "sheet": sheet,
        "correctable": correctable,
        "refs": _refs(sheet, name),
        "pending_choices": {kind: list(moves) for kind, moves in system.pending_choices.items()},
        "waits": [
            {"field": w.field, "answers": list(w.answers), "blocks": dict(w.blocks), "refusal": w.refusal}
            for w in system.waits
        ],
        # In the order of play, the game's own commands among the generic ones.
        "commands": [
            tag for tag, c in commands.items() if c["game"] in (name, None) and c["scope"] != "operator"
        ],
    }


def _describe(game: str, field: Json, path: str) -> None:
    """Give an option (and each field of a grouped one) the language key of
    its description, which the options form shows under it."""
    field["description"] = rules_doc.option_help_key(game, path)
    for sub in field.get("fields", []):
        _describe(game, sub, f"{path}.{sub['name']}")


def _paths(path: str, field: Json, char: bool) -> Iterator[Json]:
    """``path`` and every path below it; "*" stands for a list index or a
    map key (the engine's ``correct`` walks the same tree)."""
    yield {"path": path, "char": char, "field": field}
    if field["type"] == "object":
        for sub in field["fields"]:
            yield from _paths(f"{path}.{sub['name']}", sub, char)
    elif field["type"] == "list":
        yield from _paths(f"{path}.*", field["items"], char)
    elif field["type"] == "map":
        yield from _paths(f"{path}.*", field["values"], char)


def _refs(sheet: list[Json], game: str) -> Json:
    """Where a character's things of each ``ref`` kind live on its sheet: a
    map keyed by their ids (``{"path": "kits"}``) or a list of objects with
    an id field (``{"path": "injuries", "id": "id"}``)."""
    refs: Json = {}

    def add(ref: str, where: Json) -> None:
        if ref in refs:
            raise CatalogueError(f"{game} sheet: two places hold {ref!r}")
        refs[ref] = where

    for field in sheet:
        if field["type"] == "map" and field["keys"]["type"] == "ref":
            add(field["keys"]["ref"], {"path": field["name"]})
        elif field["type"] == "list" and field["items"]["type"] == "object":
            for sub in field["items"]["fields"]:
                if sub["type"] == "ref":
                    add(sub["ref"], {"path": field["name"], "id": sub["name"]})
    return refs


# ---- fields ------------------------------------------------------------------


def struct_fields(cls: type[Any], where: str, own_first: bool = False) -> list[Json]:
    """The Fields of a Struct, in declaration order; with ``own_first`` a
    command's own fields come before inherited ones (``faces``/``lots`` of
    a roll are the manual-dice extras, not what the form asks first)."""
    info = mi.type_info(cls)
    if not isinstance(info, mi.StructType):
        raise CatalogueError(f"{where}: not a Struct")
    return _fields_of(info, where, own_first)


def _fields_of(info: mi.StructType, where: str, own_first: bool = False) -> list[Json]:
    fields = list(info.fields)
    if own_first:
        inherited = {
            name
            for base in info.cls.__mro__[1:]
            if isinstance(names := getattr(base, "__struct_fields__", None), tuple)
            for name in names
        }
        fields.sort(key=lambda f: f.name in inherited)
    out = []
    for f in fields:
        default: Any = msgspec.NODEFAULT
        if f.default is not msgspec.NODEFAULT:
            default = f.default
        elif f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory()
        out.append(_field(f.name, f.type, f"{where}.{f.name}", required=f.required, default=default))
    return out


def _field(
    name: str,
    typ: mi.Type,
    where: str,
    *,
    required: bool = True,
    default: Any = msgspec.NODEFAULT,
    owner: str | None = None,
) -> Json:
    """One Field. ``owner`` is the name of the field this one is the item,
    key or value of: its choices are labelled under the owner's name."""
    owner = owner or name
    typ, extra = _unwrap(typ, where)
    nullable = False
    if isinstance(typ, mi.UnionType):
        others = [t for t in typ.types if not isinstance(t, mi.NoneType)]
        if len(others) != 1 or len(typ.types) != 2:
            raise CatalogueError(f"{where}: only a union with None is supported ({typ!r})")
        nullable = True
        typ, more = _unwrap(others[0], where)
        extra = {**extra, **more}
    kept = bool(extra.pop("kept", False))
    time = extra.pop("time", None)
    source = extra.pop("from", None)
    field: Json = {
        "name": name,
        "label": f"VIGIL.Field.{name}",
        "required": required,
        "nullable": nullable,
        "entry": "rules" if kept else "person",
        **_typed(typ, extra, where, owner),
    }
    if time is not None:
        if time not in TIME_KINDS or field["type"] not in ("integer", "number"):
            raise CatalogueError(f"{where}: a time marker needs a number and one of {sorted(TIME_KINDS)}")
        field["time"] = time
    if source is not None:
        if field["type"] != "string":
            raise CatalogueError(f"{where}: only a string is made from another field")
        field["from"] = source
    if default is not msgspec.NODEFAULT:
        field["default"] = msgspec.to_builtins(default)
    return field


# JSON Schema annotations that only document a type (an option's
# description, which the rules reference prints) and so change no input.
_DOC_ONLY = frozenset({"description", "title"})


def _unwrap(typ: mi.Type, where: str) -> tuple[mi.Type, Json]:
    extra: Json = {}
    while isinstance(typ, mi.Metadata):
        if set(typ.extra_json_schema or {}) - _DOC_ONLY:
            raise CatalogueError(f"{where}: extra_json_schema is not described by the catalogue")
        extra = {**extra, **(typ.extra or {})}
        typ = typ.type
    unknown = set(extra) - _MARKERS
    if unknown:
        raise CatalogueError(f"{where}: unknown markers {sorted(unknown)}")
    return typ, extra


def _typed(typ: mi.Type, extra: Json, where: str, owner: str) -> Json:
    """The type half of a Field: its type and constraints."""
    shape = extra.get("shape")
    if shape is not None:
        return _shaped(typ, shape, extra, where)
    ref = extra.get("ref")
    if ref is not None:
        if not isinstance(typ, mi.StrType):
            raise CatalogueError(f"{where}: a ref must be a string")
        base: Json = {"type": "character"} if ref == "character" else {"type": "ref", "ref": ref}
        if extra.get("new"):
            if ref == "character":
                raise CatalogueError(f"{where}: a new character is created by character.create")
            base["ref_new"] = True
        return {**base, **_str_bounds(typ)}
    if extra:
        raise CatalogueError(f"{where}: markers {sorted(extra)} without a ref or shape")
    if isinstance(typ, mi.BoolType):
        return {"type": "boolean"}
    if isinstance(typ, mi.IntType):
        return {"type": "integer", **_int_bounds(typ, where)}
    if isinstance(typ, mi.FloatType):
        return {"type": "number", **_number_bounds(typ, where)}
    if isinstance(typ, mi.StrType):
        return {"type": "string", **_str_bounds(typ)}
    if isinstance(typ, mi.LiteralType | mi.EnumType):
        return _enum(typ, where, owner)
    if isinstance(typ, mi.ListType):
        return {
            "type": "list",
            "items": _field("item", typ.item_type, f"{where}[]", owner=owner),
            **_length(typ.min_length, typ.max_length),
        }
    if isinstance(typ, mi.DictType):
        keys = _field("key", typ.key_type, f"{where}{{key}}", owner=owner)
        if keys["type"] not in ("string", "character", "ref") or keys["nullable"]:
            raise CatalogueError(f"{where}: map keys must be strings")
        return {
            "type": "map",
            "keys": keys,
            "values": _field("value", typ.value_type, f"{where}{{}}", owner=owner),
            **_length(typ.min_length, typ.max_length),
        }
    if isinstance(typ, mi.StructType):
        if typ.array_like or typ.tag_field is not None:
            raise CatalogueError(f"{where}: tagged or array-like Structs are not described")
        return {"type": "object", "fields": _fields_of(typ, where)}
    raise CatalogueError(f"{where}: no Field type describes {typ!r}")


def _shaped(typ: mi.Type, shape: Any, extra: Json, where: str) -> Json:
    untyped = isinstance(typ, mi.AnyType) or (
        isinstance(typ, mi.DictType)
        and isinstance(typ.key_type, mi.StrType)
        and isinstance(typ.value_type, mi.AnyType)
    )
    if not untyped:
        raise CatalogueError(f"{where}: a shape marks an untyped body, not {typ!r}")
    if set(extra) - {"shape", "game_from"}:
        raise CatalogueError(f"{where}: a shape takes no other marker")
    if shape == DOCUMENT_SHAPE and set(extra) == {"shape"}:
        return {"type": "document"}
    if shape not in PER_GAME_SHAPES:
        raise CatalogueError(f"{where}: unknown shape {shape!r}")
    out: Json = {"type": "per_game", "shape": shape}
    if "game_from" in extra:
        out["game_from"] = extra["game_from"]
    return out


def _enum(typ: mi.LiteralType | mi.EnumType, where: str, owner: str) -> Json:
    if isinstance(typ, mi.LiteralType):
        choices = list(_declared_order().get(frozenset(typ.values), typ.values))
    else:
        choices = [member.value for member in typ.cls]
    if not all(isinstance(v, str) for v in choices):
        raise CatalogueError(f"{where}: enum values must be strings ({choices!r})")
    return {"type": "enum", "choices": choices, "choice_labels": f"VIGIL.Choice.{owner}"}


@functools.cache
def _declared_order() -> dict[frozenset[Any], tuple[Any, ...]]:
    """Each Literal's values in the order the code declares them (the rules'
    order: crit, plain, fail), which ``msgspec.inspect`` sorts away; found
    by walking the annotations of every command and state Struct."""
    orders: dict[frozenset[Any], tuple[Any, ...]] = {}
    structs: set[type[Any]] = set()

    def visit(hint: Any) -> None:
        origin = typing.get_origin(hint)
        if origin is Literal:
            values = typing.get_args(hint)
            if orders.setdefault(frozenset(values), values) != values:
                raise CatalogueError(f"two orders of the choices {sorted(values)}")
            return
        if origin is Annotated:
            visit(typing.get_args(hint)[0])
            return
        for arg in typing.get_args(hint):
            visit(arg)
        if isinstance(hint, type) and issubclass(hint, msgspec.Struct) and hint not in structs:
            structs.add(hint)
            for field_hint in typing.get_type_hints(hint, include_extras=True).values():
                visit(field_hint)

    for cls in ALL_COMMANDS:
        visit(cls)
    for system in GAMES.values():
        for root in (system.table_type, system.character_type, system.options_type):
            visit(root)
    return orders


def _int_bounds(typ: mi.IntType, where: str) -> Json:
    if typ.multiple_of is not None:
        raise CatalogueError(f"{where}: multiple_of is not described")
    low = typ.ge if typ.gt is None else typ.gt + 1
    high = typ.le if typ.lt is None else typ.lt - 1
    return {k: v for k, v in (("min", low), ("max", high)) if v is not None}


def _number_bounds(typ: mi.FloatType, where: str) -> Json:
    """ge/le as min/max; gt/lt as min/max with ``min_exclusive`` /
    ``max_exclusive`` (a rate must be above 0, not at it)."""
    if typ.multiple_of is not None:
        raise CatalogueError(f"{where}: multiple_of is not described")
    out: Json = {}
    if typ.ge is not None or typ.gt is not None:
        out["min"] = typ.ge if typ.gt is None else typ.gt
        if typ.gt is not None:
            out["min_exclusive"] = True
    if typ.le is not None or typ.lt is not None:
        out["max"] = typ.le if typ.lt is None else typ.lt
        if typ.lt is not None:
            out["max_exclusive"] = True
    return out


def _str_bounds(typ: mi.StrType) -> Json:
    out = _length(typ.min_length, typ.max_length)
    if typ.pattern is not None:
        out["pattern"] = typ.pattern
    return out


def _length(low: int | None, high: int | None) -> Json:
    return {k: v for k, v in (("min_length", low), ("max_length", high)) if v is not None}


def _walk(fields: Iterable[Json]) -> Iterator[Json]:
    """Every Field, nested ones included."""
    for field in fields:
        yield field
        if field["type"] == "object":
            yield from _walk(field["fields"])
        elif field["type"] == "list":
            yield from _walk([field["items"]])
        elif field["type"] == "map":
            yield from _walk([field["keys"], field["values"]])


def _close_name(code: CloseCode) -> str:
    return code.name.lower()


def _close_label(code: CloseCode) -> str:
    return f"VIGIL.Close.{_close_name(code)}"
