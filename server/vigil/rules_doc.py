"""``docs/rules/``: the rules reference, generated from the code.

Every page is a pure function of what the code already holds: each game's
rule book (``GAMES[game].rule_book``), the rules every game shares
(:data:`vigil.rules.reference.COMMON`), and the table options' types,
defaults and descriptions, read with ``msgspec.inspect`` from each game's
``options_type`` and from :class:`vigil.table_commands.TableSettings`. So a
rule, a Decision or an option is written once, in the code, and
``tests/rules/test_rules_reference.py`` fails when the committed pages no
longer match it. ``vigil rules-doc --out docs/rules`` writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi

from vigil.rules.games import GAMES
from vigil.rules.reference import COMMON, Practice, Rule, RuleBook
from vigil.table_commands import TableSettings

INDEX = "README.md"
HEADER = (
    "<!-- Generated from the code by `vigil rules-doc --out docs/rules` (see server/vigil/rules_doc.py)."
    " Do not edit: change the rule book or the option's description and regenerate. -->"
)


@dataclass(frozen=True)
class OptionDoc:
    """One row of an options table. ``name`` is dotted for a field of a
    grouped option (``lot_weights.crit``)."""

    name: str
    type: str
    default: str
    description: str


def option_docs(struct: type[Any]) -> list[OptionDoc]:
    """Every field of an options Struct, a grouped option's fields after it."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType), struct
    return _fields(info, "")


def _fields(info: mi.StructType, prefix: str) -> list[OptionDoc]:
    rows: list[OptionDoc] = []
    for field in info.fields:
        kind, description = _unwrap(field.type)
        name = prefix + field.name
        default = field.default if field.default_factory is msgspec.NODEFAULT else field.default_factory()
        rows.append(OptionDoc(name, type_phrase(kind), default_phrase(default), description))
        group = _group(kind)
        if group is not None:
            rows += _fields(group, name + ".")
    return rows


def _unwrap(kind: mi.Type) -> tuple[mi.Type, str]:
    """The type under any ``Annotated`` metadata, and its description."""
    description = ""
    while isinstance(kind, mi.Metadata):
        extra = kind.extra_json_schema or {}
        description = description or str(extra.get("description", ""))
        kind = kind.type
    return kind, description


def _group(kind: mi.Type) -> mi.StructType | None:
    if isinstance(kind, mi.StructType):
        return kind
    if isinstance(kind, mi.UnionType):
        structs = [t for t in kind.types if isinstance(t, mi.StructType)]
        return structs[0] if structs else None
    return None


def _number(value: float) -> str:
    return f"{value:,}".replace("-", "−")


def type_phrase(kind: mi.Type) -> str:
    """A plain-English name for an option's type, bounds included."""
    kind, _ = _unwrap(kind)
    if isinstance(kind, mi.BoolType):
        return "on or off"
    if isinstance(kind, mi.IntType):
        low = kind.ge if kind.gt is None else kind.gt + 1
        high = kind.le if kind.lt is None else kind.lt - 1
        if low is not None and high is not None:
            return f"whole number from {_number(low)} to {_number(high)}"
        if low is not None:
            return f"whole number, at least {_number(low)}"
        if high is not None:
            return f"whole number, at most {_number(high)}"
        return "whole number"
    if isinstance(kind, mi.LiteralType):
        return "one of " + ", ".join(f"`{v}`" for v in kind.values)
    if isinstance(kind, mi.StructType):
        return "group of " + ", ".join(f"`{f.name}`" for f in kind.fields)
    if isinstance(kind, mi.UnionType):
        others = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        if len(others) == 1 and len(others) < len(kind.types):
            return type_phrase(others[0]) + ", or unset"
    raise TypeError(f"no plain name for option type {kind!r}")


def default_phrase(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    if value is None:
        return "unset"
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, int | float):
        return _number(value)
    raise TypeError(f"no plain name for default {value!r}")


def slug(title: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def code_link(module: str) -> str:
    """A link from ``docs/rules/`` to the module's source file."""
    path = module.replace(".", "/") + ".py"
    return f"[`{path.removeprefix('vigil/')}`](../../server/{path})"


def decision_count(book: RuleBook) -> int:
    return sum(len(entry.decisions) for entry in book.entries())


def common_options() -> list[str]:
    """Options every game has (``manual_dice``): the index lists them once."""
    fields = [option_names(s.options_type) for s in GAMES.values()]
    return [name for name in fields[0] if all(name in other for other in fields[1:])]


def option_help_key(game: str, option: str) -> str:
    """The language files' key of an option's description, which the GM reads
    under the option in the dashboard's form and on the rules page in the
    reader's language. An option every table has (the settings, and the
    options every game shares) has one key for all games, so that each
    description is translated once; ``option`` is dotted for a grouped
    option's field (``lot_weights.crit``), and the key ends in ``.help`` so
    that a group's key and its fields' keys nest as Foundry nests them."""
    top = option.split(".", 1)[0]
    scope = "all" if top in common_options() or top in option_names(TableSettings) else game
    return f"VIGIL.Option.{scope}.{option}.help"


def option_help() -> dict[str, str]:
    """Every option's description (English, as the code writes it) by its
    language key: ``lang/en.json`` copies them (tools/sync-lang.mjs)."""
    out = {
        option_help_key(game, row.name): row.description
        for game in GAMES
        for row in option_docs(GAMES[game].options_type)
    }
    out |= {option_help_key("", row.name): row.description for row in option_docs(TableSettings)}
    return dict(sorted(out.items()))


def option_names(struct: type[Any]) -> list[str]:
    return [f.name for f in msgspec.structs.fields(struct)]


def _entry(entry: Practice, heading: str) -> list[str]:
    lines = [f"### {heading}", "", entry.does, ""]
    lines += [f"**Decision.** {text}\n" for text in entry.decisions]
    where = []
    if entry.options:
        label = "Table option" if len(entry.options) == 1 else "Table options"
        where.append(f"{label}: " + ", ".join(f"`{o}`" for o in entry.options) + ".")
    where.append("Code: " + ", ".join(code_link(m) for m in entry.code) + ".")
    return [*lines, " ".join(where), ""]


def _heading(entry: Practice) -> str:
    return f"{entry.id} {entry.title}" if isinstance(entry, Rule) else entry.title


def _options_table(rows: list[OptionDoc], used_by: dict[str, list[str]]) -> list[str]:
    lines = ["| option | type | default | what it does | used by |", "|---|---|---|---|---|"]
    for row in rows:
        rules = ", ".join(used_by.get(row.name, []))
        lines.append(f"| `{row.name}` | {row.type} | {row.default} | {row.description} | {rules} |")
    return lines


def _used_by(book: RuleBook) -> dict[str, list[str]]:
    """Option name -> links to the rules and practices it changes, the
    common ones (on the index page) included."""
    used: dict[str, list[str]] = {}
    for entry in book.entries():
        for option in entry.options:
            used.setdefault(option, []).append(f"[{_label(entry)}](#{slug(_heading(entry))})")
    for practice in COMMON:
        for option in practice.options:
            used.setdefault(option, []).append(f"[{practice.title}]({INDEX}#{slug(practice.title)})")
    return used


def _label(entry: Practice) -> str:
    return entry.id if isinstance(entry, Rule) else entry.title


def game_page(book: RuleBook, options_type: type[Any]) -> str:
    first, last = book.ids[0], book.ids[-1]
    lines = [
        HEADER,
        "",
        f"# {book.title}",
        "",
        book.source,
        "",
        book.state,
        "",
        f"Every rule has an id ({first} … {last}) that events in a table's history and the tests "
        "name. Under each id comes what the engine does for it; a **Decision** is what Vigil does "
        "where the rule text is silent or ambiguous, and where a group may want otherwise, a table "
        "option changes it. The rules common to every game are in the [index](README.md).",
        "",
        "- [Table options](#table-options)",
        *[f"- [{s.title}](#{slug(s.title)})" for s in book.sections],
    ]
    if book.practices:
        lines.append("- [Other rules the engine applies](#other-rules-the-engine-applies)")
    lines += [
        "",
        "## Table options",
        "",
        "The GM sets them per table (the `table.options` command, or the dashboard). Every table also "
        "has the [settings common to every game](README.md#options-of-every-table).",
        "",
        *_options_table(option_docs(options_type), _used_by(book)),
        "",
    ]
    for section in book.sections:
        lines += [f"## {section.title}", ""]
        if section.intro:
            lines += [section.intro, ""]
        for rule in section.rules:
            lines += _entry(rule, _heading(rule))
    if book.practices:
        lines += ["## Other rules the engine applies", ""]
        for practice in book.practices:
            lines += _entry(practice, practice.title)
    return "\n".join(lines).rstrip("\n") + "\n"


def index_page() -> str:
    lines = [
        HEADER,
        "",
        "# Rules reference",
        "",
        "Vigil enforces the harm, condition and dice rules of three tabletop games. Each game's page "
        "lists every numbered rule of its text with what the engine does for it, every **Decision** "
        "taken where the text is silent or ambiguous, and every table option with its type and "
        'default. "GM" is the game master (Hursagmu\'s "Master").',
        "",
        "| game | page | rule ids | rules | decisions | table options |",
        "|---|---|---|---|---|---|",
    ]
    for name, system in GAMES.items():
        book = system.rule_book
        ids = f"{book.ids[0]} … {book.ids[-1]}"
        options = len(msgspec.structs.fields(system.options_type))
        lines.append(
            f"| {book.title} | [{name}.md]({name}.md) | {ids} | {len(book.rules)} "
            f"| {decision_count(book)} | {options} |"
        )
    lines += [
        "",
        "Tests name the rule ids they cover, in the test's name or docstring; "
        "`tests/rules/test_rules_reference.py` checks that every rule id is named by at least one "
        "test and that these pages match the code.",
        "",
        "## Common to every game",
        "",
    ]
    for practice in COMMON:
        lines += _entry(practice, practice.title)
    first = next(iter(GAMES.values())).options_type
    common = set(common_options())
    rows = [r for r in option_docs(first) if r.name in common] + option_docs(TableSettings)
    lines += [
        "## Options of every table",
        "",
        "Every game has these besides its own options, and the GM sets them the same way (the "
        "`table.options` command, or the dashboard).",
        "",
        "| option | type | default | what it does |",
        "|---|---|---|---|",
        *[f"| `{r.name}` | {r.type} | {r.default} | {r.description} |" for r in rows],
        "",
        "## Where these pages come from",
        "",
        "The rules and Decisions are written once, in each game's rule book "
        "(`server/vigil/rules/<game>/rule_book.py`) and in `server/vigil/rules/reference.py`; the "
        "options' descriptions sit on their fields (each game's `Options` in "
        "`server/vigil/rules/<game>/state.py`, and `TableSettings` in "
        "`server/vigil/table_commands.py`). After changing any of them, run "
        "`vigil rules-doc --out docs/rules`.",
    ]
    return "\n".join(lines) + "\n"


def contents() -> dict[str, str]:
    """Every page of ``docs/rules/``, by file name."""
    pages = {INDEX: index_page()}
    for name, system in GAMES.items():
        pages[f"{name}.md"] = game_page(system.rule_book, system.options_type)
    return pages


def write_all(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in contents().items():
        path = out / name
        path.write_text(text)
        written.append(path)
    return written
