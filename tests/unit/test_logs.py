"""With the JSON log format every line on stderr is one JSON object: Vigil's
own lines and the standard library's loggers alike (the websockets library
logs its errors there, tracebacks included)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from vigil import logs


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """The logging setup as it was before the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


async def _fails(ws: ServerConnection) -> None:
    raise RuntimeError("handler broke")


async def test_a_websockets_error_is_logged_as_one_json_line(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    logs.configure("json")  # onto the stderr the test captures
    async with serve(_fails, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}") as ws:
            with pytest.raises(ConnectionClosed):
                await ws.recv()
    structlog.get_logger("vigil").info("own_line", table="t")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    failed = next(line for line in lines if line["event"] == "connection handler failed")
    assert failed["level"] == "error" and failed["logger"].startswith("websockets")
    assert "RuntimeError: handler broke" in failed["exception"]
    own = next(line for line in lines if line["event"] == "own_line")
    assert own["table"] == "t" and own["level"] == "info"
