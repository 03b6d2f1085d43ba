"""The SQLite store (WAL).

``synchronous=NORMAL`` (the default) makes a commit survive any crash of the
process, SIGKILL included, because the WAL write reaches the OS before
commit returns; ``full`` adds an fsync per commit group for power loss.
One connection, used from one thread at a time (the server's commit thread),
so no locking games.

The schema's version is SQLite's ``user_version``: at open the database is
brought from the version it records to the last of :data:`MIGRATIONS`, each
step in its own transaction; a database of a later Vigil is refused.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from vigil.auth import new_key
from vigil.changes import LogEntry, Requested, requested
from vigil.jsonpatch import apply as apply_patch
from vigil.store.base import (
    TABLE_COLUMNS,
    TOKEN_COLUMNS,
    Conflict,
    Durability,
    Loaded,
    SchemaError,
    TableRecord,
    TokenRecord,
    table_from_row,
    table_row,
    token_from_row,
    token_row,
)

__all__ = ["MIGRATIONS", "Durability", "SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
  id TEXT PRIMARY KEY, system TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL,
  epoch INTEGER NOT NULL, created REAL NOT NULL, archived INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS log (
  table_id TEXT NOT NULL, epoch INTEGER NOT NULL, rev INTEGER NOT NULL, v INTEGER NOT NULL,
  entry BLOB NOT NULL, PRIMARY KEY (table_id, epoch, rev)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
  table_id TEXT NOT NULL, epoch INTEGER NOT NULL, rev INTEGER NOT NULL, doc BLOB NOT NULL,
  PRIMARY KEY (table_id, epoch, rev)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
  table_id TEXT NOT NULL, token_id TEXT NOT NULL, role TEXT NOT NULL, chars TEXT NOT NULL,
  label TEXT NOT NULL, expires REAL, created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0,
  incarnations TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (table_id, token_id));
CREATE TABLE IF NOT EXISTS presence (table_id TEXT PRIMARY KEY, wall REAL NOT NULL) WITHOUT ROWID;
"""


def _v1(db: sqlite3.Connection) -> None:
    """The schema as it stood when versions began to be recorded; a
    database made before token incarnations gets their column."""
    for statement in _SCHEMA.split(";"):  # not executescript: it would commit
        if statement.strip():
            db.execute(statement)
    columns = {row[1] for row in db.execute("PRAGMA table_info(tokens)")}
    if "incarnations" not in columns:
        db.execute("ALTER TABLE tokens ADD COLUMN incarnations TEXT NOT NULL DEFAULT '{}'")


Migration = Callable[[sqlite3.Connection], None]
# Version n is reached by MIGRATIONS[n - 1]; a later version appends one.
MIGRATIONS: tuple[Migration, ...] = (_v1,)


def migrate(db: sqlite3.Connection, migrations: Sequence[Migration]) -> int:
    """Bring ``db`` to ``len(migrations)``, one transaction per step;
    the version it is at."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > len(migrations):
        raise SchemaError(
            f"the database is at schema version {version}, written by a later Vigil "
            f"(this one knows versions up to {len(migrations)}): upgrade Vigil"
        )
    for number, step in enumerate(migrations[version:], start=version + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            step(db)
            db.execute(f"PRAGMA user_version={number}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return len(migrations)


_enc = msgspec.json.Encoder()
_entry_dec = msgspec.json.Decoder(LogEntry)
_doc_dec = msgspec.json.Decoder(dict[str, Any])


class SqliteStore:
    def __init__(
        self,
        path: str | Path,
        durability: Durability = "normal",
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> None:
        self.path = self.location = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        sync = "FULL" if durability == "full" else "NORMAL"
        self._db.execute(f"PRAGMA synchronous={sync}")
        self._db.execute("PRAGMA foreign_keys=OFF")
        try:
            self.schema_version = migrate(self._db, migrations)
        except BaseException:
            self._db.close()
            raise
        # A commit without fsync (NORMAL) takes tens of microseconds: the
        # server may make it on its event loop rather than hop to a thread.
        self.inline_commits = durability != "full"
        self._checkpointer: _Checkpointer | None = None
        if self.path != ":memory:":
            # Checkpoints (which fsync) run in their own thread and
            # connection, so that no commit ever waits for one.
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = _Checkpointer(self.path, sync, self._lock)
            self._checkpointer.start()

    # -- server -------------------------------------------------------------

    def server_secret(self) -> str:
        """The operator scope's signing key, made on first start."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='server_secret'").fetchone()
            if row:
                return str(row[0])
            key = new_key()
            self._db.execute("INSERT INTO meta VALUES ('server_secret', ?)", (key,))
            return key

    # -- tables -------------------------------------------------------------

    def create_table(self, record: TableRecord, doc: dict[str, Any]) -> None:
        with self._lock, _conflicts, self._tx():
            self._db.execute(
                f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES (?,?,?,?,?,?,?)", table_row(record)
            )
            self._db.execute(
                "INSERT INTO snapshots VALUES (?,?,0,?)",
                (record.id, record.epoch, _enc.encode(doc)),
            )

    def table(self, table: str) -> TableRecord | None:
        with self._lock:
            row = self._db.execute(f"SELECT {TABLE_COLUMNS} FROM tables WHERE id=?", (table,)).fetchone()
        return None if row is None else table_from_row(row)

    def tables(self, include_archived: bool = True) -> list[TableRecord]:
        with self._lock:
            rows = self._db.execute(f"SELECT {TABLE_COLUMNS} FROM tables ORDER BY created").fetchall()
        records = [table_from_row(row) for row in rows]
        return [r for r in records if include_archived or not r.archived]

    def load(self, table: str) -> Loaded:
        """Latest snapshot of the current epoch plus the entries after it,
        already applied to the document (the tail is returned too, for the
        server's replay buffer and undo)."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {TABLE_COLUMNS} FROM tables WHERE id=?",
                (table,),
            ).fetchone()
            if row is None:
                raise KeyError(table)
            record = table_from_row(row)
            snap = self._db.execute(
                "SELECT rev, doc FROM snapshots WHERE table_id=? AND epoch=? ORDER BY rev DESC LIMIT 1",
                (table, record.epoch),
            ).fetchone()
            tail_rows = self._db.execute(
                "SELECT entry FROM log WHERE table_id=? AND epoch=? AND rev>? ORDER BY rev",
                (table, record.epoch, snap[0]),
            ).fetchall()
        doc = _doc_dec.decode(snap[1])
        tail = [_entry_dec.decode(r[0]) for r in tail_rows]
        for entry in tail:
            doc = apply_patch(doc, entry.ops)
        return Loaded(record=record, snapshot_rev=snap[0], doc=doc, tail=tail)

    def append(self, entries: Sequence[LogEntry]) -> None:
        if not entries:
            return
        rows = [(e.table, e.epoch, e.rev, e.v, _enc.encode(e)) for e in entries]
        with self._lock:
            self._append(rows)

    def append_nowait(self, entries: Sequence[LogEntry]) -> bool:
        """``append`` unless another thread is using the store (a snapshot,
        a history page, a checkpoint): then False, nothing done, and the
        caller appends from a thread instead of waiting on its loop."""
        if not entries:
            return True
        rows = [(e.table, e.epoch, e.rev, e.v, _enc.encode(e)) for e in entries]
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._append(rows)
        finally:
            self._lock.release()
        return True

    def _append(self, rows: list[tuple[Any, ...]]) -> None:
        with _conflicts:
            if len(rows) == 1:
                # One statement in autocommit mode is its own transaction,
                # as atomic and durable as BEGIN … COMMIT and two statements
                # cheaper (the usual case: one command, one entry).
                self._db.execute("INSERT INTO log VALUES (?,?,?,?,?)", rows[0])
            else:
                with self._tx():
                    self._db.executemany("INSERT INTO log VALUES (?,?,?,?,?)", rows)
        if self._checkpointer is not None:
            self._checkpointer.poke()

    def snapshot(self, table: str, epoch: int, rev: int, doc: dict[str, Any]) -> None:
        with self._lock, self._tx():
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?,?,?,?)",
                (table, epoch, rev, _enc.encode(doc)),
            )
            # Older snapshots of this epoch are no longer needed to load.
            self._db.execute(
                "DELETE FROM snapshots WHERE table_id=? AND epoch=? AND rev<?", (table, epoch, rev)
            )

    def history(self, table: str, epoch: int, before: int | None, limit: int) -> list[LogEntry]:
        return [_entry_dec.decode(row) for row in self._page(table, epoch, before, limit)]

    def requests(self, table: str, epoch: int, before: int | None, limit: int) -> list[Requested]:
        return [requested(row) for row in self._page(table, epoch, before, limit)]

    def _page(self, table: str, epoch: int, before: int | None, limit: int) -> list[bytes]:
        """The encoded entries before rev ``before``, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT entry FROM log WHERE table_id=? AND epoch=? AND rev<? ORDER BY rev DESC LIMIT ?",
                (table, epoch, before if before is not None else 2**62, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def entry(self, table: str, epoch: int, rev: int) -> LogEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT entry FROM log WHERE table_id=? AND epoch=? AND rev=?", (table, epoch, rev)
            ).fetchone()
        return None if row is None else _entry_dec.decode(row[0])

    def reset(self, table: str, epoch: int, doc: dict[str, Any]) -> None:
        """A new epoch: the old history goes, the current document stays."""
        with self._lock, self._tx():
            self._db.execute("UPDATE tables SET epoch=? WHERE id=?", (epoch, table))
            self._db.execute("DELETE FROM log WHERE table_id=?", (table,))
            self._db.execute("DELETE FROM snapshots WHERE table_id=?", (table,))
            self._db.execute("INSERT INTO snapshots VALUES (?,?,0,?)", (table, epoch, _enc.encode(doc)))

    def set_archived(self, table: str, archived: bool) -> None:
        with self._lock:
            self._db.execute("UPDATE tables SET archived=? WHERE id=?", (int(archived), table))

    def set_key(self, table: str, key: str) -> None:
        with self._lock:
            self._db.execute("UPDATE tables SET key=? WHERE id=?", (key, table))

    def delete(self, table: str) -> None:
        with self._lock, self._tx():
            for name in ("log", "snapshots", "tokens", "presence"):
                self._db.execute(f"DELETE FROM {name} WHERE table_id=?", (table,))
            self._db.execute("DELETE FROM tables WHERE id=?", (table,))

    # -- presence -----------------------------------------------------------

    def mark_presence(self, tables: Sequence[str], wall: float) -> None:
        with self._lock, self._tx():
            self._db.executemany("INSERT OR REPLACE INTO presence VALUES (?,?)", [(t, wall) for t in tables])

    def presence(self, table: str) -> float | None:
        with self._lock:
            row = self._db.execute("SELECT wall FROM presence WHERE table_id=?", (table,)).fetchone()
        return None if row is None else float(row[0])

    # -- tokens -------------------------------------------------------------

    def add_token(self, token: TokenRecord) -> None:
        with self._lock:
            self._db.execute(
                f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                token_row(token),
            )

    def tokens(self, table: str) -> list[TokenRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE table_id=? ORDER BY created",
                (table,),
            ).fetchall()
        return [token_from_row(r) for r in rows]

    def revoke(self, table: str, token_id: str) -> bool:
        with self._lock:
            cur = self._db.execute(
                "UPDATE tokens SET revoked=1 WHERE table_id=? AND token_id=?", (table, token_id)
            )
            return cur.rowcount > 0

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
        with self._lock:
            self._db.close()

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Checkpointer(threading.Thread):
    """WAL checkpoints in their own thread and connection, so that no commit
    runs one (SQLite's automatic checkpoint runs inside the commit that
    crosses its threshold, fsyncs and all).

    Like the automatic one it starts when the WAL has grown past
    ``threshold`` bytes. It is PASSIVE: it never blocks a commit. Should
    commits keep a passive one from ever catching up (the WAL restarts from
    its beginning only after a complete one), the next is made holding the
    store's lock, which stalls commits for one checkpoint."""

    def __init__(
        self, path: str, sync: str, lock: threading.Lock, threshold: int = 4 << 20, interval: float = 0.25
    ) -> None:
        super().__init__(name="vigil-checkpoint", daemon=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute(f"PRAGMA synchronous={sync}")
        self._wal = path + "-wal"
        self._lock = lock
        self._threshold = threshold
        self._interval = interval
        self._wake = threading.Event()
        self._stopping = threading.Event()

    def poke(self) -> None:
        if not self._wake.is_set():
            self._wake.set()

    def _wal_size(self) -> int:
        try:
            return os.path.getsize(self._wal)
        except OSError:
            return 0

    def run(self) -> None:
        try:
            while not self._stopping.is_set():
                self._wake.wait()
                if self._stopping.wait(self._interval):
                    break
                self._wake.clear()
                size = self._wal_size()
                if size < self._threshold:
                    continue
                try:
                    if size < 4 * self._threshold:
                        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    else:
                        with self._lock:
                            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    pass  # busy: the next one catches up
        finally:
            self._db.close()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self.join(10)


class _ConflictGuard:
    """A key already taken becomes :class:`Conflict` (the transaction it
    happened in is rolled back, so nothing of the write was made)."""

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if isinstance(exc, sqlite3.IntegrityError):
            raise Conflict(str(exc)) from exc


_conflicts = _ConflictGuard()


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
