"""docs/design.md "Visibility": hidden characters never reach players or
spectators, status-only ones reach them without numbers, a player sees its
own character in full; snapshots, patches and history alike."""

from __future__ import annotations

import json
from typing import Any

from tests.server.conftest import Running
from tests.support.client import Client


def _walk_strings(value: object) -> str:
    return json.dumps(value)


async def test_hidden_status_and_own_characters(running: Running) -> None:
    _table, gm = await running.table(
        "mettle",
        {"pc": {"mettle": 5}, "lurker": {"mettle": 3}, "brute": {"mettle": 4}},
        lurker="hidden",
        brute="status",
    )
    await gm.ok({"type": "character.meta", "char": "pc", "notes": "GM SECRET NOTE"})
    player = await running.connect(await running.mint(gm, "player", ["lurker"]))
    stranger = await running.connect(await running.mint(gm, "player", ["pc"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))

    await gm.ok({"type": "mettle.pain", "char": "lurker", "amount": 9})
    await gm.ok({"type": "mettle.pain", "char": "brute", "amount": 6})
    for client in (player, stranger, spectator):
        await client.wait_rev(gm.rev)

    assert spectator.state is not None and stranger.state is not None and player.state is not None
    # hidden: nowhere for the spectator or another player, in state or patches
    for client in (spectator, stranger):
        assert "lurker" not in client.state["characters"]
        assert "lurker" not in _walk_strings(client.patches)
    # the player bound to the hidden character sees it in full
    assert player.state["characters"]["lurker"]["sheet"]["pain"] == 9
    # status-only: badges and countdowns, no numbers
    brute = spectator.state["characters"]["brute"]
    assert "sheet" not in brute and "derived" not in brute
    assert "dying" in brute["badges"] and brute["countdowns"][0]["kind"] == "dying"
    assert '"pain"' not in _walk_strings([p["changes"] for p in spectator.patches])
    # GM notes and options are the GM's alone
    for client in (player, stranger, spectator):
        assert "GM SECRET NOTE" not in _walk_strings(client.state)
        assert "options" not in client.state and "settings" not in client.state
    assert gm.state is not None and gm.state["characters"]["pc"]["notes"] == "GM SECRET NOTE"


async def test_history_obeys_visibility(running: Running) -> None:
    table, gm = await running.table(
        "mettle", {"lurker": {"mettle": 3}, "brute": {"mettle": 4}}, lurker="hidden", brute="status"
    )
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "mettle.pain", "char": "lurker", "amount": 2})
    await gm.ok({"type": "mettle.pain", "char": "brute", "amount": 2})
    page = await spectator.request({"type": "history", "table": table})
    text = _walk_strings(page)
    assert "lurker" not in text
    brute_events = [e for entry in page["entries"] for e in entry["events"] if e.get("char") == "brute"]
    assert brute_events and all("params" not in e and "text" not in e for e in brute_events)
    assert all(entry.get("command") is None for entry in page["entries"])
    gm_page = await gm.request({"type": "history", "table": table})
    assert "lurker" in _walk_strings(gm_page) and gm_page["entries"][0]["command"] is not None


async def test_changing_visibility_reaches_viewers_live(running: Running) -> None:
    _table, gm = await running.table("mettle", {"npc": {"mettle": 3}}, npc="hidden")
    spectator = await running.connect(await running.mint(gm, "spectator"))
    assert spectator.state is not None and "npc" not in spectator.state["characters"]
    await gm.ok({"type": "character.meta", "char": "npc", "visibility": "status"})
    await spectator.wait_rev(gm.rev)
    assert "sheet" not in spectator.state["characters"]["npc"]
    await gm.ok({"type": "character.meta", "char": "npc", "visibility": "hidden"})
    await spectator.wait_rev(gm.rev)
    assert "npc" not in spectator.state["characters"]


async def test_dryh_status_viewer_sees_roll_dice_not_numbers(running: Running) -> None:
    _table, gm = await running.table("dryh", {"hero": {}, "villain": {}}, villain="status")
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "dryh.open", "char": "villain", "pain": 3, "kind": "environmental"})
    await gm.ok({"type": "dryh.roll", "char": "villain"})
    await spectator.wait_rev(gm.rev)
    assert spectator.state is not None
    roll = spectator.state["game"]["rolls"]["villain"]
    assert roll["dice"] is not None and len(roll["dice"]["pain"]) == 3
    assert "exhaustion_at_roll" not in roll and "declared" not in _walk_strings(roll)
    assert "sheet" not in spectator.state["characters"]["villain"]


async def test_history_hides_gm_only_table_events_and_hidden_names(running: Running) -> None:
    table, gm = await running.table("dryh", {"pc": {}, "ghost": {}}, ghost="hidden")
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "table.options", "options": {"response_boxes": 4}})
    await gm.ok({"type": "dryh.open", "char": "pc", "pain": 1, "kind": "environmental"})
    await gm.ok({"type": "dryh.help", "char": "pc", "helper": "ghost"})
    page = await spectator.request({"type": "history", "table": table})
    text = json.dumps(page)
    assert "ghost" not in text and "response_boxes" not in text
    codes = [e["code"] for entry in page["entries"] for e in entry["events"]]
    assert "roll_opened" in codes and "options_changed" not in codes


async def test_kit_contents_reach_only_the_gm_and_the_owner(running: Running) -> None:
    """docs/design.md "Visibility": kit contents are not for other players or
    spectators; the owner sees them (it spends them in MET-11)."""
    table, gm = await running.table(
        "mettle", {"medic": {"mettle": 5, "kits": {"herbs": 3}}, "other": {"mettle": 4}}
    )
    owner = await running.connect(await running.mint(gm, "player", ["medic"]))
    other = await running.connect(await running.mint(gm, "player", ["other"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "mettle.kit_set", "char": "medic", "kit": "bandages", "uses": 2})
    for client in (owner, other, spectator):
        await client.wait_rev(gm.rev)
    assert owner.state is not None and other.state is not None and spectator.state is not None
    assert owner.state["characters"]["medic"]["sheet"]["kits"] == {"herbs": 3, "bandages": 2}
    for client in (other, spectator):
        assert "kits" not in client.state["characters"]["medic"]["sheet"]
        assert "bandages" not in json.dumps(client.patches)
        page = await client.request({"type": "history", "table": table})
        assert "bandages" not in json.dumps(page) and "kit_set" in json.dumps(page)
    owner_page = await owner.request({"type": "history", "table": table})
    assert "bandages" in json.dumps(owner_page)


async def test_another_players_kit_does_not_show_in_my_history(running: Running) -> None:
    """A kit is its owner's: when P's character stabilizes Q's with P's kit,
    Q reads the attempt without the kit; P reads its own kit's uses."""
    helper = {"mettle": 5, "kits": {"herbs": 3}, "disciplines": {"survival": 2}}
    table, gm = await running.table("mettle", {"h": helper, "n": {"mettle": 3}})
    await gm.ok({"type": "table.options", "options": {"stabilize_tn": 12}})
    await gm.ok({"type": "mettle.pain", "char": "n", "amount": 6})
    helpers_player = await running.connect(await running.mint(gm, "player", ["h"]))
    dying_player = await running.connect(await running.mint(gm, "player", ["n"]))
    attempt = {"type": "mettle.stabilize", "char": "n", "helper": "h", "discipline": "survival"}
    await helpers_player.ok({**attempt, "kit": "herbs"})

    async def attempt_read_by(client: Client) -> dict[str, Any]:
        page = await client.request({"type": "history", "table": table, "limit": 1})
        return next(e for e in page["entries"][0]["events"] if e["code"] == "stabilize_attempt")

    assert "herbs" not in _walk_strings(await attempt_read_by(dying_player))
    assert (await attempt_read_by(helpers_player))["params"]["kit_uses"] == 2


async def test_a_hidden_helpers_dice_are_marked_in_the_successes_a_player_sees(
    running: Running,
) -> None:
    """The rules count a hidden helper's dice (the outcome stays theirs); a
    player who cannot see that helper reads successes that are not the sum
    of the dice shown, so its roll says it includes hidden help — never
    whose, nor how many dice."""
    _table, gm = await running.table("dryh", {"anna": {"discipline": 1}, "ghost": {}}, ghost="hidden")
    await gm.ok({"type": "table.options", "options": {"manual_dice": True}})
    player = await running.connect(await running.mint(gm, "player", ["anna"]))
    await gm.ok({"type": "dryh.open", "char": "anna", "pain": 1})
    await gm.ok({"type": "dryh.help", "char": "anna", "helper": "ghost"})
    await gm.ok({"type": "dryh.roll", "char": "anna", "faces": [6, 6, 1, 2, 3]})
    await player.wait_rev(gm.rev)
    assert player.state is not None and gm.state is not None
    seen = player.state["game"]["rolls"]["anna"]
    shown = [f for pool in ("discipline", "exhaustion", "madness") for f in seen["dice"][pool]]
    assert "ghost" not in _walk_strings(seen) and shown == [6]
    assert seen["successes"] == 3 and seen["includes_unseen_help"] is True
    assert set(seen) == set(gm.state["game"]["rolls"]["anna"]), "no count of hidden dice"
    assert gm.state["game"]["rolls"]["anna"]["includes_unseen_help"] is False


async def test_players_and_spectators_get_no_history_entries_for_hidden_changes(
    running: Running,
) -> None:
    """An entry a viewer may read nothing of is left out of its history (it
    would tell that, and when, something hidden happened); a page is filled
    from older entries, and its next_before still pages on."""
    table, gm = await running.table("mettle", {"pc": {"mettle": 5}, "lurker": {"mettle": 9}}, lurker="hidden")
    player = await running.connect(await running.mint(gm, "player", ["pc"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))
    await gm.ok({"type": "mettle.pain", "char": "pc", "amount": 1})
    for _ in range(3):
        await gm.ok({"type": "mettle.pain", "char": "lurker", "amount": 1})
    for viewer in (player, spectator):
        page = await viewer.request({"type": "history", "table": table, "limit": 1})
        (entry,) = page["entries"]
        assert entry["events"] and all(e.get("char") != "lurker" for e in entry["events"])
        whole = await viewer.request({"type": "history", "table": table})
        assert all(e["events"] for e in whole["entries"]), whole
        rest = await viewer.request({"type": "history", "table": table, "before": page["next_before"]})
        assert [e["rev"] for e in rest["entries"]] == [e["rev"] for e in whole["entries"][1:]]
    gm_page = await gm.request({"type": "history", "table": table, "limit": 3})
    assert all(e["char"] == "lurker" for entry in gm_page["entries"] for e in entry["events"])
