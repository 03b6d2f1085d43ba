"""Events and errors as values.

Both carry a machine code and parameters so that every client can render a
localized sentence; :mod:`vigil.rules.words` keeps the English rendering for
logs and history export. An event also names the rule that produced it and
the character it concerns, so the history can be audited rule by rule.
"""

from __future__ import annotations

from typing import Any

import msgspec

from vigil.plain_errors import explained
from vigil.rules.words import english_error


class Event(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Something that happened to the table, in the order it happened.

    ``at`` is the game clock (seconds) when it took effect; ``params`` holds
    everything a reader needs, dice faces included, as plain JSON values.
    """

    code: str
    at: float
    params: dict[str, Any] = {}
    char: str | None = None
    rule: str | None = None
    actor: str | None = None


class RuleError(Exception):
    """A refused command. Raised inside the rules; the state is left as it was
    because every command is applied to a copy (see :mod:`vigil.rules.engine`)."""

    def __init__(self, code: str, *, rule: str | None = None, **params: Any) -> None:
        self.code = code
        self.rule = rule
        self.params: dict[str, Any] = params
        super().__init__(self.english())

    def english(self) -> str:
        return english_error(self.code, self.params)


def options_refused(exc: msgspec.ValidationError) -> RuleError:
    """``bad_options`` for table options that msgspec refused, in plain
    words naming the option (as ``bad_input`` names a command's field)."""
    field, reason, why = explained(str(exc))
    return RuleError("bad_options", field=field or "options", reason=reason, **why)
