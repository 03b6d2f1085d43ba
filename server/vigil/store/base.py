"""What the server needs from a store, and the records it keeps.

The log is the truth: the store appends each committed change's
:class:`~vigil.changes.LogEntry` and reads entries back for history, undo
and recovery. Recovery is pure JSON: latest snapshot + ops, so loading old
logs never depends on re-running the rules of an older version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

import msgspec

from vigil.changes import LogEntry, Requested

# How durable an acknowledged commit is: what each mode survives, per store,
# is in the README ("Stores and durability").
Durability = Literal["normal", "full"]


class Conflict(Exception):
    """The store already holds something else under this key (a table id,
    a log entry's rev): nothing of the write was made."""


class Fenced(Conflict):
    """This node no longer owns ``tables`` (another took them over: its
    lease ran out, or it was paused past it): nothing of theirs was written,
    and nothing of theirs ever will be by this node again."""

    def __init__(self, tables: set[str]) -> None:
        super().__init__(f"no longer the owner of {', '.join(sorted(tables))}")
        self.tables = tables


class Unavailable(Exception):
    """The store could not be reached in time (a network database down or
    cut off): nothing of the call is known to have been done. A read is
    answered ``store_unavailable`` (try again shortly), a hello closed 1013;
    a commit's outcome is unknown (vigil.net.writer)."""


class OpenError(Exception):
    """The store cannot be opened; the message says why, for the operator."""


class SchemaError(OpenError):
    """The database was written by a later version of Vigil."""


class TableRecord(msgspec.Struct, kw_only=True):
    id: str
    system: str
    name: str
    key: str
    epoch: int
    created: float
    archived: bool = False


class TokenRecord(msgspec.Struct, kw_only=True):
    table: str
    token_id: str
    role: str
    chars: list[str]
    label: str
    expires: float | None
    created: float
    revoked: bool = False
    # The incarnation of each of ``chars`` when the token was minted (see
    # :func:`vigil.tokens.owned`): a character later made with the same id
    # is another one. Tokens minted before incarnations have none.
    incarnations: dict[str, str] = {}


# A table's columns as both stores keep them, in this order.
TABLE_COLUMNS = "id, system, name, key, epoch, created, archived"


def table_row(record: TableRecord) -> tuple[Any, ...]:
    """``record`` as a row of :data:`TABLE_COLUMNS` (the inverse of
    :func:`table_from_row`)."""
    return (
        record.id,
        record.system,
        record.name,
        record.key,
        record.epoch,
        record.created,
        record.archived,
    )


def table_from_row(row: Sequence[Any]) -> TableRecord:
    """A table's record read back from a row of :data:`TABLE_COLUMNS`
    (SQLite keeps ``archived`` as an integer)."""
    return TableRecord(
        id=row[0],
        system=row[1],
        name=row[2],
        key=row[3],
        epoch=int(row[4]),
        created=row[5],
        archived=bool(row[6]),
    )


# A token's columns as both stores keep them, in this order.
TOKEN_COLUMNS = "table_id, token_id, role, chars, label, expires, created, revoked, incarnations"


def token_row(token: TokenRecord) -> tuple[Any, ...]:
    """``token`` as a row of :data:`TOKEN_COLUMNS` (the inverse of
    :func:`token_from_row`)."""
    return (
        token.table,
        token.token_id,
        token.role,
        msgspec.json.encode(token.chars).decode(),
        token.label,
        token.expires,
        token.created,
        token.revoked,
        msgspec.json.encode(token.incarnations).decode(),
    )


def token_from_row(row: Sequence[Any]) -> TokenRecord:
    """A token read back from a row of :data:`TOKEN_COLUMNS` (``chars`` and
    ``incarnations`` stored as JSON text)."""
    return TokenRecord(
        table=row[0],
        token_id=row[1],
        role=row[2],
        chars=msgspec.json.decode(row[3]),
        label=row[4],
        expires=row[5],
        created=row[6],
        revoked=bool(row[7]),
        incarnations=msgspec.json.decode(row[8]),
    )


class Loaded(msgspec.Struct, kw_only=True):
    record: TableRecord
    snapshot_rev: int
    doc: dict[str, Any]
    tail: list[LogEntry]


class Store(Protocol):
    """Every call may block (a file, a network database); which of them
    the server may make on its event loop is :func:`inline`'s answer."""

    # Where the data is, for the banner and logs: a path, or a URL without
    # its password.
    location: str

    def server_secret(self) -> str: ...

    def create_table(self, record: TableRecord, doc: dict[str, Any]) -> None:
        """The table and its first snapshot (rev 0 of its epoch), or
        :class:`Conflict` if its id is taken."""
        ...

    def table(self, table: str) -> TableRecord | None:
        """One table's record (None: no such table)."""
        ...

    def tables(self, include_archived: bool = True) -> list[TableRecord]: ...

    def load(self, table: str) -> Loaded: ...

    def append(self, entries: Sequence[LogEntry]) -> None:
        """Commit all entries in one transaction (a commit group), or none
        of them (:class:`Conflict` if one's rev is taken by another entry)."""
        ...

    def snapshot(self, table: str, epoch: int, rev: int, doc: dict[str, Any]) -> None: ...

    def history(self, table: str, epoch: int, before: int | None, limit: int) -> list[LogEntry]: ...

    def requests(self, table: str, epoch: int, before: int | None, limit: int) -> list[Requested]:
        """:meth:`history`'s page read for the requests its entries answered
        alone (a table loaded again remembers them: vigil.net.applied)."""
        ...

    def entry(self, table: str, epoch: int, rev: int) -> LogEntry | None: ...

    def reset(self, table: str, epoch: int, doc: dict[str, Any]) -> None: ...

    def set_archived(self, table: str, archived: bool) -> None: ...

    def set_key(self, table: str, key: str) -> None: ...

    def delete(self, table: str) -> None: ...

    def mark_presence(self, tables: Sequence[str], wall: float) -> None:
        """A GM was connected to each of ``tables`` at ``wall`` (where their
        clocks stop after a crash)."""
        ...

    def presence(self, table: str) -> float | None:
        """The latest :meth:`mark_presence` of ``table``, if any."""
        ...

    def add_token(self, token: TokenRecord) -> None: ...

    def tokens(self, table: str) -> list[TokenRecord]: ...

    def revoke(self, table: str, token_id: str) -> bool: ...

    def close(self) -> None: ...


def inline(store: Store) -> bool:
    """Whether ``store`` commits and reads at memory speed, never waiting
    on a disk or a network (SQLite WAL without fsync): the server then
    calls it on its event loop, a thread hop costing more than the call.
    Any other store (SQLite with fsync, PostgreSQL) is called from worker
    threads, so that the loop never waits on it."""
    return bool(getattr(store, "inline_commits", False))
