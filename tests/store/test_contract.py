"""The store contract: what the server relies on from a store, run against
SQLite and a real PostgreSQL alike. Each test writes through one store,
reads back through a store opened again on the same data (what a restart
does), and compares with what was written."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest

from vigil import tokens
from vigil.changes import LogEntry, Requested, requested
from vigil.jsonpatch import apply as apply_patch
from vigil.store import open_store, postgres, sqlite
from vigil.store.base import Conflict, OpenError, SchemaError, Store, TableRecord, inline

WALL = 1_700_000_000.0


class Stores:
    """Opens stores of one kind on one set of data, and closes them all."""

    def __init__(self, kind: str, location: str, tmp_path: Path) -> None:
        self.kind = kind
        self.location = location  # the PostgreSQL URL; empty for SQLite
        self.path = tmp_path / "vigil.sqlite3"
        self._open: list[Store] = []

    def open(self, durability: str = "normal", migrations: Sequence[Any] | None = None) -> Store:
        store: Store
        if migrations is None:
            store = open_store(self.location, self.path, durability)
        elif self.kind == "sqlite":
            store = sqlite.SqliteStore(self.path, migrations=migrations)
        else:
            store = postgres.PostgresStore(self.location, migrations=migrations)
        self._open.append(store)
        return store

    def reopen(self, store: Store) -> Store:
        """``store`` closed, and the same data opened again (a restart)."""
        self.close(store)
        return self.open()

    def close(self, store: Store) -> None:
        self._open.remove(store)
        store.close()

    def close_all(self) -> None:
        for store in self._open:
            store.close()

    def raw_tables(self) -> set[str]:
        """The names of the database's tables, read past the store."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.path) as db:
                return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        with psycopg.connect(self.location) as conn:
            rows = conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            ).fetchall()
        return {r[0] for r in rows}


@pytest.fixture(params=["sqlite", "postgresql"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    # PostgreSQL is started (once per session) only for its half of the suite.
    location = request.getfixturevalue("postgres_url") if request.param == "postgresql" else ""
    opened = Stores(request.param, location, tmp_path)
    try:
        yield opened
    finally:
        opened.close_all()


def record(table_id: str = "t1", created: float = WALL, key: str = "key-1") -> TableRecord:
    return TableRecord(
        id=table_id, system="mettle", name=f"Table {table_id}", key=key, epoch=1, created=created
    )


def doc0() -> dict[str, Any]:
    return {"meta": {}, "state": {"characters": {}}, "undo": []}


def entry(rev: int, table: str = "t1", epoch: int = 1, label: str | None = None, v: int = 2) -> LogEntry:
    """The entry of rev ``rev``: it adds character ``c<rev>`` to the state."""
    name = label or f"c{rev}"
    return LogEntry(
        table=table,
        epoch=epoch,
        rev=rev,
        wall=WALL + rev,
        game=float(rev),
        actor="gm",
        kind="command",
        command={"type": "character.create", "id": name},
        events=[{"code": "character_created", "char": name, "text": f"{name} joins."}],
        ops=[{"op": "add", "path": f"/state/characters/{name}", "value": {"name": name.title()}}],
        inverse=[{"op": "remove", "path": f"/state/characters/{name}"}],
        v=v,
    )


def applied(doc: dict[str, Any], entries: Sequence[LogEntry]) -> dict[str, Any]:
    for e in entries:
        doc = apply_patch(doc, e.ops)
    return doc


def test_the_server_secret_is_made_once_and_kept(stores: Stores) -> None:
    store = stores.open()
    secret = store.server_secret()
    assert len(secret) >= 32 and store.server_secret() == secret
    assert stores.reopen(store).server_secret() == secret


def test_a_table_is_created_listed_loaded_archived_and_rekeyed(stores: Stores) -> None:
    store = stores.open()
    first, second = record("t1", WALL), record("t2", WALL + 1, key="key-2")
    store.create_table(second, {"n": 2})
    store.create_table(first, doc0())
    store = stores.reopen(store)
    assert store.tables() == [first, second], "in the order they were created"
    loaded = store.load("t1")
    assert (loaded.record, loaded.snapshot_rev, loaded.doc, loaded.tail) == (first, 0, doc0(), [])
    with pytest.raises(KeyError):
        store.load("nope")
    store.set_archived("t2", True)
    store.set_key("t1", "key-new")
    store = stores.reopen(store)
    assert [t.id for t in store.tables(include_archived=False)] == ["t1"]
    assert [(t.id, t.archived, t.key) for t in store.tables()] == [
        ("t1", False, "key-new"),
        ("t2", True, "key-2"),
    ]
    store.set_archived("t2", False)
    assert [t.id for t in stores.reopen(store).tables(include_archived=False)] == ["t1", "t2"]


def test_a_table_id_already_taken_is_a_conflict_and_changes_nothing(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    with pytest.raises(Conflict):
        store.create_table(record(key="another"), {"other": True})
    store = stores.reopen(store)
    assert store.tables() == [record()]
    assert store.load("t1").doc == doc0()


def test_appended_entries_are_the_log_read_by_history_entry_and_load(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    entries = [entry(rev) for rev in range(1, 6)]
    store.append(entries[:2])  # commit groups of any size
    store.append(entries[2:])
    store.append([])
    store = stores.reopen(store)
    assert store.history("t1", 1, None, 3) == [entries[4], entries[3], entries[2]], (
        "newest first, up to the limit"
    )
    assert store.history("t1", 1, 3, 10) == [entries[1], entries[0]], "those before a rev"
    assert store.history("t1", 2, None, 10) == [], "of the epoch asked for"
    assert store.entry("t1", 1, 2) == entries[1]
    assert store.entry("t1", 1, 99) is None
    loaded = store.load("t1")
    assert (loaded.snapshot_rev, loaded.tail) == (0, entries)
    assert loaded.doc == applied(doc0(), entries)


def test_the_requests_of_a_page_are_its_entries_requests_read_alone(stores: Stores) -> None:
    """``requests`` pages as ``history`` does, and reads of each entry only
    the request it answered, its result and when: an entry with a request
    and a result, one with neither, and one written before entries kept
    them (its array ends at ``v``)."""
    store = stores.open()
    store.create_table(record(), doc0())
    entries = [entry(rev) for rev in range(1, 4)]
    entries[1].request = "tok-1:s:m7"
    entries[1].result = {"faces": [3, 5], "note": "ünïcode"}
    store.append(entries)
    old = msgspec.json.encode(entry(4))[: -len(b",null,null,null]")] + b"]"  # cut at ``v``
    assert msgspec.json.decode(old)[-1] == 2
    store = stores.reopen(store)
    assert store.requests("t1", 1, None, 2) == [Requested.of(e) for e in (entries[2], entries[1])]
    assert store.requests("t1", 1, 2, 10) == [Requested.of(entries[0])]
    assert store.requests("t1", 2, None, 10) == []
    assert requested(old) == (4, WALL + 4, None, None)
    assert Requested.of(entries[1]) == (2, WALL + 2, "tok-1:s:m7", {"faces": [3, 5], "note": "ünïcode"})


def test_an_entry_keeps_the_schema_version_it_was_written_with(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    old = entry(1, v=1)
    store.append([old, entry(2)])
    store = stores.reopen(store)
    assert [e.v for e in store.load("t1").tail] == [1, 2]
    assert store.entry("t1", 1, 1) == old


def test_a_rev_taken_by_another_entry_is_a_conflict_and_nothing_of_the_group_is_written(
    stores: Stores,
) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    store.append([entry(1)])
    with pytest.raises(Conflict):
        store.append([entry(2), entry(1, label="other")])
    store = stores.reopen(store)
    assert store.load("t1").tail == [entry(1)], "rev 2 was not written either"


def test_a_snapshot_shortens_the_load_and_keeps_the_log(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    entries = [entry(rev) for rev in range(1, 5)]
    store.append(entries)
    store.snapshot("t1", 1, 2, applied(doc0(), entries[:2]))
    store = stores.reopen(store)
    loaded = store.load("t1")
    assert (loaded.snapshot_rev, loaded.tail) == (2, entries[2:])
    assert loaded.doc == applied(doc0(), entries)
    assert len(store.history("t1", 1, None, 100)) == 4, "the history still has every entry"
    store.snapshot("t1", 1, 4, applied(doc0(), entries))
    store.snapshot("t1", 1, 4, applied(doc0(), entries))  # again: the same snapshot
    loaded = stores.reopen(store).load("t1")
    assert (loaded.snapshot_rev, loaded.tail, loaded.doc) == (4, [], applied(doc0(), entries))


def test_a_reset_starts_a_new_epoch_from_the_document_with_an_empty_log(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    store.append([entry(1), entry(2)])
    now = applied(doc0(), [entry(1), entry(2)])
    store.reset("t1", 2, now)
    store = stores.reopen(store)
    assert store.tables()[0].epoch == 2
    loaded = store.load("t1")
    assert (loaded.record.epoch, loaded.snapshot_rev, loaded.doc, loaded.tail) == (2, 0, now, [])
    assert store.history("t1", 1, None, 10) == [] and store.entry("t1", 1, 1) is None
    store.append([entry(1, epoch=2, label="after")])
    loaded = stores.reopen(store).load("t1")
    assert [e.rev for e in loaded.tail] == [1] and "after" in loaded.doc["state"]["characters"]


def test_tokens_are_recorded_listed_and_revoked(stores: Stores) -> None:
    store = stores.open()
    store.create_table(record(), doc0())
    gm = tokens.new_record("t1", "gm", [], "gm", 30)
    player = tokens.new_record("t1", "player", ["a", "b"], "Anna", None, {"a": "1.4"})
    player.created = gm.created + 1
    store.add_token(gm)
    store.add_token(player)
    store.add_token(tokens.new_record("t2", "spectator", [], "other table", None))
    store = stores.reopen(store)
    assert store.tokens("t1") == [gm, player], "every field, in the order they were made"
    assert store.revoke("t1", player.token_id) is True
    assert store.revoke("t1", "unknown") is False
    assert store.revoke("t2", gm.token_id) is False, "a token of another table"
    store = stores.reopen(store)
    assert [t.revoked for t in store.tokens("t1")] == [False, True]
    assert [t.label for t in store.tokens("t2")] == ["other table"]
    assert store.tokens("nope") == []


def test_the_operator_token_is_one_per_store_across_restarts(stores: Stores) -> None:
    store = stores.open()
    first = tokens.operator_token(store)
    assert tokens.operator_token(stores.reopen(store)) == first


def test_presence_is_the_latest_mark_per_table(stores: Stores) -> None:
    store = stores.open()
    assert store.presence("t1") is None
    store.mark_presence(["t1", "t2"], WALL)
    store.mark_presence(["t1"], WALL + 10.5)
    store.mark_presence([], WALL + 20)
    store = stores.reopen(store)
    assert (store.presence("t1"), store.presence("t2")) == (WALL + 10.5, WALL)


def test_a_deleted_table_leaves_nothing_and_the_others_stay(stores: Stores) -> None:
    store = stores.open()
    for table_id, created in (("t1", WALL), ("t2", WALL + 1)):
        store.create_table(record(table_id, created), doc0())
        store.append([entry(1, table=table_id), entry(2, table=table_id)])
        store.snapshot(table_id, 1, 2, applied(doc0(), [entry(1), entry(2)]))
        store.add_token(tokens.new_record(table_id, "gm", [], "gm", None))
        store.mark_presence([table_id], WALL)
    store.delete("t1")
    store = stores.reopen(store)
    assert [t.id for t in store.tables()] == ["t2"]
    with pytest.raises(KeyError):
        store.load("t1")
    assert (store.history("t1", 1, None, 10), store.tokens("t1"), store.presence("t1")) == ([], [], None)
    assert store.load("t2").snapshot_rev == 2 and len(store.tokens("t2")) == 1
    store.create_table(record("t1", WALL + 2), {"again": True})
    assert stores.reopen(store).load("t1").doc == {"again": True}, "its id is free again"


@pytest.mark.parametrize("durability", ["normal", "full"])
def test_each_durability_commits_and_reads_back(stores: Stores, durability: str) -> None:
    store = stores.open(durability)
    assert inline(store) is (stores.kind == "sqlite" and durability == "normal"), (
        "only SQLite without fsync is called on the event loop"
    )
    store.create_table(record(), doc0())
    store.append([entry(1)])
    assert stores.reopen(store).load("t1").tail == [entry(1)]


# -- schema migrations ----------------------------------------------------------


def later(stores: Stores) -> tuple[Any, ...]:
    """This version's migrations and one more, as a later Vigil has them."""
    if stores.kind == "sqlite":

        def notes(db: sqlite3.Connection) -> None:
            db.execute("CREATE TABLE notes (x)")

        return (*sqlite.MIGRATIONS, notes)
    return (*postgres.MIGRATIONS, "CREATE TABLE notes (x integer)")


def test_a_later_migration_runs_once_at_open_and_a_later_schema_is_refused(stores: Stores) -> None:
    store = stores.open()
    current = len(sqlite.MIGRATIONS if stores.kind == "sqlite" else postgres.MIGRATIONS)
    assert getattr(store, "schema_version", None) == current
    store.create_table(record(), doc0())
    store.append([entry(1)])
    stores.close(store)
    upgraded = stores.open(migrations=later(stores))
    assert getattr(upgraded, "schema_version", None) == current + 1
    assert "notes" in stores.raw_tables()
    assert upgraded.load("t1").tail == [entry(1)], "the data came through the migration"
    stores.close(upgraded)
    again = stores.open(migrations=later(stores))  # nothing left to run: the step is not repeated
    assert getattr(again, "schema_version", None) == current + 1
    stores.close(again)
    with pytest.raises(SchemaError, match="later Vigil"):
        stores.open()


def test_a_sqlite_database_from_before_versions_and_incarnations_keeps_its_tokens(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE tokens (table_id TEXT NOT NULL, token_id TEXT NOT NULL, role TEXT NOT NULL, "
        "chars TEXT NOT NULL, label TEXT NOT NULL, expires REAL, created REAL NOT NULL, "
        "revoked INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_id, token_id))"
    )
    db.execute("INSERT INTO tokens VALUES ('t1', 'x', 'player', '[\"a\"]', 'Anna', NULL, 1.0, 0)")
    db.commit()
    db.close()
    store = sqlite.SqliteStore(path)
    try:
        assert store.schema_version == len(sqlite.MIGRATIONS)
        (old,) = store.tokens("t1")
        assert (old.chars, old.incarnations) == (["a"], {})
        store.add_token(tokens.new_record("t1", "player", ["a"], "Bea", None, {"a": "1.2"}))
        assert [t.incarnations for t in store.tokens("t1")] == [{}, {"a": "1.2"}]
    finally:
        store.close()


# -- PostgreSQL: several processes, lost connections ----------------------------


def test_postgresql_stores_opening_together_migrate_once(postgres_url: str) -> None:
    opened: list[Store] = []
    failed: list[BaseException] = []

    def start() -> None:
        try:
            opened.append(postgres.PostgresStore(postgres_url))
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert failed == [] and len(opened) == 3
        secrets = {store.server_secret() for store in opened}
        assert len(secrets) == 1, "one server secret, whichever node made it"
        with psycopg.connect(postgres_url) as conn:
            versions = conn.execute("SELECT version FROM schema_version").fetchall()
        assert versions == [(v,) for v in range(1, len(postgres.MIGRATIONS) + 1)]
    finally:
        for store in opened:
            store.close()


@pytest.mark.parametrize(("durability", "setting"), sorted(postgres.SYNCHRONOUS_COMMIT.items()))
def test_postgresql_durability_is_synchronous_commit(
    postgres_url: str, durability: str, setting: str
) -> None:
    store = open_store(postgres_url, Path("unused"), durability)
    try:
        assert isinstance(store, postgres.PostgresStore)
        shown = store._run(lambda conn: conn.execute("SHOW synchronous_commit").fetchone())
        assert shown == (setting,)
    finally:
        store.close()


def test_postgresql_retries_on_a_connection_lost_and_a_repeated_commit_is_done(postgres_url: str) -> None:
    store = postgres.PostgresStore(postgres_url)
    try:
        store.create_table(record(), doc0())
        store.append([entry(1)])
        # PostgreSQL ends every connection of the store's pool (as a restart
        # of the server would): the next calls find theirs dead, and retry.
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = 'vigil' AND pid <> pg_backend_pid()"
            ).fetchone()
        assert ended is not None and ended[0] >= 1
        store.append([entry(2)])
        # The same group again (a commit whose answer was lost) is done, once.
        store.append([entry(2)])
        assert store.load("t1").tail == [entry(1), entry(2)]
        store.create_table(record(), doc0())  # the same table again: the same
        with pytest.raises(Conflict):
            store.create_table(record(key="another"), doc0())
    finally:
        store.close()


def test_postgresql_unreachable_is_said_plainly(tmp_path: Path) -> None:
    from tests.support.server import free_port

    with pytest.raises(
        OpenError, match=r"cannot open the PostgreSQL store at postgresql://u@127\.0\.0\.1"
    ) as exc:
        open_store(f"postgresql://u:secret@127.0.0.1:{free_port()}/vigil", tmp_path / "x", "normal")
    assert "secret" not in str(exc.value), "never the password"
    with pytest.raises(OpenError, match="unknown store"):
        open_store("mysql://x", tmp_path / "x", "normal")
