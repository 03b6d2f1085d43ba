"""Refusals at the edge, and the ``error`` message every refusal becomes.

The rules refuse with :class:`~vigil.rules.outcome.RuleError`; the server
refuses what never reaches them (a bad token, a full table, a forbidden
command) with :class:`Refused`. Both are answered the same way: a code,
plain-JSON parameters and an English sentence; nothing changed.
"""

from __future__ import annotations

from typing import Any

import msgspec

import vigil.server_words  # noqa: F401 - registers the templates of the server's own codes
from vigil.net import metrics
from vigil.protocol import Error, encoder
from vigil.rules.words import english_error


class Refused(Exception):
    """A protocol-level refusal (not a rule's)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def error_message(code: str, params: dict[str, Any], msg_id: str | None, message: str | None = None) -> bytes:
    """The encoded ``error`` answer; ``message`` overrides the English
    sentence of ``code`` (a rule's own rendering of its refusal). Every
    error answer is made here, so here it is counted."""
    metrics.refused(code)
    text = message or english_error(code, params)
    return encoder.encode(Error(id=msg_id, code=code, message=text, params=_plain(params)))


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    """Error parameters as plain JSON (anything unusual becomes its str)."""
    plain: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(params, enc_hook=str))
    return plain
