"""A lean WebSocket client for thousands of connections in one process:
websockets' own Sans-I/O ``ClientProtocol`` (the same handshake and framing
code as its asyncio client, compression off) driven by a bare
``asyncio.Protocol``. Frames are handed to a callback as they are parsed:
no reader task, future or queue per message, which makes receiving several
times cheaper than ``websockets.asyncio.client`` so that the generator, not
only the server, keeps up on a two-core machine."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


class Closed(Exception):
    pass


class LeanConnection(asyncio.Protocol):
    def __init__(self, uri: str) -> None:
        self.protocol = ClientProtocol(parse_uri(uri), max_size=2**22)
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.on_message: Callable[[bytes], None] | None = None
        self._queue: deque[bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None

    @classmethod
    async def open(cls, uri: str, timeout: float = 30.0) -> LeanConnection:
        wsuri = parse_uri(uri)
        loop = asyncio.get_running_loop()
        _transport, conn = await loop.create_connection(lambda: cls(uri), wsuri.host, wsuri.port)
        await asyncio.wait_for(conn.opened, timeout)
        return conn

    # -- asyncio.Protocol ------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Response):
                if self.protocol.state is State.OPEN and not self.opened.done():
                    self.opened.set_result(None)
                elif not self.opened.done():
                    self.opened.set_exception(Closed(f"handshake failed: {self.protocol.handshake_exc}"))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                payload = bytes(event.data)
                if self.on_message is not None:
                    self.on_message(payload)
                else:
                    self._queue.append(payload)
                    if self._waiter is not None and not self._waiter.done():
                        self._waiter.set_result(None)
        self._flush()  # pongs, close replies

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()
        for future in (self.opened, self.closed, self._waiter):
            if future is not None and not future.done():
                if future is self.closed:
                    future.set_result(None)
                else:
                    future.set_exception(Closed("connection lost"))

    def _flush(self) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                transport.write(chunk)
            elif transport.can_write_eof():
                transport.write_eof()

    @property
    def closed_by_server(self) -> str | None:
        """The server's close frame ("1013 resync"), once it sent one."""
        close = self.protocol.close_rcvd
        return None if close is None else f"{int(close.code)} {close.reason}".strip()

    # -- use ---------------------------------------------------------------------

    def send_text(self, data: bytes) -> None:
        if self.protocol.state is not State.OPEN:
            raise Closed("not open")
        self.protocol.send_text(data)
        self._flush()

    async def recv(self, timeout: float = 30.0) -> bytes:
        """The next message (only before ``on_message`` is set)."""
        while not self._queue:
            self._waiter = asyncio.get_running_loop().create_future()
            await asyncio.wait_for(self._waiter, timeout)
        return self._queue.popleft()

    async def close(self, timeout: float = 5.0) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_close()
            self._flush()
        with contextlib.suppress(TimeoutError, Closed):
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        if self.transport is not None:
            self.transport.close()
