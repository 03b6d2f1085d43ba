"""Commands over a plain websocket, for test setup that is not under test
(the pages and the module are what the browser tests exercise)."""

from __future__ import annotations

import json
from typing import Any

import websockets
from tests.support.server import ServerProcess

from vigil.protocol import PROTOCOL_VERSION


async def ws_commands(
    server: ServerProcess, token: str, bodies: list[dict[str, Any]], table: str | None = None
) -> list[dict[str, Any]]:
    """Send ``bodies`` in order on one connection; the reply to each."""
    replies = []
    async with websockets.connect(server.ws_url) as ws:
        await ws.send(
            json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token, "client": "test"})
        )
        for n, body in enumerate(bodies):
            msg: dict[str, Any] = {"type": "cmd", "id": f"t{n}", "body": body}
            if table:
                msg["table"] = table
            await ws.send(json.dumps(msg))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("id") == f"t{n}":
                    replies.append(reply)
                    break
    return replies


async def ws_command(
    server: ServerProcess, token: str, body: dict[str, Any], table: str | None = None
) -> dict[str, Any]:
    """One command; its reply (an ack or an error)."""
    return (await ws_commands(server, token, [body], table))[0]
