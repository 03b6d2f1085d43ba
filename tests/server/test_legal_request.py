"""The ``legal`` request: the moves a viewer is offered now, asked for
rather than sent with every patch (finding them costs far more than a
change; docs/design.md "Permissions"), answered for the rev it is of."""

from __future__ import annotations

from tests.server.conftest import Running


async def test_each_viewer_is_told_the_moves_it_may_make_now(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 9}, "b": {"mettle": 9}})
    player = await running.connect(await running.mint(gm, "player", ["a"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 2})
    await player.wait_rev(gm.rev)

    answer = await gm.request({"type": "legal", "table": table})
    assert answer["type"] == "legal_moves" and answer["rev"] == gm.rev and answer["epoch"] == gm.epoch
    gm_moves = answer["legal"]
    assert {"a", "b"} <= set(gm_moves["chars"]), "the GM acts on every character"
    assert "mettle.pain" in gm_moves["chars"]["b"]

    mine = (await player.request({"type": "legal", "table": table}))["legal"]
    assert set(mine["chars"]) <= {"a", "b"}
    assert "mettle.rest_start" in mine["chars"]["a"], "a player rests its own character (MET-09)"
    assert "mettle.pain" not in mine["chars"].get("b", {}), "a player does not hurt another's"

    watched = await spectator.request({"type": "legal", "table": table})
    assert watched["legal"] is None, "a spectator sends nothing"

    # Resting now, so starting a rest is no longer offered; stopping it is.
    await player.ok({"type": "mettle.rest_start", "char": "a"})
    again = await player.request({"type": "legal", "table": table})
    assert again["rev"] == player.rev
    assert "mettle.rest_start" not in again["legal"]["chars"]["a"]
    assert "mettle.rest_stop" in again["legal"]["chars"]["a"]


async def test_legal_is_not_in_the_view(running: Running) -> None:
    """The view every patch diffs carries no legal moves: a change costs
    what it changed, not a search of every move."""
    _table, gm = await running.table("mettle", {"a": {"mettle": 9}})
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 2})
    assert gm.state is not None and "legal" not in gm.state


async def test_an_operator_is_not_offered_a_table_s_moves(running: Running) -> None:
    table, _gm = await running.table("mettle", {"a": {"mettle": 9}})
    op = await running.operator()
    answer = await op.request({"type": "legal", "table": table})
    assert answer["type"] == "error" and answer["code"] == "forbidden"
