"""The permission table of docs/design.md, enforced on every command kind:
gm / player (own character, other character) / spectator, plus tokens that
are bad, expired or for another table."""

from __future__ import annotations

import time

import pytest
from tests.server.conftest import Running
from tests.support.samples import is_valid, sample, tag_of

from vigil import auth, permissions
from vigil.protocol import ALL_COMMANDS
from vigil.table_commands import OPERATOR_COMMANDS

SYSTEM_OF = {"dryh": "dryh.", "mettle": "mettle.", "hursagmu": "hursagmu."}
SHEETS = {"dryh": {}, "mettle": {"mettle": 5}, "hursagmu": {"traits": {"constitution": 5}}}
TABLE_COMMANDS = [c for c in ALL_COMMANDS if c not in OPERATOR_COMMANDS]


def _commands_for(system: str) -> list[type]:
    other = [p for s, p in SYSTEM_OF.items() if s != system]
    return [c for c in TABLE_COMMANDS if not any(tag_of(c).startswith(p) for p in other)]


@pytest.mark.parametrize("system", ["dryh", "mettle", "hursagmu"])
async def test_every_command_kind_against_every_role(running: Running, system: str) -> None:
    sheet = SHEETS[system]
    _table, gm = await running.table(system, {"mine": sheet, "theirs": sheet})
    player = await running.connect(await running.mint(gm, "player", ["mine"]))
    spectator = await running.connect(await running.mint(gm, "spectator"))
    checked = 0
    for cls in _commands_for(system):
        tag = tag_of(cls)
        if tag in ("table.rotate_key", "token.revoke", "character.remove", "table.reset_history"):
            continue  # would end this test's own sessions; covered below
        for who, client, char in (
            ("spectator", spectator, "mine"),
            ("player-other", player, "theirs"),
            ("player-own", player, "mine"),
        ):
            body = sample(cls, char)
            assert is_valid(cls, body), (tag, body)
            before = gm.rev
            reply = await client.cmd(body)
            forbidden = reply["type"] == "error" and reply["code"] == "forbidden"
            if who == "spectator":
                assert forbidden, f"spectator may not {tag}: {reply}"
            elif who == "player-other":
                assert forbidden or tag in permissions.PLAYER_ANY, f"player on other's {tag}"
            else:
                allowed = tag in permissions.PLAYER_OWN or tag in permissions.PLAYER_ANY
                assert forbidden != allowed, f"player own {tag}: {reply}"
            if forbidden:
                assert gm.rev == before, "a refusal changes nothing"
            checked += 1
        reply = await gm.cmd(sample(cls, "mine"))
        assert not (reply["type"] == "error" and reply["code"] == "forbidden"), (tag, reply)
    assert checked >= 3 * 20


async def test_operator_commands_need_the_operator(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    for cls in OPERATOR_COMMANDS:
        reply = await gm.cmd(sample(cls, "a"))
        assert reply["type"] == "error" and reply["code"] == "forbidden", tag_of(cls)
    op = await running.operator()
    listed = await op.ok({"type": "table.list"})
    assert [t["id"] for t in listed] == [table]


async def test_bad_expired_and_foreign_tokens(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    _other, gm2 = await running.table("mettle", {"a": {"mettle": 3}})
    bad = await running.connect("v1.nonsense.abc", expect_state=False)
    assert bad.errors and bad.errors[0]["code"] == "bad_token" and bad.welcome is None
    tampered = gm.welcome and (await running.mint(gm, "spectator"))[:-3] + "AAA"
    refused = await running.connect(str(tampered), expect_state=False)
    assert refused.errors[0]["code"] == "bad_token"
    # An expired token: signed with the right key, but past its expiry.
    host = running.hub.hosts[table]
    _token, record = await running.hub.access.mint(host, "player", ["a"], "x", None)
    claims = auth.Claims(
        table=table, role="player", token_id=record.token_id, chars=["a"], expires=time.time() - 1
    )
    expired = await running.connect(auth.mint(host.record.key, claims), expect_state=False)
    assert expired.errors[0]["code"] == "token_expired"
    # A GM token of another table acts only on its own table.
    foreign = await running.connect(await running.mint(gm2, "gm"))
    reply = await foreign.cmd({"type": "mettle.pain", "char": "a", "amount": 1}, table=table)
    assert reply["code"] == "wrong_table"
    assert gm.state is not None and gm.state["characters"]["a"]["sheet"]["pain"] == 0


async def test_revoked_token_dies_at_once(running: Running) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    minted = await gm.ok({"type": "token.mint", "role": "spectator", "label": "stream"})
    stream = await running.connect(minted["token"])
    await gm.ok({"type": "token.revoke", "token_id": minted["token_id"]})
    await stream.wait_for(lambda c: c.ws.close_code is not None)
    assert stream.ws.close_code == 4003
    again = await running.connect(minted["token"], expect_state=False)
    assert again.errors[0]["code"] == "token_revoked"
    listed = await gm.ok({"type": "token.list"})
    assert any(t["token_id"] == minted["token_id"] and t["revoked"] for t in listed)


async def test_key_rotation_kills_every_old_token(running: Running) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    spectator_token = await running.mint(gm, "spectator")
    spectator = await running.connect(spectator_token)
    result = await gm.ok({"type": "table.rotate_key"})
    await spectator.wait_for(lambda c: c.ws.close_code is not None)
    assert (await running.connect(spectator_token, expect_state=False)).errors
    fresh = await running.connect(result["token"])
    assert fresh.welcome is not None and fresh.welcome["role"] == "gm"


async def test_players_can_neither_probe_nor_touch_hidden_characters(running: Running) -> None:
    """A hidden or unknown target gets the same ``forbidden``: nothing about
    a hidden character leaks through error codes or side effects."""
    _table, gm = await running.table("dryh", {"me": {}, "ghost": {}, "pc": {}}, ghost="hidden")
    player = await running.connect(await running.mint(gm, "player", ["me"]))
    await gm.ok({"type": "dryh.open", "char": "ghost", "pain": 1, "kind": "environmental"})
    rev = gm.rev
    for body in (
        {"type": "dryh.help", "char": "ghost", "helper": "me"},
        {"type": "dryh.hope_improve", "char": "ghost"},
        {"type": "dryh.hope_improve", "char": "nobody"},
        {"type": "dryh.help", "char": "nobody", "helper": "me"},
    ):
        reply = await player.cmd(body)
        assert reply["type"] == "error" and reply["code"] == "forbidden", (body, reply)
    assert gm.rev == rev


async def test_the_stabilize_tn_and_lot_are_the_gms(running: Running) -> None:
    """MET-02/MET-11: a player may attempt a stabilize as the helper, but the
    TN, modifiers and lot are the GM's input (the table's stabilize_tn)."""
    helper = {"mettle": 5, "kits": {"herbs": 3}, "disciplines": {"survival": 2}}
    table, gm = await running.table("mettle", {"h": helper, "n": {"mettle": 3}})
    player = await running.connect(await running.mint(gm, "player", ["h"]))
    await gm.ok({"type": "mettle.pain", "char": "n", "amount": 6})
    attempt = {
        "type": "mettle.stabilize",
        "char": "n",
        "helper": "h",
        "discipline": "survival",
        "kit": "herbs",
    }
    for extra in ({"tn": 0}, {"lot": "crit"}, {"modifiers": 50}):
        reply = await player.cmd({**attempt, **extra})
        assert reply["code"] == "forbidden", extra
    assert (await player.cmd(attempt))["code"] == "tn_required"
    await gm.ok({"type": "table.options", "options": {"stabilize_tn": 12}})
    await player.ok(attempt)
    page = await gm.request({"type": "history", "table": table, "limit": 1})
    event = next(e for e in page["entries"][0]["events"] if e["code"] == "stabilize_attempt")
    assert event["params"]["tn"] == 12


async def test_archiving_closes_and_refuses_non_gm_connections(running: Running) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    player = await running.connect(await running.mint(gm, "player", ["a"]))
    await gm.ok({"type": "table.archive", "archived": True})
    await player.wait_for(lambda c: c.ws.close_code is not None)
    assert player.ws.close_code == 4005
    await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})  # the GM still works


async def test_an_expired_token_ends_its_connection(running: Running) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    minted = await gm.ok({"type": "token.mint", "role": "spectator", "ttl_days": 1.5 / 86400})
    watcher = await running.connect(minted["token"])
    assert watcher.state is not None
    await watcher.wait_for(lambda c: c.ws.close_code is not None)
    assert watcher.ws.close_code == 4002


async def test_a_player_token_never_controls_a_new_character_made_with_its_old_characters_id(
    running: Running,
) -> None:
    """A token controls the character it was minted for, not whatever later
    bears its id: a hidden NPC made with the removed character's id stays
    hidden from it and refuses its commands — while connected and after a
    new hello. Undoing the removal brings the same character back, and the
    token's control with it."""
    _table, gm = await running.table("mettle", {"hero": {"mettle": 5}})
    token = await running.mint(gm, "player", ["hero"])
    player = await running.connect(token)
    assert player.state is not None and "sheet" in player.state["characters"]["hero"]
    await gm.ok({"type": "character.remove", "char": "hero"})
    hidden = {
        "type": "character.create",
        "id": "hero",
        "name": "Lurker",
        "kind": "npc",
        "sheet": {"mettle": 9},
    }
    await gm.ok({**hidden, "visibility": "hidden"})
    for client in (player, await running.connect(token)):
        await client.wait_for(lambda c: c.rev == gm.rev)
        assert client.state is not None and "hero" not in client.state["characters"], "hidden from it"
        reply = await client.cmd({"type": "mettle.rest_start", "char": "hero"})
        assert reply["type"] == "error" and reply["code"] == "forbidden"
    await gm.ok({"type": "character.remove", "char": "hero"})
    await gm.ok({"type": "undo"})  # the NPC is back: still not the token's
    await gm.ok({"type": "undo"})  # the NPC's creation undone
    await gm.ok({"type": "undo"})  # the removal of the first hero undone: the same one again
    await player.wait_for(lambda c: c.rev == gm.rev and "sheet" in c.state["characters"].get("hero", {}))
    assert player.state is not None and player.state["characters"]["hero"]["name"] == "Hero"
    reply = await player.cmd({"type": "mettle.rest_start", "char": "hero"})
    assert reply["type"] == "ack", reply
