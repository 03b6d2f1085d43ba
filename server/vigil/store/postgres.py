"""The PostgreSQL store: the SQLite store's tables and guarantees on a
database that several Vigil processes can share.

It is synchronous (psycopg 3) and is never called on the event loop: the
server calls every store that is not :func:`~vigil.store.base.inline` from
worker threads (the committer commits from one, the reads and writes beside
the log run in ``asyncio.to_thread``). A pool of connections serves those
threads: the commit groups use one at a time, snapshots, history pages and
token reads the others.

Durability (``synchronous_commit``, set on every connection of the pool):
``normal`` is ``off`` — a commit is acknowledged once PostgreSQL has made it
(visible to every reader), before its WAL reaches the disk: it survives any
crash of Vigil; a crash of PostgreSQL or of its machine may lose the last
≤ 3 × ``wal_writer_delay`` (0.6 s by default) of commits, whole. ``full`` is
``on`` — the WAL is flushed before the commit returns (and, where
``synchronous_standby_names`` names standbys, flushed on them too): it
survives a crash of PostgreSQL's machine (README "Stores and durability").

Every write is safe to repeat, so that a connection lost mid-call is
retried on another one (for up to :data:`RETRY_SECONDS`): a log entry or
table already there with the same content is a commit whose answer was
lost, not a conflict; the rest are upserts, updates and deletes.

The schema's version is the ``schema_version`` table: at open the database
is brought to the last of :data:`MIGRATIONS` in one transaction per step,
under an advisory lock, so that nodes starting together migrate once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec
import psycopg
import psycopg.conninfo
from psycopg import errors
from psycopg_pool import ConnectionPool

from vigil.auth import OPERATOR_SCOPE, new_key
from vigil.changes import LogEntry, Requested, requested
from vigil.jsonpatch import apply as apply_patch
from vigil.store.base import (
    TABLE_COLUMNS,
    TOKEN_COLUMNS,
    Conflict,
    Durability,
    Fenced,
    Loaded,
    OpenError,
    SchemaError,
    TableRecord,
    TokenRecord,
    Unavailable,
    table_from_row,
    table_row,
    token_from_row,
    token_row,
)

__all__ = ["MIGRATIONS", "PostgresStore"]

T = TypeVar("T")

# Version n is reached by MIGRATIONS[n - 1] (SQL, run in one transaction);
# a later version appends one. Version 1 is the SQLite store's schema.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE tables (
      id text PRIMARY KEY, system text NOT NULL, name text NOT NULL, key text NOT NULL,
      epoch bigint NOT NULL, created double precision NOT NULL, archived boolean NOT NULL DEFAULT false);
    CREATE TABLE log (
      table_id text NOT NULL, epoch bigint NOT NULL, rev bigint NOT NULL, v integer NOT NULL,
      entry text NOT NULL, PRIMARY KEY (table_id, epoch, rev));
    CREATE TABLE snapshots (
      table_id text NOT NULL, epoch bigint NOT NULL, rev bigint NOT NULL, doc text NOT NULL,
      PRIMARY KEY (table_id, epoch, rev));
    CREATE TABLE tokens (
      table_id text NOT NULL, token_id text NOT NULL, role text NOT NULL, chars text NOT NULL,
      label text NOT NULL, expires double precision, created double precision NOT NULL,
      revoked boolean NOT NULL DEFAULT false, incarnations text NOT NULL DEFAULT '{}',
      PRIMARY KEY (table_id, token_id));
    CREATE TABLE presence (table_id text PRIMARY KEY, wall double precision NOT NULL);
    """,
    # 2: ownership of tables by nodes (vigil.store.leases): a lease per
    # table, with the fencing number every commit of its owner names; and
    # the nodes' heartbeats. A deleted table's owner row stays, so that its
    # fence never goes back should the id be used again.
    """
    CREATE TABLE owners (
      table_id text PRIMARY KEY, node text NOT NULL, fence bigint NOT NULL,
      expires timestamptz NOT NULL);
    CREATE INDEX owners_node ON owners (node);
    CREATE TABLE nodes (node text PRIMARY KEY, seen timestamptz NOT NULL, started double precision NOT NULL);
    """,
)

SYNCHRONOUS_COMMIT: dict[Durability, str] = {"normal": "off", "full": "on"}
# The pool: the commit groups take one connection at a time; snapshots,
# history pages, token reads and admin writes (each in a worker thread) the
# others. More than a handful would only wait on the same tables' rows, and
# several nodes share the server's max_connections (100 by default).
POOL_MIN = 2
POOL_MAX = 8
# How long a call waits for a connection, and how long it keeps retrying
# one that was lost (PostgreSQL restarting, a network blip), before the
# error reaches the caller (a command is then refused, never acknowledged).
CONNECT_SECONDS = 10.0
RETRY_SECONDS = 10.0
# pg_advisory_xact_lock's key for migrations ("vigil" in ASCII).
MIGRATION_LOCK = 0x766967696C

_enc = msgspec.json.Encoder()
_entry_dec = msgspec.json.Decoder(LogEntry)
_doc_dec = msgspec.json.Decoder(dict[str, Any])

_INSERT_LOG = (
    "INSERT INTO log (table_id, epoch, rev, v, entry) "
    "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bigint[], %s::integer[], %s::text[])"
)
# The same, of the entries whose table this node still owns under the fence
# it names: the owners' rows are locked (FOR SHARE) for the statement, so a
# takeover's fence increment waits for it, and a commit that waited for a
# takeover sees the new fence (READ COMMITTED re-reads a locked row's latest
# version) and inserts nothing of that table.
_INSERT_LOG_FENCED = (
    "WITH ok AS (SELECT o.table_id FROM owners o "
    "JOIN unnest(%s::text[], %s::bigint[]) AS f(table_id, fence) "
    "ON o.table_id = f.table_id AND o.fence = f.fence FOR SHARE OF o) "
    "INSERT INTO log (table_id, epoch, rev, v, entry) "
    "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bigint[], %s::integer[], %s::text[]) "
    "AS k(table_id, epoch, rev, v, entry) WHERE k.table_id IN (SELECT table_id FROM ok) "
    "RETURNING table_id"
)


def _take_new(conn: psycopg.Connection[Any], table: str, node: str, ttl: float) -> int:
    """The lease of a table ``node`` is making (in the making's transaction;
    vigil.store.leases holds every other step of ownership); its fence."""
    row = conn.execute(
        "INSERT INTO owners VALUES (%s, %s, 1, now() + make_interval(secs => %s)) "
        "ON CONFLICT (table_id) DO UPDATE SET node = excluded.node, fence = owners.fence + 1, "
        "expires = excluded.expires RETURNING fence",
        (table, node, ttl),
    ).fetchone()
    assert row is not None
    return int(row[0])


def location(url: str) -> str:
    """``url`` without its password (or any other secret of the conninfo)."""
    parts = psycopg.conninfo.conninfo_to_dict(url)
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname') or ''}"


def migrate(conn: psycopg.Connection[Any], migrations: Sequence[str]) -> int:
    """Bring the database of ``conn`` (autocommit) to ``len(migrations)``;
    the version it is at."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version integer PRIMARY KEY, applied double precision NOT NULL)"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
        version = int(row[0]) if row else 0
    if version > len(migrations):
        raise SchemaError(
            f"the database is at schema version {version}, written by a later Vigil "
            f"(this one knows versions up to {len(migrations)}): upgrade Vigil"
        )
    for number in range(version + 1, len(migrations) + 1):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            done = conn.execute("SELECT 1 FROM schema_version WHERE version = %s", (number,)).fetchone()
            if done is None:  # not made meanwhile by another node
                conn.execute(migrations[number - 1])
                conn.execute("INSERT INTO schema_version VALUES (%s, %s)", (number, time.time()))
    return len(migrations)


class PostgresStore:
    # Every call waits on the network: the server makes none on its loop.
    inline_commits = False

    def __init__(
        self, url: str, durability: Durability = "normal", migrations: Sequence[str] = MIGRATIONS
    ) -> None:
        self.location = location(url)
        self._closed = False
        # Fencing (vigil.store.leases turns it on for a node of a cluster):
        # every write of a table names the fencing number of this node's
        # lease on it, and is refused (Fenced) once another node has taken
        # the table, however late it arrives. ``node`` owns what it makes.
        self.fencing = False
        self.fences: dict[str, int] = {}
        self.node = ""
        self.lease_seconds = 0.0
        # Migrations on a connection of their own, before the pool: a wrong
        # URL or password is reported at once, in PostgreSQL's words.
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=int(CONNECT_SECONDS)) as conn:
                self.schema_version = migrate(conn, migrations)
        except psycopg.OperationalError as exc:
            raise OpenError(f"cannot open the PostgreSQL store at {self.location}: {exc}") from exc
        setting = SYNCHRONOUS_COMMIT[durability]

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.execute(f"SET synchronous_commit TO {setting}")

        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            min_size=POOL_MIN,
            max_size=POOL_MAX,
            kwargs={"autocommit": True, "application_name": "vigil"},
            configure=configure,
            timeout=CONNECT_SECONDS,
            name="vigil",
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_SECONDS)
        except psycopg.OperationalError as exc:
            self._pool.close()
            raise OpenError(f"cannot connect to the PostgreSQL store at {self.location}: {exc}") from exc

    def _run(self, work: Callable[[psycopg.Connection[Any]], T], patience: float | None = None) -> T:
        """``work`` on a connection of the pool, again on another one while
        connections are lost, for up to ``patience`` seconds (each call's
        work is safe to repeat: see the module's docstring); past it
        :class:`Unavailable`. A call someone waits on at once (a hello) is
        given less patience than the background's (``RETRY_SECONDS``)."""
        deadline = time.monotonic() + (RETRY_SECONDS if patience is None else patience)
        delay = 0.05
        while True:
            try:
                wait = max(0.1, min(CONNECT_SECONDS, deadline - time.monotonic()))
                with self._pool.connection(timeout=wait) as conn:
                    return work(conn)
            except psycopg.OperationalError as exc:
                if self._closed or time.monotonic() + delay > deadline:
                    raise Unavailable(f"the PostgreSQL store at {self.location}: {exc}") from exc
            time.sleep(delay)
            delay = min(2 * delay, 1.0)

    def _owned(self, conn: psycopg.Connection[Any], table: str) -> None:
        """Inside a transaction writing ``table``: refuse it (:class:`Fenced`)
        unless this node still holds the table's lease under its fence; the
        owner's row stays locked until the transaction ends, so that no
        takeover comes between this check and the write."""
        if not self.fencing or table == OPERATOR_SCOPE:  # the operator's tokens are no table's
            return
        row = conn.execute("SELECT fence FROM owners WHERE table_id = %s FOR SHARE", (table,)).fetchone()
        if row is None or int(row[0]) != self.fences.get(table):
            raise Fenced({table})

    def _write(self, table: str, sql: str, params: Sequence[Any]) -> int:
        """One statement writing ``table``, fenced; the rows it touched."""

        def work(conn: psycopg.Connection[Any]) -> int:
            with conn.transaction():
                self._owned(conn, table)
                return conn.execute(sql, params).rowcount

        return self._run(work)

    # -- server -------------------------------------------------------------

    def server_secret(self) -> str:
        """The operator scope's signing key, made on first start (by the
        first of several nodes starting together)."""

        def work(conn: psycopg.Connection[Any]) -> str:
            conn.execute(
                "INSERT INTO meta VALUES ('server_secret', %s) ON CONFLICT (key) DO NOTHING", (new_key(),)
            )
            row = conn.execute("SELECT value FROM meta WHERE key = 'server_secret'").fetchone()
            assert row is not None
            return str(row[0])

        return self._run(work)

    # -- tables -------------------------------------------------------------

    def create_table(self, record: TableRecord, doc: dict[str, Any]) -> None:
        def work(conn: psycopg.Connection[Any]) -> None:
            try:
                with conn.transaction():
                    conn.execute(
                        f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        table_row(record),
                    )
                    conn.execute(
                        "INSERT INTO snapshots VALUES (%s, %s, 0, %s)",
                        (record.id, record.epoch, _enc.encode(doc).decode()),
                    )
                    if self.fencing:  # the node that makes a table owns it
                        self.fences[record.id] = _take_new(conn, record.id, self.node, self.lease_seconds)
            except errors.UniqueViolation as exc:
                row = conn.execute("SELECT key FROM tables WHERE id = %s", (record.id,)).fetchone()
                if row is None or row[0] != record.key:  # not this very table, made before
                    raise Conflict(f"table {record.id!r} exists") from exc

        self._run(work)

    def table(self, table: str, patience: float | None = None) -> TableRecord | None:
        row = self._run(
            lambda conn: conn.execute(
                f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = %s", (table,)
            ).fetchone(),
            patience,
        )
        return None if row is None else table_from_row(row)

    def tables(self, include_archived: bool = True) -> list[TableRecord]:
        where = "" if include_archived else " WHERE NOT archived"
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT {TABLE_COLUMNS} FROM tables{where} ORDER BY created, id"
            ).fetchall()
        )
        return [table_from_row(row) for row in rows]

    def load(self, table: str) -> Loaded:
        """Latest snapshot of the current epoch plus the entries after it,
        already applied (as :meth:`SqliteStore.load`), read in one snapshot
        of the database."""

        def work(conn: psycopg.Connection[Any]) -> tuple[Any, Any, list[Any]]:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                row = conn.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id = %s", (table,)).fetchone()
                if row is None:
                    raise KeyError(table)
                snap = conn.execute(
                    "SELECT rev, doc FROM snapshots WHERE table_id = %s AND epoch = %s "
                    "ORDER BY rev DESC LIMIT 1",
                    (table, row[4]),
                ).fetchone()
                tail = conn.execute(
                    "SELECT entry FROM log WHERE table_id = %s AND epoch = %s AND rev > %s ORDER BY rev",
                    (table, row[4], snap[0] if snap else 0),
                ).fetchall()
            return row, snap, tail

        row, snap, tail_rows = self._run(work)
        doc = _doc_dec.decode(snap[1])
        tail = [_entry_dec.decode(r[0]) for r in tail_rows]
        for entry in tail:
            doc = apply_patch(doc, entry.ops)
        return Loaded(record=table_from_row(row), snapshot_rev=int(snap[0]), doc=doc, tail=tail)

    def append(self, entries: Sequence[LogEntry]) -> None:
        """One statement (one round trip, atomic). If a rev is taken, the
        log is checked: the same entries are a commit repeated after its
        answer was lost (done); any other is a :class:`Conflict`."""
        if not entries:
            return
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for e in entries:
            for column, value in zip(
                columns, (e.table, e.epoch, e.rev, e.v, _enc.encode(e).decode()), strict=True
            ):
                column.append(value)

        def stored(conn: psycopg.Connection[Any]) -> list[Any]:
            rows = conn.execute(
                "SELECT l.entry FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) "
                "WITH ORDINALITY AS k(table_id, epoch, rev, n) "
                "LEFT JOIN log l USING (table_id, epoch, rev) ORDER BY k.n",
                columns[:3],
            ).fetchall()
            return [r[0] for r in rows]

        def work(conn: psycopg.Connection[Any]) -> None:
            try:
                if not self.fencing:
                    conn.execute(_INSERT_LOG, columns)
                    return
                owned = sorted(set(columns[0]))
                fences = [self.fences.get(t, 0) for t in owned]
                done = {r[0] for r in conn.execute(_INSERT_LOG_FENCED, (owned, fences, *columns)).fetchall()}
            except errors.UniqueViolation as exc:
                if stored(conn) != columns[4]:
                    raise Conflict(str(exc)) from exc
                return
            refused = set(owned) - done
            if refused:
                # Entries already there as they are were committed by an
                # earlier try whose answer was lost (before the lease went).
                have = stored(conn)
                refused = {t for t, e, h in zip(columns[0], columns[4], have, strict=True) if e != h}
                if refused:
                    raise Fenced(refused)

        self._run(work)

    def snapshot(self, table: str, epoch: int, rev: int, doc: dict[str, Any]) -> None:
        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                self._owned(conn, table)
                conn.execute(
                    "INSERT INTO snapshots VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (table_id, epoch, rev) DO UPDATE SET doc = excluded.doc",
                    (table, epoch, rev, _enc.encode(doc).decode()),
                )
                # Older snapshots of this epoch are no longer needed to load.
                conn.execute(
                    "DELETE FROM snapshots WHERE table_id = %s AND epoch = %s AND rev < %s",
                    (table, epoch, rev),
                )

        self._run(work)

    def history(self, table: str, epoch: int, before: int | None, limit: int) -> list[LogEntry]:
        return [_entry_dec.decode(row) for row in self._page(table, epoch, before, limit)]

    def requests(self, table: str, epoch: int, before: int | None, limit: int) -> list[Requested]:
        return [requested(row) for row in self._page(table, epoch, before, limit)]

    def _page(self, table: str, epoch: int, before: int | None, limit: int) -> list[Any]:
        """The encoded entries before rev ``before``, newest first."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT entry FROM log WHERE table_id = %s AND epoch = %s AND rev < %s "
                "ORDER BY rev DESC LIMIT %s",
                (table, epoch, before if before is not None else 2**62, limit),
            ).fetchall()
        )
        return [r[0] for r in rows]

    def entry(self, table: str, epoch: int, rev: int) -> LogEntry | None:
        row = self._run(
            lambda conn: conn.execute(
                "SELECT entry FROM log WHERE table_id = %s AND epoch = %s AND rev = %s", (table, epoch, rev)
            ).fetchone()
        )
        return None if row is None else _entry_dec.decode(row[0])

    def reset(self, table: str, epoch: int, doc: dict[str, Any]) -> None:
        """A new epoch: the old history goes, the current document stays."""

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                self._owned(conn, table)
                conn.execute("UPDATE tables SET epoch = %s WHERE id = %s", (epoch, table))
                conn.execute("DELETE FROM log WHERE table_id = %s", (table,))
                conn.execute("DELETE FROM snapshots WHERE table_id = %s", (table,))
                conn.execute(
                    "INSERT INTO snapshots VALUES (%s, %s, 0, %s)", (table, epoch, _enc.encode(doc).decode())
                )

        self._run(work)

    def set_archived(self, table: str, archived: bool) -> None:
        self._write(table, "UPDATE tables SET archived = %s WHERE id = %s", (archived, table))

    def set_key(self, table: str, key: str) -> None:
        self._write(table, "UPDATE tables SET key = %s WHERE id = %s", (key, table))

    def delete(self, table: str) -> None:
        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                self._owned(conn, table)
                for name in ("log", "snapshots", "tokens", "presence"):
                    conn.execute(f"DELETE FROM {name} WHERE table_id = %s", (table,))
                conn.execute("DELETE FROM tables WHERE id = %s", (table,))

        self._run(work)

    # -- presence -----------------------------------------------------------

    def mark_presence(self, tables: Sequence[str], wall: float) -> None:
        self._run(
            lambda conn: conn.execute(
                "INSERT INTO presence SELECT t, %s FROM unnest(%s::text[]) AS t "
                "ON CONFLICT (table_id) DO UPDATE SET wall = excluded.wall",
                (wall, list(tables)),
            )
        )

    def presence(self, table: str) -> float | None:
        row = self._run(
            lambda conn: conn.execute("SELECT wall FROM presence WHERE table_id = %s", (table,)).fetchone()
        )
        return None if row is None else float(row[0])

    # -- tokens -------------------------------------------------------------

    def add_token(self, token: TokenRecord) -> None:
        values = token_row(token)
        # Token ids are random: one already there is this one, added by a
        # call whose answer was lost.
        self._write(
            token.table,
            f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (table_id, token_id) DO NOTHING",
            values,
        )

    def tokens(self, table: str) -> list[TokenRecord]:
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE table_id = %s ORDER BY created, token_id",
                (table,),
            ).fetchall()
        )
        return [token_from_row(r) for r in rows]

    def revoke(self, table: str, token_id: str) -> bool:
        count = self._write(
            table, "UPDATE tokens SET revoked = true WHERE table_id = %s AND token_id = %s", (table, token_id)
        )
        return count > 0

    def close(self) -> None:
        self._closed = True
        self._pool.close()
