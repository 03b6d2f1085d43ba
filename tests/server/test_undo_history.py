"""The GM's undo (a compensating change, never a rewrite), the paged
history with dice and actors, and export / import of a table."""

from __future__ import annotations

from tests.server.conftest import Running


async def test_undo_compensates_the_last_gm_command(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 9}})
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 2})
    await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 3})
    assert gm.state is not None
    result = await gm.ok({"type": "undo"})
    assert gm.state["characters"]["a"]["sheet"]["rattle"] == 0
    assert gm.state["characters"]["a"]["sheet"]["pain"] == 2
    undone_rev = result["undone"]
    await gm.ok({"type": "undo"})
    assert gm.state["characters"]["a"]["sheet"]["pain"] == 0
    page = await gm.request({"type": "history", "table": table, "limit": 10})
    kinds = [e["kind"] for e in page["entries"]]
    assert kinds[:2] == ["undo", "undo"], "undo appends; it never rewrites"
    flagged = {e["rev"] for e in page["entries"] if e.get("undone")}
    assert undone_rev in flagged


async def test_the_gm_view_says_what_undo_would_take_back_and_no_one_else_sees_it(
    running: Running,
) -> None:
    """The GM's view publishes what ``Table.next_undo()`` would take back
    (its rev, command, character, sender and game time), kept current by
    the patches; players and spectators never get it; None when nothing
    is left to undo."""
    _table, gm = await running.table("mettle", {"a": {"mettle": 9}, "b": {"mettle": 9}})
    player = await running.connect(await running.mint(gm, "player", ["a"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 2})
    first = gm.rev
    await player.ok({"type": "mettle.rest_start", "char": "a"})  # a player's: not undoable
    await gm.ok({"type": "mettle.rattle", "char": "b", "amount": 3})
    assert gm.state is not None
    undo = gm.state["undo"]
    assert undo == {
        "rev": gm.rev,
        "command": "mettle.rattle",
        "char": "b",
        "name": gm.state["characters"]["b"]["name"],
        "by": undo["by"],
        "at": gm.state["clock"]["game"],
        "field": None,
        "value": None,
    }
    assert undo["by"] and "#" not in undo["by"], "the token's label, not its id"
    await player.wait_rev(gm.rev)
    await spectator.wait_rev(gm.rev)
    assert player.state is not None and spectator.state is not None
    assert "undo" not in player.state and "undo" not in spectator.state
    await gm.ok({"type": "undo"})
    assert gm.state["undo"]["rev"] == first and gm.state["undo"]["command"] == "mettle.pain"
    await gm.ok({"type": "undo"})
    # Making the characters was the GM's too: undoable, newest first.
    assert (gm.state["undo"]["command"], gm.state["undo"]["char"]) == ("character.create", "b")
    _empty, fresh = await running.table("mettle")
    assert fresh.state is not None and fresh.state["undo"] is None
    reply = await fresh.cmd({"type": "undo"})
    assert reply["code"] == "nothing_to_undo"


async def test_undo_skips_the_changes_a_player_built_on(running: Running) -> None:
    """A player's change over the GM's rattle takes that rattle off the
    stack: undo takes back the newest change it still can (the pain), and
    the view says so before the click, never 'cannot be undone'."""
    _table, gm = await running.table("mettle", {"a": {"mettle": 9}})
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 2})
    pain_rev = gm.rev
    player = await running.connect(await running.mint(gm, "player", ["a"]))
    await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 4})
    await player.ok({"type": "mettle.shake_off", "char": "a", "effort": 1})  # not the GM's
    await gm.wait_rev(player.rev)
    assert gm.state is not None and gm.state["undo"]["command"] == "mettle.pain"
    assert gm.state["undo"]["rev"] == pain_rev
    reply = await gm.cmd({"type": "undo"})
    assert reply["type"] == "ack"
    await gm.wait_rev(reply["rev"])
    assert gm.state["characters"]["a"]["sheet"]["rattle"] == 3
    assert gm.state["characters"]["a"]["sheet"]["pain"] == 0


async def test_undo_depth_is_bounded(running: Running) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 99}})
    for _ in range(25):
        await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})
    for _ in range(20):
        await gm.ok({"type": "undo"})
    reply = await gm.cmd({"type": "undo"})
    assert reply["code"] == "nothing_to_undo"
    assert gm.state is not None and gm.state["characters"]["a"]["sheet"]["rattle"] == 5


async def test_history_pages_with_dice_and_actors(running: Running) -> None:
    table, gm = await running.table("dryh", {"hero": {}})
    await gm.ok({"type": "dryh.open", "char": "hero", "pain": 4, "kind": "environmental"})
    await gm.ok({"type": "dryh.roll", "char": "hero"})
    for _ in range(5):
        await gm.ok({"type": "correct", "field": "hope", "value": 1})
    first = await gm.request({"type": "history", "table": table, "limit": 3})
    assert len(first["entries"]) == 3 and first["next_before"] is not None
    rest = await gm.request({"type": "history", "table": table, "before": first["next_before"]})
    revs = [e["rev"] for e in first["entries"] + rest["entries"]]
    assert revs == sorted(revs, reverse=True) and len(set(revs)) == len(revs)
    rolled = [ev for e in rest["entries"] for ev in e["events"] if ev["code"] == "roll_rolled"]
    assert rolled, "the roll is in the history"
    dice = rolled[0]["params"]["dice"]
    assert len(dice["pain"]) == 4 and all(1 <= f <= 6 for f in dice["pain"])
    assert all(e["actor"].startswith("gm") for e in first["entries"])


async def test_export_then_import_gives_the_same_table(running: Running) -> None:
    _table, gm = await running.table("hursagmu", {"juk": {"traits": {"constitution": 6}}})
    await gm.ok({"type": "hursagmu.harm", "char": "juk", "wounds": 10})
    exported = await gm.ok({"type": "table.export"})
    assert exported["format"] == "vigil-table" and exported["history"]
    op = await running.operator()
    created = await op.ok({"type": "table.import", "document": exported})
    copy = await running.connect(created["gm_token"])
    assert copy.state is not None and gm.state is not None
    assert copy.state["characters"] == gm.state["characters"]
    bad = await op.cmd({"type": "table.import", "document": {"format": "nope"}})
    assert bad["code"] == "bad_document"


async def test_archive_and_delete(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    spectator_token = await running.mint(gm, "spectator")
    await gm.ok({"type": "table.archive", "archived": True})
    refused = await running.connect(spectator_token, expect_state=False)
    assert refused.errors[0]["code"] == "archived"
    op = await running.operator()
    await op.ok({"type": "table.delete", "table": table})
    await gm.wait_for(lambda c: c.ws.close_code is not None)
    assert gm.ws.close_code == 4004
    assert await op.ok({"type": "table.list"}) == []


async def test_import_refuses_a_broken_document(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    exported = await gm.ok({"type": "table.export"})
    op = await running.operator()
    for broken in ({"meta": [1]}, {"meta": {"zz": {"name": "Z"}}}, {"clock": "soon"}, {"system": "chess"}):
        document = {**exported, "doc": {**exported["doc"], **broken}}
        reply = await op.cmd({"type": "table.import", "document": document})
        assert reply["code"] == "bad_document", broken
    assert [t["id"] for t in await op.ok({"type": "table.list"})] == [table]


async def test_undo_refuses_to_leave_a_state_the_rules_reject(running: Running) -> None:
    """Undoing the creation of a character who has since joined a DRYH roll
    as a helper would leave the roll naming nobody: refused, nothing changes."""
    _table, gm = await running.table("dryh", {"a": {}})
    await gm.ok({"type": "dryh.open", "char": "a", "pain": 1, "kind": "environmental"})
    await gm.ok({"type": "character.create", "id": "x", "name": "X"})
    player = await running.connect(await running.mint(gm, "player", ["x"]))
    await player.ok({"type": "dryh.help", "char": "a", "helper": "x"})
    rev = gm.rev
    reply = await gm.cmd({"type": "undo"})
    assert reply["type"] == "error" and reply["code"] == "undo_conflict"
    assert gm.rev == rev and gm.state is not None and "x" in gm.state["characters"]


async def test_the_operator_can_unarchive(running: Running) -> None:
    table, _gm = await running.table("mettle", {"a": {"mettle": 3}})
    op = await running.operator()
    await op.ok({"type": "table.archive", "archived": True}, table=table)
    await op.ok({"type": "table.archive", "archived": False}, table=table)
    listed = await op.ok({"type": "table.list"})
    assert listed[0]["archived"] is False
