"""The bare-library baseline: the same websockets server settings as Vigil,
no rules, no persistence, no views.

It runs on the event loop Vigil runs on (``--event-loop``), so that the
ratio between them measures Vigil's own work, not the loop's. It speaks
the same shapes so that the same generator drives it: ``hello``
(token ``"<table>|<role>"``) → ``welcome`` + ``snapshot``; ``cmd`` → the
table's counter goes up by one, ``ack {id, rev}`` to the sender, then one
``patch`` replacing ``/counter`` encoded once and broadcast to every
connection of the table. ``/healthz`` answers like Vigil's.

    python -m bench.baseline_server --port 8766
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import sys
from http import HTTPStatus
from typing import Any

import msgspec
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from vigil import event_loop

_enc = msgspec.json.Encoder()
_type = msgspec.json.Decoder(dict[str, Any])


class Table:
    __slots__ = ("conns", "rev", "table_id")

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.conns: set[ServerConnection] = set()
        self.rev = 0


TABLES: dict[str, Table] = {}


def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def handle(ws: ServerConnection) -> None:
    try:
        first = json.loads(await ws.recv())
        table_id, role = str(first["token"]).split("|", 1)[:2]
    except (ConnectionClosed, ValueError, KeyError, TypeError):
        return
    table = TABLES.get(table_id)
    if table is None:
        table = TABLES[table_id] = Table(table_id)
    await ws.send(_enc.encode({"type": "welcome", "protocol": 1, "role": role, "table": table_id}), text=True)
    await ws.send(
        _enc.encode(
            {
                "type": "snapshot",
                "table": table_id,
                "epoch": 1,
                "rev": table.rev,
                "state": {"counter": table.rev},
            }
        ),
        text=True,
    )
    table.conns.add(ws)
    try:
        async for frame in ws:
            msg = _type.decode(frame)
            if msg.get("type") != "cmd":
                continue
            table.rev += 1
            rev = table.rev
            await ws.send(_enc.encode({"type": "ack", "id": msg["id"], "rev": rev}), text=True)
            patch = _enc.encode(
                {
                    "type": "patch",
                    "table": table_id,
                    "epoch": 1,
                    "rev": rev,
                    "ops": [{"op": "replace", "path": "/counter", "value": rev}],
                }
            )
            broadcast(table.conns, patch, text=True)
    except ConnectionClosed:
        pass
    finally:
        table.conns.discard(ws)


def route(connection: ServerConnection, request: Request) -> Response | None:
    if request.path.split("?", 1)[0] == "/healthz":
        body = json.dumps({"ok": True, "tables": len(TABLES), "loop": event_loop.current()}).encode()
        headers = Headers({"Content-Type": "application/json", "Content-Length": str(len(body))})
        return Response(200, HTTPStatus(200).phrase, headers, body)
    return None


async def main(port: int) -> None:
    raise_nofile()
    async with serve(
        handle,
        "127.0.0.1",
        port,
        process_request=route,
        max_size=64 * 1024,
        compression=None,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=5,
    ):
        print(f"baseline listening on 127.0.0.1:{port}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.baseline_server")
    parser.add_argument("--port", type=int, default=8766)
    # The same loop as the Vigil server it is compared with (bench --loop).
    parser.add_argument("--event-loop", choices=event_loop.LOOPS, default="auto")
    args = parser.parse_args()
    event_loop.run(main(args.port), args.event_loop)
    sys.exit(0)
