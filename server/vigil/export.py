"""A table as a document: its export (state, names, clock, history), and
reading one back for an import.

Pure: the export is made from the table and its log, the import checks a
document whole — by type, by the game's own invariants, and that every
name belongs to a character — before any table is made from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from vigil.changes import LogEntry
from vigil.clock_anchor import Anchor
from vigil.rules.game import Game
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError
from vigil.table import Table, without_seed
from vigil.table_commands import ForeignId, Kind, Name, Notes, SystemName, Visibility

EXPORT_FORMAT = "vigil-table"
EXPORT_VERSION = 1


class CharacterMetaDoc(msgspec.Struct, kw_only=True):
    name: Name
    kind: Kind = "pc"
    visibility: Visibility = "full"
    notes: Notes = ""
    actor_id: ForeignId | None = None
    token_id: ForeignId | None = None
    incarnation: str = ""


class ExportedDoc(msgspec.Struct, kw_only=True):
    """The table document of an export, checked whole before an import."""

    name: Name
    system: SystemName
    state: dict[str, Any]
    meta: dict[str, CharacterMetaDoc]
    clock: Anchor
    settings: dict[str, bool] = {}
    undo: list[int] = []
    # The exported table's dice period (public part only): the import
    # opens a new one.
    dice: dict[str, Any] | None = None


def table_info(table: Table, archived: bool) -> dict[str, Any]:
    """A table in one line: what the operator's table list shows."""
    return {
        "id": table.id,
        "system": table.system.name,
        "name": table.name,
        "archived": archived,
        "epoch": table.epoch,
        "rev": table.rev,
        "characters": len(table.state.characters),
    }


def export(table: Table, archived: bool, log: list[LogEntry]) -> dict[str, Any]:
    """The export of ``table`` with its ``log`` (this epoch's entries,
    oldest first). The seed of the dice period not yet revealed stays in
    the server: the document keeps its commitment only, and the entries
    lose their ops on the dice period (they carry each new seed; a revealed
    one is in its reveal's event)."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "table": table_info(table, archived),
        "doc": without_seed(table.doc),
        "history": [msgspec.to_builtins(_public_entry(e)) for e in log],
    }


def _public_entry(entry: LogEntry) -> LogEntry:
    if not any(op["path"].startswith(DICE_PATH) for op in [*entry.ops, *entry.inverse]):
        return entry
    ops = [op for op in entry.ops if not op["path"].startswith(DICE_PATH)]
    inverse = [op for op in entry.inverse if not op["path"].startswith(DICE_PATH)]
    return msgspec.structs.replace(entry, ops=ops, inverse=inverse)


DICE_PATH = "/dice"


class BadDocument(ValueError):
    """Why a document is not a table export that can be imported."""


@dataclass(frozen=True)
class Imported:
    """A checked export: the game, the table's name and its document (with
    nothing to undo: the history stays behind)."""

    system: Game
    name: str
    doc: dict[str, Any]


def read_export(document: dict[str, Any]) -> Imported:
    """Check ``document`` (an export) whole; :class:`BadDocument` says why
    it cannot be imported."""
    try:
        if document.get("format") != EXPORT_FORMAT:
            raise ValueError("not a vigil-table export")
        doc = msgspec.convert(document["doc"], ExportedDoc)
        system = GAMES[doc.system]
        state = msgspec.convert(doc.state, system.table_type)
        system.validate(state)
        if set(doc.meta) - set(state.characters):
            raise ValueError("names for characters that do not exist")
        plain = {**msgspec.to_builtins(doc), "undo": [], "dice": None}
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as exc:
        raise BadDocument(str(exc)) from None
    except RuleError as exc:
        raise BadDocument(exc.english()) from None
    return Imported(system=system, name=doc.name, doc=plain)
