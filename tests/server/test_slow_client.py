"""One stalled client never delays a table's other clients; past the
backlog limit it is sent a snapshot when it drains, or dropped when it stays
stalled (DESIGN "Slow clients")."""

from __future__ import annotations

import asyncio
import pathlib
import socket
import statistics
import time

from tests.server.conftest import Running, make_config
from tests.support.client import Client

from vigil.net.app import shutdown, start

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
    token_id = client.welcome["token_id"]  # type: ignore[index]
    for host in run.hub.hosts.values():
        for conn in host.conns():
            if conn.token_id == token_id:
                server_sock = conn.ws.transport.get_extra_info("socket")
                server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return client


async def _latencies(run: Running, gm: Client, others: list[Client]) -> list[float]:
    """Send → the patch reached every other client, per command (ms)."""
    out = []
    for i in range(COMMANDS):
        began = time.perf_counter()
        reply = await gm.cmd({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        rev = reply["rev"]
        for client in others:
            await client.wait_rev(rev)
        out.append((time.perf_counter() - began) * 1000)
    return out


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


async def test_stalled_client_does_not_delay_others(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path, backlog_bytes=64 * 1024, stall_seconds=30.0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        _table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        others = [await run.connect(await run.mint(gm, "gm")) for _ in range(4)]
        await _latencies(run, gm, others)  # warm up
        baseline = await _latencies(run, gm, others)
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        stalled_run = await _latencies(run, gm, others)
        p99_base, p99_stalled = _p99(baseline), _p99(stalled_run)
        print(f"p99 without stalled client {p99_base:.2f} ms, with {p99_stalled:.2f} ms")
        conn = next(
            c for h in hub.hosts.values() for c in h.conns() if c.token_id == stalled.welcome["token_id"]
        )  # type: ignore[index]
        assert conn.behind, "the stalled client went past its backlog"
        # Within 20 %, with 0.5 ms of slack for timer noise at sub-ms scale.
        assert p99_stalled <= 1.2 * p99_base + 0.5, (p99_base, p99_stalled)
        # When it reads again it gets one snapshot, not a gap.
        snapshots = stalled.snapshots
        stalled.ws.transport.resume_reading()
        await stalled.wait_for(lambda c: c.snapshots > snapshots and c.rev == gm.rev, timeout=10)
        fresh = await run.connect(await run.mint(gm, "gm"))
        assert stalled.state == fresh.state
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)


async def test_client_stalled_too_long_is_dropped(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path, backlog_bytes=32 * 1024, stall_seconds=1.0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        for i in range(60):
            await gm.ok({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and any(
            True
            for h in hub.hosts.values()
            for c in h.conns()
            if c.ws.transport and c.token_id == stalled.welcome["token_id"]
        ):  # type: ignore[index]
            host = hub.hosts[table]
            if all(
                c.ws.transport is None or c.ws.transport.is_closing()
                for c in host.conns()
                if c.token_id == stalled.welcome["token_id"]
            ):  # type: ignore[index]
                break
            await asyncio.sleep(0.1)
        host = hub.hosts[table]
        mine = [c for c in host.conns() if c.token_id == stalled.welcome["token_id"]]  # type: ignore[index]
        assert not mine or all(c.ws.transport.is_closing() for c in mine), "dropped"
        assert gm.ws.close_code is None, "the others stay connected"
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
