"""One stalled client never holds back a table's other clients; past the
backlog limit it is sent a snapshot when it drains, or dropped when it stays
stalled (docs/design.md "Slow clients").

What is asserted is behaviour, not speed: the others get every patch, in
order, while the stalled one's backlog sits unread. How fast that is belongs
to the benchmark (bench/); the latencies measured here are only printed.
"""

from __future__ import annotations

import asyncio
import pathlib
import socket
import statistics
import time

import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import WAIT, Client
from websockets.protocol import State

from vigil.net.app import shutdown, start
from vigil.net.hub import Conn

COMMANDS = 300
NOTES = "n" * 1900  # big GM-view patches fill a stalled socket quickly


async def _stalled_client(run: Running, token: str) -> Client:
    """A client whose socket stops being read: tiny receive buffer, then
    the transport's reading paused, as a frozen browser tab would."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", run.config.port))
    client = await Client.open(run.url, token, sock=sock)
    client.ws.transport.pause_reading()
    # Shrink the server side's kernel send buffer for this one connection,
    # so the backlog builds in the server (where the limit applies) after
    # kilobytes instead of the megabytes loopback would otherwise absorb.
    for conn in _server_conns(run, client):
        server_sock = conn.ws.transport.get_extra_info("socket")
        server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return client


def _server_conns(run: Running, client: Client) -> list[Conn]:
    """The server's side of ``client``'s connection (none once it is gone)."""
    assert client.welcome is not None
    token_id = client.welcome["token_id"]
    return [c for h in run.hub.hosts.values() for c in h.conns() if c.token_id == token_id]


async def _send_and_follow(gm: Client, others: list[Client]) -> list[float]:
    """COMMANDS commands, each followed until every one of ``others`` has its
    patch; returns send → last delivery per command (ms), for printing."""
    out = []
    for i in range(COMMANDS):
        began = time.perf_counter()
        reply = await gm.cmd({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        assert reply["type"] == "ack", reply
        for client in others:
            await client.wait_rev(reply["rev"])
        out.append((time.perf_counter() - began) * 1000)
    return out


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


async def test_stalled_client_does_not_hold_back_others(tmp_path: pathlib.Path) -> None:
    # A stall limit far beyond the test's length: this test is about the
    # other clients and the drain; the drop is the next test's.
    config = make_config(tmp_path, backlog_bytes=64 * 1024, stall_seconds=3600.0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        others = [gm, *[await run.connect(await run.mint(gm, "gm")) for _ in range(4)]]
        baseline = await _send_and_follow(gm, others)
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        (conn,) = _server_conns(run, stalled)
        start_rev = gm.rev
        seen = {id(c): len(c.patches) for c in others}
        during = await _send_and_follow(gm, others)
        print(
            f"p99 without stalled client {_p99(baseline):.2f} ms, with {_p99(during):.2f} ms (not asserted)"
        )

        # The stalled client's backlog went past the limit and is still
        # there, unread (the server has not seen it drain): everything
        # below happened while it was stalled.
        assert conn.behind, "the stalled client went past its backlog"
        assert conn.ws.transport.get_write_buffer_size() > 0
        assert stalled.rev < gm.rev, "the stalled client has not read the latest patches"
        # Meanwhile every other client got every patch, once and in order,
        # with no snapshot needed to repair a gap, and none of them fell behind.
        for client in others:
            revs = [p["rev"] for p in client.patches[seen[id(client)] :]]
            assert revs == list(range(start_rev + 1, gm.rev + 1)), "every patch, in order"
            assert client.snapshots == 1 and client.failure is None
        assert not any(c.behind for h in hub.hosts.values() for c in h.conns() if c is not conn)
        # And their patched views are exactly what a new connection gets.
        fresh = await run.connect(await run.mint(gm, "gm"))
        for client in others:
            await client.wait_rev(fresh.rev)
            assert client.state == fresh.state

        # When it reads again it gets one snapshot, not a gap (Client checks
        # that every patch it applies follows the rev before it).
        snapshots = stalled.snapshots
        stalled.ws.transport.resume_reading()
        await stalled.wait_for(lambda c: c.snapshots > snapshots and c.rev == fresh.rev)
        assert stalled.snapshots == snapshots + 1 and stalled.failure is None
        assert stalled.state == fresh.state
        assert not conn.behind and stalled.ws.close_code is None, "drained, not dropped"
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)


async def test_client_stalled_too_long_is_dropped(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path, backlog_bytes=32 * 1024, stall_seconds=1.0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        watcher = await run.connect(await run.mint(gm, "gm"))
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        (conn,) = _server_conns(run, stalled)
        for i in range(60):
            await gm.ok({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        assert conn.behind, "the stalled client went past its backlog"
        behind_since = conn.behind_since

        # Wait (bounded) until the server has cut the stalled connection.
        deadline = time.monotonic() + WAIT
        while any(
            c.ws.transport is not None and not c.ws.transport.is_closing()
            for c in _server_conns(run, stalled)
        ):
            assert time.monotonic() < deadline, "the stalled client was not dropped"
            await asyncio.sleep(0.1)
        # Not before the stall limit: a lower bound, which a slow machine
        # only makes easier to meet.
        assert time.monotonic() - behind_since >= config.stall_seconds
        # The stalled client sees its connection end once it reads again.
        stalled.ws.transport.resume_reading()
        await stalled.wait_for(lambda c: c.ws.close_code is not None)

        # The others stay connected, with every patch and an exact view.
        assert gm.ws.close_code is None and watcher.ws.close_code is None, "the others stay connected"
        fresh = await run.connect(await run.mint(gm, "gm"))
        for client in (gm, watcher):
            await client.wait_rev(fresh.rev)
            assert client.failure is None and client.snapshots == 1
            assert client.state == fresh.state
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)


async def test_a_client_that_stopped_reading_is_dropped_though_its_socket_buffer_grows(
    tmp_path: pathlib.Path,
) -> None:
    """The system's socket buffers grow and take the backlog whether or not
    the client reads (loopback takes megabytes): that is no sign of reading.
    Until it is dropped the server never takes the stalled client for one
    that drained (no snapshot, no fresh stall clock)."""
    config = make_config(tmp_path, backlog_bytes=32 * 1024, stall_seconds=1.0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        (conn,) = _server_conns(run, stalled)
        for i in range(60):
            await gm.ok({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        assert conn.behind, "the stalled client went past its backlog"
        server_sock = conn.ws.transport.get_extra_info("socket")
        server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 * 1024 * 1024)
        deadline = time.monotonic() + WAIT
        while conn.ws.transport is not None and not conn.ws.transport.is_closing():
            assert conn.behind, "a client that reads nothing was taken for one that drained"
            assert time.monotonic() < deadline, "the stalled client was not dropped"
            await asyncio.sleep(0.1)
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)


@pytest.mark.parametrize("command", ["token.revoke", "table.rotate_key"])
async def test_revoking_or_rotating_never_waits_on_clients_that_stopped_reading(
    running: Running, command: str
) -> None:
    """Their closing handshakes would each wait for an answer that never
    comes: the GM's ack and its next command do not wait for them, and the
    stalled sockets are dropped after a bounded close."""
    table, gm = await running.table("mettle", {"a": {"mettle": 5}})
    result = await gm.ok({"type": "token.mint", "role": "spectator", "chars": []})
    stalled = [await running.connect(result["token"]) for _ in range(5)]
    for client in stalled:
        assert client.ws.transport is not None
        client.ws.transport.pause_reading()  # reads nothing more, answers no close
    host = running.hub.hosts[table]
    ending = [c for c in host.conns() if c.token_id == result["token_id"]]
    assert len(ending) == 5
    body = (
        {"type": command, "token_id": result["token_id"]} if command == "token.revoke" else {"type": command}
    )
    reply = await gm.cmd(body)
    assert reply["type"] == "ack", reply
    await gm.ok({"type": "mettle.rattle", "char": "a", "amount": 1})
    assert any(c.ws.state is not State.CLOSED for c in ending), "acked while their handshakes still wait"
    assert not any(c in group for c in ending for group in host.subs.values()), "sent nothing more"
    deadline = asyncio.get_running_loop().time() + WAIT
    while any(c.ws.state is not State.CLOSED for c in ending):
        assert asyncio.get_running_loop().time() < deadline, "dropped after a bounded close"
        await asyncio.sleep(0.1)
    for client in stalled:
        client.ws.transport.abort()  # their side never answers a close either
