"""A change of a table, and the log entry it becomes once committed.

The table makes a :class:`Change` (pure); the server commits its
:class:`LogEntry` to the store; the store reads entries back for history,
undo and recovery. Both sides meet here, so that the table never imports
the store and the store never imports the table.

The log is the truth: one entry per applied change (a command, a clock
advance, an undo), with its events (dice faces included, each with its
English sentence), the JSON Patch ops it made to the table document and
their inverse (for the GM's undo). ``v`` is the entry schema version, read
on load so that older entries can be upgraded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import msgspec

import vigil.server_words  # noqa: F401 - registers the templates of the server's own events
from vigil.rules.outcome import Event
from vigil.rules.words import english

# 2: the ops of an undoable change include the undo stack's push, so that a
# table rebuilt from the log undoes what it would have before. Entries of 1
# lack it and still load (their stack is what the latest snapshot held).
ENTRY_VERSION = 2


class LogEntry(msgspec.Struct, kw_only=True, array_like=True):
    table: str
    epoch: int
    rev: int
    wall: float
    game: float
    actor: str
    kind: str
    command: dict[str, Any] | None
    events: list[dict[str, Any]]
    ops: list[dict[str, Any]]
    inverse: list[dict[str, Any]]
    v: int = ENTRY_VERSION
    # The request a command's entry answers (its sender's token id and
    # message id) and its result: a table loaded again answers the same
    # request sent again with them instead of applying it twice. Trailing
    # and optional, so entries written before them still load.
    request: str | None = None
    result: Any = None
    # What the change drew from the table's dice period (docs/dice.md): the
    # period, its commitment, the client's nonce and each draw in order.
    # None for a change that rolled nothing.
    dice: dict[str, Any] | None = None


class Requested(NamedTuple):
    """What a table loaded again needs of an entry it does not replay: the
    request the entry answered and its result, and when (a client may
    still send that request again: vigil.net.applied)."""

    rev: int
    wall: float
    request: str | None
    result: Any

    @classmethod
    def of(cls, entry: LogEntry) -> Requested:
        return cls(entry.rev, entry.wall, entry.request, entry.result)


# An entry as the list of its fields, each left as its JSON text: a scan,
# with no object made for its events and ops (a twelfth of the cost of
# decoding it whole). The fields' places are LogEntry's own order.
_raw_fields = msgspec.json.Decoder(list[msgspec.Raw])
_request_dec = msgspec.json.Decoder(str | None)
_REV, _WALL, _REQUEST, _RESULT = map(LogEntry.__struct_fields__.index, ("rev", "wall", "request", "result"))


def requested(encoded: bytes | str) -> Requested:
    """An encoded :class:`LogEntry` read for :class:`Requested` alone; an
    entry written before requests were kept answers none."""
    fields = _raw_fields.decode(encoded)
    kept = len(fields)
    return Requested(
        msgspec.json.decode(fields[_REV]),
        msgspec.json.decode(fields[_WALL]),
        _request_dec.decode(fields[_REQUEST]) if kept > _REQUEST else None,
        msgspec.json.decode(fields[_RESULT]) if kept > _RESULT else None,
    )


@dataclass
class Change:
    """One applied change, not yet committed."""

    kind: str  # "command", "clock" (due effects), "undo"
    actor: str
    game: float
    command: dict[str, Any] | None
    events: list[Event]
    doc: dict[str, Any]
    ops: list[dict[str, Any]]
    inverse: list[dict[str, Any]]
    result: Any = None
    undoable: bool = False
    rev: int = 0
    # The rules' state this change leads to, when the change was made from
    # one (saves converting the document back on commit); None otherwise.
    state: Any = None
    # Its dice record (see :attr:`LogEntry.dice`).
    dice: dict[str, Any] | None = None

    def entry(self, table: str, epoch: int, wall: float) -> LogEntry:
        """The log entry of this change, once committed (its rev is set)."""
        return LogEntry(
            table=table,
            epoch=epoch,
            rev=self.rev,
            wall=wall,
            game=self.game,
            actor=self.actor,
            kind=self.kind,
            command=self.command,
            events=render_events(self.events),
            ops=self.ops,
            inverse=self.inverse,
            dice=self.dice,
        )


def render_events(events: list[Event]) -> list[dict[str, Any]]:
    """Events as stored in the log: the value plus its English sentence."""
    return [{**msgspec.to_builtins(e), "text": english(e)} for e in events]
