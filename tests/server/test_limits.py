"""Bounded everything (docs/design.md "Limits"): rate, size, connections, the hello,
the protocol version, value ranges and the Origin allowlist. Each refusal is
a clear error or close code and changes nothing."""

from __future__ import annotations

import asyncio
import json
import pathlib
import time

import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import WAIT
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from vigil.net.app import shutdown, start
from vigil.protocol import PROTOCOL_VERSION


async def _server(tmp_path: pathlib.Path, **overrides: object) -> Running:
    config = make_config(tmp_path, **overrides)
    hub, server = await start(config)
    return Running(config, hub, server)


async def _close(run: Running) -> None:
    for client in run.clients:
        await client.close()
    await shutdown(run.hub, run.server)


async def test_rate_limit_at_the_default_rate(tmp_path: pathlib.Path) -> None:
    run = await _server(tmp_path, rate_per_s=20.0, rate_burst=40)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 99}})
        rev = gm.rev
        began = time.monotonic()
        replies = await asyncio.gather(*(gm.request({"type": "ping"}) for _ in range(80)))
        elapsed = time.monotonic() - began
        limited = [r for r in replies if r["type"] == "error" and r["code"] == "rate_limited"]
        passed = len(replies) - len(limited)
        # At most the burst of 40 (less what setup used) plus what 20/s refilled
        # while the 80 were in flight.
        assert 30 <= passed <= 40 + 20 * elapsed + 1, (passed, elapsed)
        assert limited, "past the burst, messages are refused"
        assert all(r["id"] for r in limited), "each refusal names the message it refuses"
        assert gm.rev == rev
        await asyncio.sleep(0.2)  # refills at 20/s
        assert (await gm.request({"type": "ping"}))["type"] == "pong"
    finally:
        await _close(run)


async def test_oversized_message_closes_with_1009(running: Running) -> None:
    table, gm = await running.table("mettle", {"a": {"mettle": 3}})
    body = {"type": "character.meta", "char": "a", "notes": "x" * (70 * 1024)}
    await gm.ws.send(json.dumps({"type": "cmd", "id": "big", "table": table, "body": body}))
    await gm.wait_for(lambda c: c.ws.close_code is not None)
    assert gm.ws.close_code == 1009


async def _refused(run: Running, token: str) -> list[str]:
    """The codes a connection is refused with; it is never welcomed first."""
    client = await run.connect(token, expect_state=False)
    await asyncio.wait_for(client.ws.wait_closed(), WAIT)
    assert client.welcome is None, "a refused connection is never welcomed"
    assert client.ws.close_code == 1013
    return [e["code"] for e in client.errors]


async def test_connections_per_table_are_bounded(tmp_path: pathlib.Path) -> None:
    run = await _server(tmp_path, max_connections_per_table=3, max_spectators_per_table=1)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 3}})
        token = await run.mint(gm, "player", ["a"])
        await run.connect(token)
        await run.connect(token)
        assert await _refused(run, token) == ["table_full"]
    finally:
        await _close(run)


async def test_spectators_never_lock_the_gm_and_players_out(tmp_path: pathlib.Path) -> None:
    run = await _server(
        tmp_path, max_connections_per_table=6, max_spectators_per_table=3, max_spectators_per_token=2
    )
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 3}})
        link = await run.mint(gm, "spectator")
        other_link = await run.mint(gm, "spectator")
        for _ in range(2):
            await run.connect(link)
        assert await _refused(run, link) == ["link_full"]
        await run.connect(other_link)
        assert await _refused(run, other_link) == ["spectators_full"]
        # The table's GM and its players still get in.
        player = await run.connect(await run.mint(gm, "player", ["a"]))
        second_gm = await run.connect(await run.mint(gm, "gm"))
        assert player.state is not None and second_gm.state is not None
        assert second_gm.welcome is not None and second_gm.welcome["role"] == "gm"
    finally:
        await _close(run)


async def test_a_reconnect_replaces_its_own_stale_connection_on_a_full_link(tmp_path: pathlib.Path) -> None:
    """Viewers whose network dropped without a close still hold their
    places until keep-alive notices (tens of seconds). A client that
    reconnects names its session again: its own former connection (same
    link, same session) leaves at once (closed 1013), and it takes the
    place; another client of a full link is still refused."""
    run = await _server(
        tmp_path, max_connections_per_table=6, max_spectators_per_table=3, max_spectators_per_token=2
    )
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 3}})
        link = await run.mint(gm, "spectator")
        ghost = await run.connect(link, session="viewer-1")  # never closes: its network dropped
        other = await run.connect(link, session="viewer-2")
        back = await run.connect(link, session="viewer-1")
        assert back.welcome is not None and back.state is not None
        await asyncio.wait_for(ghost.ws.wait_closed(), WAIT)
        assert ghost.ws.close_code == 1013
        assert other.ws.close_code is None
        await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})
        await back.wait_rev(gm.rev)
        await other.wait_rev(gm.rev)
        assert await _refused(run, link) == ["link_full"]  # a third viewer: no place
    finally:
        await _close(run)


def test_settings_that_keep_no_place_for_the_gm_are_refused(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path, max_connections_per_table=10, max_spectators_per_table=10)
    with pytest.raises(ValueError, match="places are kept for the GM and players"):
        config.check()


async def test_hello_rules(tmp_path: pathlib.Path) -> None:
    run = await _server(tmp_path, hello_timeout=0.3)
    try:
        url = run.url
        async with connect(url) as ws:  # says nothing
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), WAIT)  # the server closes first
            assert ws.close_code == 4000
        async with connect(url) as ws:  # speaks before hello
            await ws.send(json.dumps({"type": "ping", "id": "p"}))
            assert json.loads(await ws.recv())["code"] == "hello_first"
        async with connect(url) as ws:  # a future protocol
            token = run.hub.access.operator_token()
            await ws.send(json.dumps({"type": "hello", "protocol": 2, "token": token}))
            reply = json.loads(await ws.recv())
            assert reply["code"] == "bad_protocol" and reply["params"] == {"server": 1, "client": 2}
        async with connect(url) as ws:  # not JSON at all
            await ws.send(b"\x00\xff garbage")
            assert json.loads(await ws.recv())["code"] == "bad_message"
    finally:
        await _close(run)


async def test_out_of_range_values_are_refused(running: Running) -> None:
    _table, gm = await running.table("dryh", {"hero": {}})
    rev = gm.rev
    for body, field, reason in (
        (
            {"type": "dryh.open", "char": "hero", "pain": 31, "kind": "environmental"},
            "pain",
            "it must be 30 or less",
        ),
        (
            {"type": "character.create", "id": "x" * 65, "name": "X"},
            "id",
            "it must be at most 64 characters long",
        ),
        (
            {"type": "character.create", "id": "ok", "name": "N" * 65},
            "name",
            "it must be at most 64 characters long",
        ),
        (
            {"type": "character.meta", "char": "hero", "notes": "n" * 2001},
            "notes",
            "it must be at most 2000 characters long",
        ),
        (
            {"type": "dryh.open", "char": "hero", "pain": 3, "kind": "environmental", "extra": True},
            "extra",
            "there is no such field here",
        ),
    ):
        reply = await gm.cmd(body)
        # Plain words naming the field (the page puts its label in front), no msgspec jargon.
        assert reply["type"] == "error" and reply["code"] == "bad_input", (body, reply)
        # (The reason also travels as a code, `why`, for the clients' languages: test_plain_errors.py.)
        assert (reply["params"]["field"], reply["params"]["reason"]) == (field, reason), reply
    helpers = [f"h{i}" for i in range(7)]
    for h in helpers:
        await gm.ok({"type": "character.create", "id": h, "name": h})
    await gm.ok({"type": "dryh.open", "char": "hero", "pain": 1, "kind": "environmental"})
    for h in helpers[:6]:
        await gm.ok({"type": "dryh.help", "char": "hero", "helper": h})
    seventh = await gm.cmd({"type": "dryh.help", "char": "hero", "helper": helpers[6]})
    assert seventh["type"] == "error", "at most 6 helpers per roll"
    assert rev < gm.rev


async def test_origin_allowlist(tmp_path: pathlib.Path) -> None:
    run = await _server(tmp_path, origins=["https://foundry.example"])
    try:
        with pytest.raises(InvalidStatus) as refused:
            await connect(run.url, origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        async with connect(run.url, origin="https://foundry.example") as ws:  # type: ignore[arg-type]
            await ws.send(
                json.dumps(
                    {"type": "hello", "protocol": PROTOCOL_VERSION, "token": run.hub.access.operator_token()}
                )
            )
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with connect(run.url) as ws:  # no Origin: not a browser
            await ws.send(
                json.dumps(
                    {"type": "hello", "protocol": PROTOCOL_VERSION, "token": run.hub.access.operator_token()}
                )
            )
            assert json.loads(await ws.recv())["type"] == "welcome"
    finally:
        await _close(run)


@pytest.mark.parametrize("where", ["frame", "field"])
async def test_a_deeply_nested_frame_gets_bad_message_and_the_connection_stays(
    running: Running, where: str
) -> None:
    _table, gm = await running.table("mettle", {"a": {"mettle": 5}})
    nested = "[" * 1000 + "]" * 1000
    if where == "frame":
        frame = nested
    else:
        frame = (
            '{"type": "cmd", "id": "deep", "body": {"type": "correct", "char": "a", '
            f'"field": "rattle", "value": {nested}}}}}'
        )
    await gm.ws.send(frame)
    await gm.wait_for(lambda c: any(e["code"] == "bad_message" for e in c.errors))
    assert gm.ws.close_code is None
    await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})  # still served
