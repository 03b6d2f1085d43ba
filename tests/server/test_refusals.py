"""Refusals the server makes itself (not the rules), as a client gets them:
the code and its params, and nothing changed. The words check
(foundry-module/tools/check-words.mjs) renders each frame these produce."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import WAIT

from vigil.net.app import shutdown, start
from vigil.net.errors import Refused
from vigil.net.requests import host_for
from vigil.net.writer import GivenUp
from vigil.table import Table


async def test_a_table_id_in_use_is_refused_by_name(running: Running) -> None:
    table, gm = await running.table("mettle", {"mara": {"mettle": 4}}, table_id="keep")
    op = await running.operator()
    reply = await op.cmd({"type": "table.create", "system": "dryh", "name": "Other", "id": table})
    assert (reply["type"], reply["code"], reply["params"]) == ("error", "table_exists", {"table": "keep"})
    listed = await op.ok({"type": "table.list"})
    assert [(t["id"], t["system"]) for t in listed] == [("keep", "mettle")]
    assert gm.state is not None and gm.state["system"] == "mettle"


async def test_a_request_for_a_table_that_is_not_there_names_it(running: Running) -> None:
    op = await running.operator()
    reply = await op.cmd({"type": "table.export"}, table="nowhere")
    assert (reply["type"], reply["code"], reply["params"]) == ("error", "unknown_table", {"table": "nowhere"})
    history = await op.request({"type": "history", "table": "nowhere", "before": None, "limit": 5})
    assert (history["code"], history["params"]) == ("unknown_table", {"table": "nowhere"})


async def test_a_server_fault_is_answered_as_internal_and_changes_nothing(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug while applying a command (here a table that raises) is
    answered ``internal`` with no params; the table is as it was and the
    next command goes through."""
    _table, gm = await running.table("mettle", {"mara": {"mettle": 4}})
    rev, state = gm.rev, gm.state
    original = Table.prepare

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Table, "prepare", broken)
    reply = await gm.cmd({"type": "mettle.pain", "char": "mara", "amount": 1})
    assert (reply["type"], reply["code"], reply.get("params", {})) == ("error", "internal", {})
    monkeypatch.setattr(Table, "prepare", original)
    assert (gm.rev, gm.state) == (rev, state)
    await gm.ok({"type": "mettle.pain", "char": "mara", "amount": 1})
    assert gm.state is not None and gm.state["characters"]["mara"]["sheet"]["pain"] == 1


async def test_a_command_once_shutdown_has_begun_is_refused(tmp_path: pathlib.Path) -> None:
    """Between a stop signal and the close of every connection, a command
    is answered ``shutting_down`` instead of being applied. The table's lock
    is held so that the shutdown waits at its first step (pausing clocks)
    while the command arrives."""
    hub, server = await start(make_config(tmp_path))
    run = Running(hub.config, hub, server)
    table, gm = await run.table("mettle", {"mara": {"mettle": 4}})
    rev = gm.rev
    host = hub.hosts[table]
    async with host.lock:
        stopping = asyncio.create_task(shutdown(hub, server))
        while not hub.closing:
            await asyncio.sleep(0)
        reply = await gm.cmd({"type": "mettle.pain", "char": "mara", "amount": 1})
    await stopping
    assert (reply["type"], reply["code"]) == ("error", "shutting_down")
    assert gm.rev == rev
    for client in run.clients:
        await client.close()


async def test_a_command_that_changes_nothing_is_refused_and_takes_no_undo_slot(running: Running) -> None:
    """character.meta naming only its character (or each field with the
    value it has), and table.options with no option (or each as it is),
    are refused like every other no-op: no rev, no history entry, no undo
    slot that would take back nothing."""
    _table, gm = await running.table("mettle", {"mara": {"mettle": 4}})
    await gm.ok({"type": "character.meta", "char": "mara", "notes": "scar"})
    rev, state = gm.rev, gm.state
    assert state is not None
    undo_before = state.get("undo")
    for body, code, params in [
        ({"type": "character.meta", "char": "mara"}, "no_change", {"char": "mara"}),
        ({"type": "character.meta", "char": "mara", "notes": "scar"}, "no_change", {"char": "mara"}),
        ({"type": "table.options", "options": {}}, "options_unchanged", {}),
        (
            {"type": "table.options", "options": {"stabilize_tn": state["options"]["stabilize_tn"]}},
            "options_unchanged",
            {},
        ),
    ]:
        reply = await gm.cmd(body)
        assert (reply["type"], reply["code"], reply.get("params", {})) == ("error", code, params), body
    # A history read after them: requests are answered in order, so every
    # refusal above came first, and nothing was logged for them.
    history = await gm.request({"type": "history", "table": gm.table, "before": None, "limit": 1})
    assert history["entries"][0]["rev"] == rev
    assert (gm.rev, gm.state) == (rev, state)
    assert state.get("undo") == undo_before
    # A real change still goes through, and only the field that changed is named.
    await gm.ok({"type": "character.meta", "char": "mara", "notes": "scar", "name": "Mara the Bold"})
    assert gm.rev == rev + 1
    history = await gm.request({"type": "history", "table": gm.table, "before": None, "limit": 1})
    assert history["entries"][0]["events"][0]["params"] == {"fields": ["name"]}


async def test_a_request_read_after_its_table_was_given_up_is_dropped_not_refused(running: Running) -> None:
    """Between a table given up here (a commit fenced off or of unknown
    outcome: its connections are being closed 1013) and its reload, a
    request still read from one of its connections is dropped (GivenUp: the
    client sends it again once reconnected), never answered as if there
    were no such table. A deleted table is still ``unknown_table``."""
    table, gm = await running.table("mettle", {"mara": {"mettle": 4}})
    host = running.hub.hosts[table]
    conn = next(c for c in host.conns() if c.role == "gm")
    running.hub.writer.give_up(host, "outcome_unknown")
    assert table not in running.hub.hosts  # reloading
    with pytest.raises(GivenUp):
        host_for(running.hub, conn, None)
    await asyncio.wait_for(gm.ws.wait_closed(), WAIT)
    assert gm.ws.close_code == 1013 and "unknown_table" not in [e["code"] for e in gm.errors]
    reloaded = running.hub.hosts.pop(table, None)  # then deleted, as hub.drop leaves it
    host.deleted = True
    if reloaded is not None:
        reloaded.deleted = True
    with pytest.raises(Refused) as refused:
        host_for(running.hub, conn, None)
    assert refused.value.code == "unknown_table"
