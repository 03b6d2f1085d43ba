"""A request's address, decided from values alone: the table it is about,
the key that names it across reconnects and nodes, and where a request
read from one of this node's connections goes — refused, run here,
forwarded to its table's owner, or dropped.

Pure (no socket, bus or clock; guarded by tests/unit/test_pure_edge.py),
so that every way a request can go is checked by a unit test without a
node; the connection loop (vigil.net.connection) only carries a route out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vigil.protocol import Cmd, Hello, TableRequest
from vigil.table_commands import TableCreate, TableDelete, TableImport, TableList


def target(msg: TableRequest) -> str | None:
    """The table a request is about: the one it names, or for table.delete
    the one its body names; None for the operator's commands about no one
    table (table.create, table.import, table.list)."""
    if isinstance(msg, Cmd):
        if isinstance(msg.body, TableCreate | TableImport | TableList):
            return None
        if isinstance(msg.body, TableDelete):
            return msg.body.table
    return msg.table


def request_key(token_id: str, session: str, msg_id: str) -> str | None:
    """What names a command across reconnects and nodes (the writer keeps
    the outcome under it, vigil.net.applied): its sender's token, session
    and message id (a client keeps the id when it sends it again); None
    for a client that names no session (nothing deduplicated)."""
    return f"{token_id}/{session}/{msg_id}" if session else None


@dataclass(frozen=True, slots=True)
class Refuse:
    """Answered with ``bad_message`` for ``reason``; nothing is done."""

    reason: str


@dataclass(frozen=True, slots=True)
class Forward:
    """Sent to the owner of ``table`` (None: the table the connection is
    attached to), whose answer to ``id`` follows."""

    id: str
    table: str | None


@dataclass(frozen=True, slots=True)
class Drop:
    """Nothing is done and nothing answered: the connection was attached to
    another node's table and let go since (it is being closed 1013), and
    its client sends the request again once reconnected. Run here, where
    the table is not, it would be refused as for an unknown table."""


@dataclass(frozen=True, slots=True)
class Local:
    """Run on this node."""

    request: TableRequest


Route = Refuse | Forward | Drop | Local

AGAIN = Refuse("already said hello")
DROP = Drop()


def route(
    msg: TableRequest | Hello,
    role: str,
    attached: bool,
    still_attached: bool,
    serves: Callable[[str], bool],
) -> Route:
    """Where a request of a connection of this node goes. ``attached``: the
    connection joined another node's table (its requests go there);
    ``still_attached``: it has not been let go since; ``serves``: whether
    this node serves a table (asked only of an operator's request, whose
    table is any)."""
    if isinstance(msg, Hello):
        return AGAIN
    if attached:
        return Forward(msg.id, None) if still_attached else DROP
    if role == "operator":
        table = target(msg)
        if table is not None and not serves(table):
            return Forward(msg.id, table)
    return Local(msg)
