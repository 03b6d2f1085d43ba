"""The generated files that clients share with the server: the protocol's
JSON Schema and the catalogue of event/error codes with English templates
(the Foundry module's ``lang/en.json`` takes its ``VIGIL.event.*`` and
``VIGIL.error.*`` strings from it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import vigil.server_words  # noqa: F401 - registers the server's codes
from vigil.protocol import PROTOCOL_VERSION, schemas
from vigil.rules import words


def contents() -> dict[str, Any]:
    events, errors = words.catalogue()
    return {
        "protocol.schema.json": schemas(),
        "codes.json": {
            "protocol": PROTOCOL_VERSION,
            "events": dict(sorted(events.items())),
            "errors": dict(sorted(errors.items())),
        },
    }


def render(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True) + "\n"


def write_all(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, value in contents().items():
        path = out / name
        path.write_text(render(value))
        written.append(path)
    return written
