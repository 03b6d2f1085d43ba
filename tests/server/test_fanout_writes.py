"""The fan-out's writes over real sockets: a websockets server on
127.0.0.1 and real websockets clients. What is counted is the real
transport's ``write`` of each server connection (the one call a write to a
socket goes through), so "one write" means one system call's worth of
bytes handed to the socket, not a count kept by the code under test.

- the revs of one publication reach each connection in one write, in rev
  order, and the client reads them as separate messages;
- a publication is written when it is made (nothing waits for a later one);
- the sender's ack goes first, with its own patches, in one write."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve

from vigil.config import Config
from vigil.net.fanout import FanOut
from vigil.net.host import Conn, Rendered, TableHost
from vigil.net.relay import Reply
from vigil.rules.games import GAMES
from vigil.store.base import TableRecord
from vigil.table import Table
from vigil.views import GM_AUDIENCE

READ_SECONDS = 5.0


def table_host() -> TableHost:
    wall = time.time()
    table = Table.new("t1", GAMES["mettle"], "Friday", {}, wall, undo_depth=20)
    record = TableRecord(id="t1", system="mettle", name="Friday", key="k", epoch=1, created=wall)
    return TableHost(table=table, record=record)


def count_writes(ws: ServerConnection) -> list[bytes]:
    """A server connection's transport writes, as they are made (the real
    write still happens)."""
    writes: list[bytes] = []
    transport: Any = ws.transport
    real: Callable[[bytes], None] = transport.write

    def write(data: bytes) -> None:
        writes.append(bytes(data))
        real(data)

    transport.write = write
    return writes


@asynccontextmanager
async def connections(
    count: int,
) -> AsyncIterator[tuple[FanOut, TableHost, list[Conn], list[list[bytes]], list[ClientConnection]]]:
    """``count`` GM connections of one table, each a real socket pair, the
    server side's writes counted from their hello on."""
    fanout = FanOut(Config(demo=False), {})
    host = table_host()
    conns: list[Conn] = []
    counted: list[list[bytes]] = []
    joined = asyncio.Event()
    release = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        conn = Conn(ws=ws, sockets=fanout, role="gm", audience=GM_AUDIENCE)
        counted.append(count_writes(ws))
        conns.append(conn)
        host.join(conn)
        if len(conns) == count:
            joined.set()
        await release.wait()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        clients = [await connect(f"ws://127.0.0.1:{port}", compression=None) for _ in range(count)]
        await asyncio.wait_for(joined.wait(), READ_SECONDS)
        try:
            yield fanout, host, conns, counted, clients
        finally:
            release.set()
            for client in clients:
                await client.close()


async def read(client: ClientConnection, count: int) -> list[str]:
    return [str(await asyncio.wait_for(client.recv(), READ_SECONDS)) for _ in range(count)]


async def test_the_revs_of_one_publication_go_to_each_connection_in_one_write_in_order() -> None:
    async with connections(3) as (fanout, host, _conns, counted, clients):
        rendered: list[Rendered] = [
            (1, {"gm": b'{"rev":1}'}),
            (2, {"gm": b'{"rev":2}'}),
            (3, {"gm": b'{"rev":3}'}),
        ]
        fanout.publish(host, rendered)
        for writes in counted:
            assert len(writes) == 1  # three frames, one write
        assert len({writes[0] for writes in counted}) == 1  # the same bytes for all
        for client in clients:
            assert await read(client, 3) == ['{"rev":1}', '{"rev":2}', '{"rev":3}']
        assert host.replay.missed("gm", 0, 3) == [b'{"rev":1}', b'{"rev":2}', b'{"rev":3}']


async def test_a_publication_is_written_when_it_is_made() -> None:
    async with connections(2) as (fanout, host, _conns, counted, clients):
        fanout.publish(host, [(1, {"gm": b'{"rev":1}'})])
        # Written before publish returned: no later rev is waited for.
        assert [len(writes) for writes in counted] == [1, 1]
        fanout.publish(host, [(2, {"gm": b'{"rev":2}'})])
        assert [len(writes) for writes in counted] == [2, 2]
        for client in clients:
            assert await read(client, 2) == ['{"rev":1}', '{"rev":2}']


async def test_the_senders_ack_comes_first_with_its_own_patches_in_one_write() -> None:
    async with connections(2) as (fanout, host, conns, counted, clients):
        sender = conns[0]
        rendered: list[Rendered] = [(1, {"gm": b'{"rev":1}'}), (2, {"gm": b'{"rev":2}'})]
        fanout.publish(host, rendered, Reply(sender, "m1", b'{"ack":"m1"}'))
        assert [len(writes) for writes in counted] == [1, 1]
        first, other = sorted(clients, key=lambda c: c.local_address != sender.ws.remote_address)
        assert await read(first, 3) == ['{"ack":"m1"}', '{"rev":1}', '{"rev":2}']
        assert await read(other, 2) == ['{"rev":1}', '{"rev":2}']
