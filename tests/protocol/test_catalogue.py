"""The command catalogue (schemas/catalogue.json) tells clients the truth:
every command with every field typed, bounds the decoder really enforces,
senders that ``permissions.allowed()`` agrees with, every option, sheet
field and correctable path of each game, and a lang key for every label."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Annotated, Any

import msgspec
import pytest

from vigil import auth, catalogue, permissions
from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.protocol import ALL_COMMANDS, command_decoder
from vigil.rules.commands import Command
from vigil.rules.engine import PROTECTED_TABLE_FIELDS
from vigil.rules.games import GAMES
from vigil.table import DEFAULT_SETTINGS, Table
from vigil.table_commands import OPERATOR_COMMANDS

ROOT = pathlib.Path(__file__).parents[2]
CATALOGUE = catalogue.build()
COMMANDS: dict[str, Any] = CATALOGUE["commands"]
TYPES = {
    "integer",
    "number",
    "string",
    "boolean",
    "enum",
    "list",
    "object",
    "character",
    "ref",
    "per_game",
    "map",
    "document",
}
TAGS = sorted(COMMANDS)


def walk(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in fields:
        out.append(f)
        if f["type"] == "object":
            out += walk(f["fields"])
        elif f["type"] == "list":
            out += walk([f["items"]])
        elif f["type"] == "map":
            out += walk([f["keys"], f["values"]])
    return out


# ---- sample values built from the catalogue alone ---------------------------


def sample(field: dict[str, Any], high: bool = False) -> Any:
    """A value the catalogue says is valid: at the lower bounds, or with
    ``high`` at the upper ones (every optional part filled in)."""
    kind = field["type"]
    if kind == "integer":
        if high:
            return field.get("max", max(0, field.get("min", 0)))
        return field.get("min", min(0, field.get("max", 0)))
    if kind == "number":
        if high:
            top = float(field.get("max", max(0.0, field.get("min", 0.0))))
            return top - 0.5 if field.get("max_exclusive") else top
        low = float(field.get("min", min(0.0, field.get("max", 0.0))))
        return low + 0.5 if field.get("min_exclusive") else low
    if kind in ("string", "character", "ref"):
        length = field.get("max_length", 8) if high else max(1, field.get("min_length", 0))
        value = "a" * length
        assert re.search(field.get("pattern", ""), value), field
        return value
    if kind == "boolean":
        return high
    if kind == "enum":
        return field["choices"][-1 if high else 0]
    if kind == "list":
        count = field.get("max_length", 2) if high else field.get("min_length", 0)
        return [sample(field["items"], high)] * count
    if kind == "map":
        count = field.get("max_length", 2) if high else field.get("min_length", 0)
        return {f"k{i}": sample(field["values"], high) for i in range(count)}
    if kind == "object":
        return {f["name"]: sample(f, high) for f in field["fields"] if f["required"] or high}
    if kind == "per_game" and field["shape"] == "correctable":
        return 0
    assert kind in ("per_game", "document"), field
    return {}


def body(tag: str, high: bool = False, **values: Any) -> dict[str, Any]:
    fields = COMMANDS[tag]["fields"]
    out = {f["name"]: sample(f, high) for f in fields if f["required"] or high}
    return {"type": tag, **out, **values}


def decodes(value: dict[str, Any]) -> bool:
    try:
        command_decoder.decode(json.dumps(value))
    except msgspec.ValidationError:
        return False
    return True


# ---- commands ---------------------------------------------------------------


def test_every_command_is_in_the_catalogue_and_nothing_else() -> None:
    tags = [c.__struct_config__.tag for c in ALL_COMMANDS]
    assert sorted(tags) == TAGS
    assert all(COMMANDS[tag]["type"] == tag for tag in TAGS)


@pytest.mark.parametrize("cls", ALL_COMMANDS, ids=lambda c: c.__struct_config__.tag)
def test_every_field_of_every_command_is_typed(cls: type[Command]) -> None:
    entry = COMMANDS[str(cls.__struct_config__.tag)]
    # A rolling command's nonce is filled by the client library, never a form (docs/dice.md).
    filled = [entry["nonce"]] if entry["nonce"] else []
    assert sorted([*(f["name"] for f in entry["fields"]), *filled]) == sorted(cls.__struct_fields__)
    for f in walk(entry["fields"]):
        assert f["type"] in TYPES, f
        assert f["label"] == f"VIGIL.Field.{f['name']}"
        assert f["required"] == ("default" not in f), f


@pytest.mark.parametrize("tag", TAGS)
def test_sample_bodies_from_the_catalogue_decode(tag: str) -> None:
    assert decodes(body(tag)), "the minimums"
    assert decodes(body(tag, high=True)), "the maximums, every optional field given"
    defaults = {f["name"]: f["default"] for f in COMMANDS[tag]["fields"] if "default" in f}
    assert decodes({**body(tag), **defaults}), "the defaults"


@pytest.mark.parametrize("tag", TAGS)
def test_the_catalogue_bounds_are_the_decoder_bounds(tag: str) -> None:
    """Just past each bound the decoder refuses: the bounds are not looser
    than the decoder's (and at them it accepts, above)."""
    checked = bounded = 0
    for f in COMMANDS[tag]["fields"]:
        name = f["name"]
        beyond: list[Any] = []
        if f["type"] in ("integer", "number"):
            step = 0 if f["type"] == "number" and f.get("min_exclusive") else 1
            if "min" in f:
                beyond.append(f["min"] - step)
            step = 0 if f["type"] == "number" and f.get("max_exclusive") else 1
            if "max" in f:
                beyond.append(f["max"] + step)
        if f["type"] in ("string", "character", "ref") and "max_length" in f:
            beyond.append("a" * (f["max_length"] + 1))
        if f["type"] in ("string", "character", "ref") and f.get("min_length", 0) > 0:
            beyond.append("")
        if f["type"] == "list" and "max_length" in f:
            beyond.append([sample(f["items"])] * (f["max_length"] + 1))
        if f["type"] == "map" and "max_length" in f:
            beyond.append({f"k{i}": sample(f["values"]) for i in range(f["max_length"] + 1)})
        if f["type"] == "enum":
            beyond.append("no such choice")
        for value in beyond:
            assert not decodes(body(tag, **{name: value})), (name, value)
            checked += 1
        bounded += sum(k in f for k in ("min", "max", "max_length", "choices")) + (f.get("min_length", 0) > 0)
    assert checked == bounded, "every bound was tried"


def test_an_untyped_or_unsupported_field_fails_the_generator() -> None:
    class Untyped(Command, kw_only=True, tag="x.untyped"):
        value: Any

    class Free(Command, kw_only=True, tag="x.free"):
        blob: dict[str, Any]

    class Mixed(Command, kw_only=True, tag="x.mixed"):
        either: int | str

    class Typo(Command, kw_only=True, tag="x.typo"):
        kit: Annotated[str, msgspec.Meta(extra={"reff": "kit"})]

    class Stepped(Command, kw_only=True, tag="x.stepped"):
        even: Annotated[int, msgspec.Meta(multiple_of=2)]

    for cls in (Untyped, Free, Mixed, Typo, Stepped):
        with pytest.raises(catalogue.CatalogueError):
            catalogue.struct_fields(cls, cls.__name__)


def test_untyped_bodies_name_the_game_shape_they_take() -> None:
    def field(tag: str, name: str) -> dict[str, Any]:
        return next(f for f in COMMANDS[tag]["fields"] if f["name"] == name)

    assert field("character.create", "sheet")["shape"] == "sheet"
    assert field("table.options", "options")["shape"] == "options"
    created = field("table.create", "options")
    assert (created["type"], created["shape"], created["game_from"]) == ("per_game", "options", "system")
    assert field("correct", "value")["shape"] == "correctable"
    assert field("revive", "fields")["shape"] == "revive"
    assert field("table.import", "document")["type"] == "document"


def test_every_field_naming_one_character_is_a_players_target() -> None:
    """The fields a player's command may name only visible characters in
    are read from the commands' types: each field of a command the
    catalogue says is a character is one of them, and each of them is a
    character somewhere (what a list or a map holds is no field of its own)."""
    typed = {f["name"] for tag in TAGS for f in COMMANDS[tag]["fields"] if f["type"] == "character"}
    assert typed == set(permissions.TARGET_FIELDS)
    assert "chars" not in permissions.TARGET_FIELDS  # a token's list of them is no target


def test_character_fields_and_refs() -> None:
    """Fields naming characters are "character"; a new character's id is a
    plain string; each ref names a thing its game's sheet holds."""
    assert next(f for f in COMMANDS["character.create"]["fields"] if f["name"] == "id")["type"] == "string"
    for tag in TAGS:
        entry = COMMANDS[tag]
        for f in walk(entry["fields"]):
            if f["name"] in permissions.TARGET_FIELDS and f["type"] != "map":
                assert f["type"] == "character", (tag, f["name"])
            if f["type"] == "ref":
                refs = CATALOGUE["games"][entry["game"]]["refs"]
                assert f["ref"] in refs, (tag, f["name"])
    for game in CATALOGUE["games"].values():
        sheet = {f["name"]: f for f in game["sheet"]}
        for ref, where in game["refs"].items():
            holder = sheet[where["path"]]
            if "id" in where:
                ids = next(f for f in holder["items"]["fields"] if f["name"] == where["id"])
                assert ids["ref"] == ref
            else:
                assert holder["keys"]["ref"] == ref


# ---- senders ----------------------------------------------------------------


def probe(tag: str, values: dict[str, Any], own: frozenset[str]) -> bool:
    """``allowed()`` for a player, on the body as the server sees it (the
    decoded Struct, defaults included)."""
    decoded = command_decoder.decode(json.dumps(body(tag, **values)))
    return permissions.allowed("player", own, tag, msgspec.to_builtins(decoded))


def character_fields(tag: str) -> list[str]:
    return [f["name"] for f in COMMANDS[tag]["fields"] if f["type"] == "character"]


@pytest.mark.parametrize("tag", TAGS)
def test_senders_agree_with_allowed(tag: str) -> None:
    senders = COMMANDS[tag]["senders"]
    plain = msgspec.to_builtins(command_decoder.decode(json.dumps(body(tag))))
    for role in ("operator", "gm", "spectator"):
        assert senders[role] == permissions.allowed(role, frozenset({"a"}), tag, plain), role
    assert senders["spectator"] is False
    others = dict.fromkeys(character_fields(tag), "b")
    player = senders["player"]
    if player is None:
        assert not probe(tag, others, frozenset({"a", "b"})), "not even with every character its own"
    elif "any" in player:
        assert probe(tag, others, frozenset({"a"}))
        assert not probe(tag, others, frozenset())
    else:
        own = dict.fromkeys(player["own"], "a")
        assert probe(tag, {**others, **own}, frozenset({"a"})), "own characters in the own fields"
        for name in player["own"]:
            assert not probe(tag, {**others, **own, name: "b"}, frozenset({"a"})), name
        fields = {f["name"]: f for f in COMMANDS[tag]["fields"]}
        for name, default in player["gm_only"].items():
            assert fields[name]["default"] == default
            changed = next(v for v in (sample(fields[name]), sample(fields[name], True)) if v != default)
            assert not probe(tag, {**others, **own, name: changed}, frozenset({"a"})), name


def test_scopes() -> None:
    for cls in ALL_COMMANDS:
        entry = COMMANDS[str(cls.__struct_config__.tag)]
        if cls in OPERATOR_COMMANDS:
            assert entry["scope"] == "operator" and entry["game"] is None
        else:
            required = {f["name"] for f in entry["fields"] if f["required"] and f["type"] == "character"}
            assert entry["scope"] == ("character" if required else "table")


# ---- games ------------------------------------------------------------------


def schema_paths(node: dict[str, Any], defs: dict[str, Any], prefix: str) -> set[str]:
    """The dotted paths below ``node`` of a JSON Schema: an independent
    derivation of what a correction may name."""
    if "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[1]]
    out: set[str] = set()
    for option in node.get("anyOf", []):
        out |= schema_paths(option, defs, prefix)
    for name, sub in node.get("properties", {}).items():
        out |= {prefix + name} | schema_paths(sub, defs, f"{prefix}{name}.")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out |= {prefix + "*"} | schema_paths(node[key], defs, f"{prefix}*.")
    return out


@pytest.mark.parametrize("name", list(GAMES))
def test_every_option_sheet_field_and_correctable_path_is_listed(name: str) -> None:
    system = GAMES[name]
    game = CATALOGUE["games"][name]
    assert [f["name"] for f in game["options"]] == [*system.options_type.__struct_fields__, *DEFAULT_SETTINGS]
    assert [f["name"] for f in game["sheet"]] == list(system.character_type.__struct_fields__)
    sheet_schema = msgspec.json.schema(system.character_type)
    table_schema = msgspec.json.schema(system.table_type)
    table_props = table_schema["$defs"][table_schema["$ref"].rsplit("/", 1)[1]]["properties"]
    expected_table: set[str] = set()
    for field, sub in table_props.items():
        if field not in PROTECTED_TABLE_FIELDS:
            expected_table |= {field} | schema_paths(sub, table_schema["$defs"], f"{field}.")
    listed = {(c["path"], c["char"]) for c in game["correctable"]}
    assert len(listed) == len(game["correctable"])
    expected_char = schema_paths(sheet_schema, sheet_schema["$defs"], "")
    assert listed == {(p, True) for p in expected_char} | {(p, False) for p in expected_table}


@pytest.mark.parametrize("name", list(GAMES))
def test_the_game_shapes_are_the_game_types(name: str) -> None:
    """Defaults of the listed options are the options type's; a sheet built
    from the listed fields is a valid character."""
    system = GAMES[name]
    game = CATALOGUE["games"][name]
    defaults = {f["name"]: f["default"] for f in game["options"]}
    rules = {k: v for k, v in defaults.items() if k not in DEFAULT_SETTINGS}
    assert msgspec.convert(rules, system.options_type) == system.options_type()
    assert {k: defaults[k] for k in DEFAULT_SETTINGS} == DEFAULT_SETTINGS
    sheet = {f["name"]: sample(f) for f in game["sheet"] if f["required"]}
    msgspec.convert(sheet, system.character_type)
    msgspec.convert(sample({"type": "object", "fields": game["sheet"]}, high=True), system.character_type)


@pytest.mark.parametrize("name", list(GAMES))
def test_table_create_takes_every_listed_option(name: str) -> None:
    """The options shape is one set for ``table.create`` and ``table.options``:
    the game's options and the server's settings alike."""
    system = GAMES[name]
    options = {
        f["name"]: (not f["default"]) if f["type"] == "boolean" else sample(f, high=True)
        for f in CATALOGUE["games"][name]["options"]
    }
    table = Table.new("t", system, "T", options, 0.0, undo_depth=Config().undo_depth)
    assert table.settings == {k: options[k] for k in DEFAULT_SETTINGS}
    rules = {k: v for k, v in options.items() if k not in DEFAULT_SETTINGS}
    assert table.state.options == msgspec.convert(rules, system.options_type)


def test_games_roles_and_their_commands() -> None:
    assert list(CATALOGUE["games"]) == list(GAMES)
    assert CATALOGUE["roles"] == list(auth.ROLES)
    system = next(f for f in COMMANDS["table.create"]["fields"] if f["name"] == "system")
    assert system["choices"] == list(GAMES)
    operator = {c.__struct_config__.tag for c in OPERATOR_COMMANDS}
    for name, game in CATALOGUE["games"].items():
        own = [c.__struct_config__.tag for c in GAMES[name].commands]
        # The order of play (catalogue.ORDER_OF_PLAY): the game's own among the generic ones.
        play = [tag for _, tags in catalogue.ORDER_OF_PLAY for tag in tags]
        assert game["commands"] == sorted(game["commands"], key=play.index)
        assert set(own) <= set(game["commands"])
        assert [COMMANDS[tag]["group"] for tag in game["commands"][:1]] == [
            "harm" if name != "dryh" else "rolls"
        ]
        assert len(set(game["commands"])) == len(game["commands"])
        for tag in game["commands"]:
            assert COMMANDS[tag]["game"] in (name, None) and tag not in operator
        shared = {t for t, c in COMMANDS.items() if c["game"] is None and t not in operator}
        assert shared <= set(game["commands"])


def test_waits_name_a_sheet_field_answers_and_the_acting_character_of_each_block() -> None:
    """What a character's sheet may hold for its answer (HUR-14: a pending
    fall): the field is on the game's sheet, the answers and the blocked
    commands are the game's, and each block names a character field of its
    command (the one acting), whose refusal has words."""
    codes = json.loads((pathlib.Path(__file__).parents[2] / "schemas" / "codes.json").read_text())
    for name, game in CATALOGUE["games"].items():
        assert game["waits"] == [json.loads(json.dumps(w._asdict())) for w in GAMES[name].waits]
        sheet = {f["name"] for f in game["sheet"]}
        for wait in game["waits"]:
            assert wait["field"] in sheet
            assert set(wait["answers"]) <= set(game["commands"])
            for tag, field in wait["blocks"].items():
                assert tag in game["commands"] and tag not in wait["answers"]
                kinds = {f["name"]: f["type"] for f in COMMANDS[tag]["fields"]}
                assert kinds[field] == "character", (tag, field)
            assert wait["refusal"] in codes["errors"]
    assert [w["field"] for w in CATALOGUE["games"]["hursagmu"]["waits"]] == ["pending_fall"]


# ---- close codes and lang ---------------------------------------------------


def test_close_codes_say_which_are_final() -> None:
    codes = CATALOGUE["close_codes"]
    assert {int(c) for c in codes} == {int(c) for c in CloseCode}
    assert {int(c) for c, v in codes.items() if v["final"]} == {4001, 4002, 4003, 4004, 4005}
    assert not any(v["final"] for c, v in codes.items() if c in ("1001", "1011", "1013", "4000"))


def test_the_net_code_closes_with_the_enum_only() -> None:
    for path in (ROOT / "server" / "vigil" / "net").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"close\(\s*\d|close=\s*\d|close: int", text), path.name


def test_en_json_has_every_key_the_catalogue_names() -> None:
    lang = json.loads((ROOT / "foundry-module" / "lang" / "en.json").read_text())
    keys = catalogue.label_keys(CATALOGUE)
    assert len(keys) > 300
    assert sorted(k for k in keys if not (isinstance(lang.get(k), str) and lang[k].strip())) == []
