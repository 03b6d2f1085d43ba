"""Every message on the wire, as msgspec Structs: one tagged union per
direction, decoded by one typed decoder.

This module is the single source of truth for message shapes: ``vigil
schema`` writes ``schemas/*.json`` from it, the Foundry module and the
dashboard validate against those files, and a test regenerates them and fails
on any difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

import msgspec

from vigil.auth import Role
from vigil.rules.commands import COMMON_COMMANDS, AddCharacter, Command
from vigil.rules.games import GAMES
from vigil.table_commands import OPERATOR_COMMANDS, TABLE_COMMANDS

PROTOCOL_VERSION = 1

MsgId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
TableRef = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Rev = Annotated[int, msgspec.Meta(ge=0)]
# One member's change in a patch: a scalar or [value] sets it, [] removes it,
# an object descends into it (vigil.treepatch).
MemberChange = (
    Annotated[list[Any], msgspec.Meta(max_length=1)] | dict[str, Any] | str | int | float | bool | None
)

# AddCharacter is the rules' half of character.create; on the wire a
# character is always created with its name and visibility.
ALL_COMMANDS: tuple[type[Command], ...] = (
    *(c for c in COMMON_COMMANDS if c is not AddCharacter),
    *(c for system in GAMES.values() for c in system.commands),
    *TABLE_COMMANDS,
    *OPERATOR_COMMANDS,
)

if TYPE_CHECKING:
    CommandBody = Command
else:
    CommandBody = Union[ALL_COMMANDS]  # noqa: UP007 - a runtime union of classes


class Message(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """Base of every message in both directions."""


# ---- client → server ---------------------------------------------------


class Resume(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    table: TableRef
    epoch: Rev
    rev: Rev


class Hello(Message, kw_only=True, tag="hello"):
    """First message of every connection. The token travels here, never in a
    URL, so that it does not land in proxy or server logs."""

    protocol: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    resume: Resume | None = None
    client: Annotated[str, msgspec.Meta(max_length=64)] = ""
    # The client's name for itself, the same over all its reconnects (random
    # per client): a command sent again with its id in the same session —
    # its answer was lost with a connection or a node — is answered with
    # its first ack instead of being applied twice. Without one, every
    # command is applied as it comes (ids need then be unique only among a
    # connection's requests in flight).
    session: Annotated[str, msgspec.Meta(max_length=64)] = ""


class Cmd(Message, kw_only=True, tag="cmd"):
    """A command. ``table`` is omitted only for operator commands."""

    id: MsgId
    body: CommandBody
    table: TableRef | None = None


class HistoryQuery(Message, kw_only=True, tag="history"):
    """A page of the table's history, newest first, ``before`` a rev."""

    id: MsgId
    table: TableRef
    before: Rev | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 50


class LegalQuery(Message, kw_only=True, tag="legal"):
    """The moves this connection is offered now: the commands the rules
    would accept in the table's current state, narrowed to what its token
    may send (answered by :class:`LegalMoves`). Asked, not pushed with
    every patch: finding them costs far more than a change does."""

    id: MsgId
    table: TableRef


class Ping(Message, kw_only=True, tag="ping"):
    id: MsgId


ClientMessage = Hello | Cmd | HistoryQuery | LegalQuery | Ping
TableRequest = Cmd | HistoryQuery | LegalQuery
"""The requests a connection makes after its hello (a ping aside): each
answered by the table's owner, forwarded there in a cluster."""


# ---- server → client ---------------------------------------------------


class Welcome(Message, kw_only=True, tag="welcome"):
    protocol: int
    server: str
    role: Role
    table: str | None = None
    characters: list[str] = []
    token_id: str | None = None


class Snapshot(Message, kw_only=True, tag="snapshot"):
    """The whole view of a table for this connection's audience."""

    table: str
    epoch: int
    rev: int
    state: dict[str, Any]


class Patch(Message, kw_only=True, tag="patch"):
    """The changes taking this audience's view from ``rev - 1`` to ``rev``:
    an object mirroring the view where each key's value is a scalar or
    ``[v]`` (set the member to it), ``[]`` (remove the member) or an object
    (descend into the member and apply its changes there); ``{}`` when the
    audience sees nothing of this rev. Lists are replaced whole, so no path
    holds an index (vigil.treepatch).

    A patch names neither its table nor its epoch: a connection watches
    one table, and a new epoch always reaches it as a snapshot first (the
    snapshot names both), so a patch is of the table and epoch of the last
    snapshot its connection received — 29 bytes less on every update."""

    rev: int
    changes: dict[str, MemberChange]


class Ack(Message, kw_only=True, tag="ack"):
    """The command ``id`` is applied and durable at ``rev``."""

    id: str
    rev: int | None = None
    result: Any = None


class Error(Message, kw_only=True, tag="error"):
    """A refusal. Nothing was changed. ``message`` is English for logs;
    clients render ``code`` with ``params`` in their own language."""

    code: str
    message: str
    id: str | None = None
    params: dict[str, Any] = {}


class HistoryEntry(msgspec.Struct, kw_only=True, omit_defaults=True):
    rev: int
    at: float
    wall: float
    actor: str
    kind: str
    events: list[dict[str, Any]]
    command: dict[str, Any] | None = None
    undone: bool = False
    # The change's draws from the dice period (docs/dice.md), when the
    # viewer may read every event of it.
    dice: dict[str, Any] | None = None


class HistoryPage(Message, kw_only=True, tag="history_page"):
    id: str
    table: str
    epoch: int
    entries: list[HistoryEntry]
    next_before: int | None = None


class LegalMoves(Message, kw_only=True, tag="legal_moves"):
    """The answer to a :class:`LegalQuery`, for the state at ``epoch`` and
    ``rev``: ``{"table": {tag: offer}, "chars": {char: {tag: offer}}}``
    (docs/design.md "Legal moves"), or None for a viewer who sends nothing."""

    id: str
    table: str
    epoch: int
    rev: int
    legal: dict[str, Any] | None


class Pong(Message, kw_only=True, tag="pong"):
    id: str


ServerMessage = Welcome | Snapshot | Patch | Ack | Error | HistoryPage | LegalMoves | Pong

client_decoder = msgspec.json.Decoder(ClientMessage)
command_decoder = msgspec.json.Decoder(CommandBody)
encoder = msgspec.json.Encoder()


def schemas() -> dict[str, Any]:
    """JSON Schema of both directions (and of each game's state types)."""
    (client, server), components = msgspec.json.schema_components(
        [ClientMessage, ServerMessage], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Vigil protocol",
        "version": PROTOCOL_VERSION,
        "$defs": components,
        "properties": {"client": client, "server": server},
    }
