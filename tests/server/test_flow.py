"""Several clients on several tables: everyone of a table sees every change
in order, nobody of another table sees any."""

from __future__ import annotations

from tests.server.conftest import Running

METTLE = {"a": {"mettle": 5}, "b": {"mettle": 4}}


async def test_every_client_of_a_table_sees_every_change_in_order(running: Running) -> None:
    _t1, gm1 = await running.table("mettle", METTLE)
    _t2, gm2 = await running.table("mettle", METTLE)
    watchers1 = [await running.connect(await running.mint(gm1, "spectator")) for _ in range(3)]
    watchers2 = [await running.connect(await running.mint(gm2, "spectator")) for _ in range(2)]
    start2 = [w.rev for w in watchers2]

    acks = []
    for amount in (1, 1, 1, 2):
        acks.append(await gm1.cmd({"type": "mettle.pain", "char": "a", "amount": amount}))
    assert [a["type"] for a in acks] == ["ack"] * 4
    revs = [a["rev"] for a in acks]
    assert revs == sorted(revs) and len(set(revs)) == 4

    for client in [gm1, *watchers1]:
        await client.wait_rev(revs[-1])
        assert client.state is not None
        assert client.state["characters"]["a"]["sheet"]["pain"] == 5
        patch_revs = [p["rev"] for p in client.patches]
        assert patch_revs == sorted(patch_revs), "patches arrive in rev order"
    # A change on the second table, made after every change of the first
    # had reached its clients: once it arrives, anything leaked from the
    # first table would have arrived before it (no fixed wait to guess).
    barrier = await gm2.cmd({"type": "mettle.rattle", "char": "b", "amount": 1})
    for w, before in zip(watchers2, start2, strict=True):
        await w.wait_rev(barrier["rev"])
        assert [p["rev"] for p in w.patches] == [barrier["rev"]] == [before + 1], (
            "another table's clients see nothing of the first"
        )
        assert w.state is not None and w.state["characters"]["a"]["sheet"]["pain"] == 0


async def test_patched_view_equals_a_fresh_snapshot(running: Running) -> None:
    """Patches are exact: applying them gives what a new connection gets."""
    _table, gm = await running.table("mettle", METTLE)
    token = await running.mint(gm, "spectator")
    watcher = await running.connect(token)
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 7})
    await gm.ok({"type": "mettle.rattle", "char": "b", "amount": 3})
    await gm.ok({"type": "character.meta", "char": "b", "name": "Bea"})
    await gm.ok({"type": "combat.start"})
    await watcher.wait_rev(gm.rev)
    fresh = await running.connect(token)
    assert fresh.state == watcher.state
    gm_fresh = await running.connect(await running.mint(gm, "gm"))
    assert gm_fresh.state == gm.state


async def test_ack_comes_before_the_patch_it_caused(running: Running) -> None:
    _table, gm = await running.table("mettle", METTLE)
    order: list[str] = []
    original = gm.handle

    def spy(msg: dict) -> None:  # type: ignore[type-arg]
        order.append(msg["type"])
        original(msg)

    gm.handle = spy  # type: ignore[method-assign]
    await gm.ok({"type": "mettle.pain", "char": "a", "amount": 1})
    await gm.wait_rev(gm.rev)  # ok() returned: both the ack and its patch were handled
    assert order.index("ack") < order.index("patch")
