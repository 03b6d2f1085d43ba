"""Exports without a socket: a table's export reads back as the same
table, and a document that is not one is refused whole, saying why."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from vigil.config import Config
from vigil.export import EXPORT_FORMAT, BadDocument, export, read_export, table_info
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.mettle.commands import Rattle
from vigil.table import Table
from vigil.table_commands import CharacterCreate

WALL = 1_000_000.0
CTX = Ctx(dice=RandomDice(1), actor=Actor(id="gm#1", role="gm"))


def _exported() -> tuple[Table, dict[str, Any]]:
    table = Table.new("t", GAMES["mettle"], "Harbour", {}, WALL, undo_depth=Config().undo_depth)
    log = []
    for body in (
        CharacterCreate(id="a", name="Anna", sheet={"mettle": 5}),
        Rattle(char="a", amount=2),
    ):
        change = table.prepare(body, WALL, CTX)
        table.commit(change)
        log.append(change.entry(table.id, table.epoch, WALL))
    # Through JSON, as the file a GM downloads.
    return table, msgspec.json.decode(msgspec.json.encode(export(table, False, log)))


def test_an_export_holds_the_table_its_names_and_its_history() -> None:
    table, document = _exported()
    assert document["format"] == EXPORT_FORMAT and document["version"] == 1
    assert document["table"] == table_info(table, False)
    assert document["table"] == {
        "id": "t",
        "system": "mettle",
        "name": "Harbour",
        "archived": False,
        "epoch": 1,
        "rev": 2,
        "characters": 1,
    }
    assert document["doc"]["meta"]["a"]["name"] == "Anna"
    assert [e[2] for e in document["history"]] == [1, 2]  # log entries (array-like), oldest first


def test_an_export_reads_back_as_the_same_table_with_nothing_to_undo() -> None:
    table, document = _exported()
    imported = read_export(document)
    assert imported.system is GAMES["mettle"] and imported.name == "Harbour"
    assert imported.doc["state"] == msgspec.to_builtins(table.state)
    assert imported.doc["meta"] == table.doc["meta"] and imported.doc["undo"] == []
    again = Table(id="u", system=imported.system, epoch=1, rev=0, doc=imported.doc, undo_depth=5)
    assert again.state == table.state and again.name == "Harbour"


def _broken(edit: Any) -> str:
    _table, document = _exported()
    document = copy.deepcopy(document)
    edit(document)
    with pytest.raises(BadDocument) as info:
        read_export(document)
    return str(info.value)


def test_only_a_vigil_table_export_is_read() -> None:
    assert _broken(lambda d: d.update(format="something-else")) == "not a vigil-table export"
    assert _broken(lambda d: d.pop("doc")) == "'doc'"


@pytest.mark.parametrize(
    ("field", "value"),
    [("meta", [1]), ("clock", "soon"), ("system", "chess"), ("name", ""), ("state", {"characters": 3})],
)
def test_a_document_of_the_wrong_shape_is_refused(field: str, value: Any) -> None:
    assert _broken(lambda d: d["doc"].__setitem__(field, value))


def test_names_for_characters_that_do_not_exist_are_refused() -> None:
    reason = _broken(lambda d: d["doc"]["meta"].__setitem__("zz", {"name": "Z"}))
    assert reason == "names for characters that do not exist"


def test_a_state_that_breaks_the_games_own_rules_is_refused_in_words() -> None:
    """DRYH: more checked response boxes than the table has."""
    _table, document = _exported()
    dryh = Table.new("d", GAMES["dryh"], "Night", {}, WALL, undo_depth=5)
    dryh.commit(dryh.prepare(CharacterCreate(id="a", name="Anna"), WALL, CTX))
    document["doc"] = msgspec.json.decode(msgspec.json.encode(dryh.doc))
    document["doc"]["state"]["characters"]["a"]["fight"] = 4
    with pytest.raises(BadDocument) as info:
        read_export(document)
    assert str(info.value) == "a has more checked responses than the table's 3 boxes."
