"""structlog setup: readable in a terminal, JSON lines otherwise."""

from __future__ import annotations

import logging
import sys
from typing import Any

import msgspec
import structlog

_encode = msgspec.json.Encoder(enc_hook=repr).encode


def _dumps(event: Any, **_: Any) -> str:
    """JSON with msgspec: one log line per command, a few times cheaper
    than ``json.dumps``; anything unusual is logged as its repr."""
    return _encode(event).decode()


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    json_out = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(serializer=_dumps) if json_out else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
