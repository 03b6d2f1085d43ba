"""Ids are checked with the patterns the committed JSON Schema states, with
the same meaning (Python's ``$`` also matches before a final newline; a
schema's does not), in every game alike — and a database that holds such
an id from before still loads."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import msgspec
import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import Client

from vigil.net.app import shutdown, start
from vigil.rules.games import GAMES
from vigil.store.sqlite import SqliteStore
from vigil.table import Table

SHEETS: dict[str, dict[str, Any]] = {
    "dryh": {},
    "mettle": {"mettle": 5},
    "hursagmu": {"traits": {"constitution": 5}},
}


def test_every_pattern_of_the_schema_refuses_a_final_newline_in_python_too() -> None:
    schema = (pathlib.Path(__file__).parents[2] / "schemas" / "protocol.schema.json").read_text()
    patterns = set(re.findall(r'"pattern": *("(?:[^"\\]|\\.)*")', schema))
    assert patterns
    for pattern in map(json.loads, patterns):
        assert re.search(pattern, "a") or re.search(pattern, "A"), pattern
        assert not re.search(pattern, "a\n") and not re.search(pattern, "A\n"), pattern


async def test_a_table_id_ending_in_a_newline_is_refused(running: Running) -> None:
    op = await running.operator()
    reply = await op.cmd({"type": "table.create", "system": "mettle", "name": "Odd", "id": "odd\n"})
    assert reply["type"] == "error" and reply["code"] == "bad_input"
    assert reply["params"]["field"] == "id"


@pytest.mark.parametrize("system", ["dryh", "mettle", "hursagmu"])
async def test_a_character_id_ending_in_a_newline_is_refused_in_every_game(
    running: Running, system: str
) -> None:
    _table, gm = await running.table(system, {"a": SHEETS[system]})
    body = {"type": "character.create", "id": "a\n", "name": "Other A", "sheet": SHEETS[system]}
    reply = await gm.cmd(body)
    assert reply["type"] == "error" and reply["code"] == "bad_input"
    assert reply["params"]["field"] == "id"
    assert gm.state is not None and list(gm.state["characters"]) == ["a"]


@pytest.mark.parametrize("system", ["dryh", "mettle", "hursagmu"])
async def test_a_database_holding_an_id_ending_in_a_newline_still_loads(
    tmp_path: pathlib.Path, system: str
) -> None:
    """Written as an older server let it in: the table loads, shows it, and
    is played on (commands name characters by the whole pattern, so none
    names that one)."""
    config = make_config(tmp_path)
    hub, server = await start(config)
    table_id = "old"
    host = await hub.create_table(system, "Old", {}, table_id)
    gm_token, _ = await hub.access.mint(host, "gm", [], "gm", None)
    await shutdown(hub, server)
    store = SqliteStore(config.db_path)
    table = Table(
        id=table_id, system=GAMES[system], epoch=1, rev=0, doc=store.load(table_id).doc, undo_depth=20
    )
    doc = json.loads(json.dumps(table.doc))
    character = msgspec.to_builtins(msgspec.convert(SHEETS[system], GAMES[system].character_type))
    doc["state"]["characters"]["a\n"] = character
    doc["meta"]["a\n"] = {"name": "Newline", "kind": "pc", "visibility": "full", "notes": ""}
    store.snapshot(table_id, 1, 0, doc)
    store.close()
    hub, server = await start(config)
    try:
        gm = await Client.open(f"ws://127.0.0.1:{config.port}/ws", gm_token)
        assert gm.state is not None and "a\n" in gm.state["characters"]
        body = {"type": "character.create", "id": "b", "name": "Bea", "sheet": SHEETS[system]}
        await gm.ok(body)  # the table is played on
        assert set(gm.state["characters"]) == {"a\n", "b"}
        await gm.close()
    finally:
        await shutdown(hub, server)
