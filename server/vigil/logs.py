"""structlog setup: readable in a terminal, JSON lines otherwise."""

from __future__ import annotations

import logging
import sys
from typing import Any

import msgspec
import structlog

# The levels an operator may choose (VIGIL_LOG_LEVEL), by name.
LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}

_encode = msgspec.json.Encoder(enc_hook=repr).encode


def _dumps(event: Any, **_: Any) -> str:
    """JSON with msgspec: one log line per command, a few times cheaper
    than ``json.dumps``; anything unusual is logged as its repr."""
    return _encode(event).decode()


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    """Vigil's own lines through structlog's printer (the fast path), and
    every standard-library logger (websockets' errors and tracebacks) through
    the same processors by a :class:`structlog.stdlib.ProcessorFormatter` on
    the root handler: with the JSON format every line is one JSON object."""
    json_out = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso"),
    ]
    renderer: list[structlog.typing.Processor] = (
        # A traceback becomes the line's "exception" string.
        [structlog.processors.format_exc_info, structlog.processors.JSONRenderer(serializer=_dumps)]
        if json_out
        else [structlog.dev.ConsoleRenderer()]
    )
    structlog.configure(
        processors=[*shared, *renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *renderer],
        )
    )
    handler.set_name(_HANDLER)
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if h.get_name() != _HANDLER] + [handler]
    root.setLevel(level)
    logging.getLogger("websockets").setLevel(logging.WARNING)


# The root handler's name, so that configuring again replaces it.
_HANDLER = "vigil"
