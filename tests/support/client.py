"""A small protocol client for tests: real websockets, with the view kept
up to date from snapshots and patches exactly as a browser client would."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from vigil import treepatch
from vigil.protocol import PROTOCOL_VERSION

_ids = itertools.count(1)
# How long a wait may take before it counts as a failure: generous, since a
# busy machine is slow, not wrong (the waits end as soon as things happen).
WAIT = 30.0


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.welcome: dict[str, Any] | None = None
        self.state: dict[str, Any] | None = None
        self.table: str | None = None
        self.epoch = 0
        self.rev = 0
        self.snapshots = 0
        self.patches: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []
        self._waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.failure: Exception | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        token: str,
        resume: dict[str, int | str] | None = None,
        expect_state: bool = True,
        prior: Client | None = None,
        session: str | None = None,
        **kwargs: Any,
    ) -> Client:
        """``prior``: a closed client whose view this one resumes from;
        ``session``: its hello's (a command sent again with its id in the
        same session is answered, not applied twice)."""
        ws = await connect(url, max_size=2**22, **kwargs)
        client = cls(ws)
        if prior is not None:
            client.state, client.epoch, client.rev = prior.state, prior.epoch, prior.rev
        hello: dict[str, Any] = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "token": token,
            "resume": resume,
        }
        if session is not None:
            hello["session"] = session
        await ws.send(json.dumps(hello))
        first = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if first["type"] == "error":
            client.handle(first)
            return client
        client.welcome = first
        client.table = first.get("table")
        client._reader = asyncio.create_task(client._read())
        if expect_state and client.table:
            await client.wait_for(lambda c: c.state is not None)
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.handle(json.loads(frame))
        except Exception as exc:  # surfaced by wait_for, not lost
            self.failure = exc
        finally:
            self._changed.set()

    def handle(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "snapshot":
            self.state, self.epoch, self.rev = msg["state"], msg["epoch"], msg["rev"]
            self.snapshots += 1
        elif kind == "patch":
            assert "epoch" not in msg and "table" not in msg, "a patch is of its connection's table and epoch"
            assert msg["rev"] == self.rev + 1, f"patch rev {msg['rev']} after {self.rev}: a gap"
            self.state = treepatch.apply_tree(self.state, msg["changes"])
            self.rev = msg["rev"]
            self.patches.append(msg)
        elif kind in ("ack", "error", "history_page", "legal_moves", "pong"):
            if kind == "error":
                self.errors.append(msg)
            msg_id = msg.get("id")
            if msg_id is not None:
                self.replies[msg_id] = msg
                waiter = self._waiters.pop(msg_id, None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(msg)
        self._changed.set()

    async def request(self, message: dict[str, Any], timeout: float = WAIT) -> dict[str, Any]:
        msg_id = message.setdefault("id", f"m{next(_ids)}")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[msg_id] = future
        await self.ws.send(json.dumps(message))
        return await asyncio.wait_for(future, timeout)

    async def cmd(self, body: dict[str, Any], table: str | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "cmd", "body": body}
        if table or self.table:
            message["table"] = table or self.table
        return await self.request(message)

    async def ok(self, body: dict[str, Any], table: str | None = None) -> Any:
        """Send, expect an ack, and wait until the view shows its change
        (the ack comes before the patch it caused)."""
        reply = await self.cmd(body, table)
        assert reply["type"] == "ack", reply
        if reply.get("rev") and self.table and (table is None or table == self.table):
            await self.wait_for(lambda c: c.rev >= reply["rev"] or c.epoch != self.epoch)
        return reply.get("result")

    async def wait_for(self, predicate: Any, timeout: float = WAIT) -> None:
        async def loop() -> None:
            while not predicate(self):
                if self.failure is not None:
                    raise self.failure
                self._changed.clear()
                if self.ws.close_code is not None and not predicate(self):
                    raise ConnectionError(f"closed {self.ws.close_code}")
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def wait_rev(self, rev: int, timeout: float = WAIT) -> None:
        await self.wait_for(lambda c: c.rev >= rev, timeout)

    async def close(self) -> None:
        await self.ws.close()
        if self._reader:
            await asyncio.gather(self._reader, return_exceptions=True)
