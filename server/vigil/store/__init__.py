"""Durable storage behind one small interface.

SQLite (WAL) is the embedded default: one file in the data directory. A
PostgreSQL database takes its place where several processes share the
data (``--store postgresql://…``); :func:`open_store` picks by the setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast, get_args

from vigil.store.base import Durability, OpenError, Store, TableRecord, TokenRecord
from vigil.store.sqlite import SqliteStore

__all__ = ["SCHEMES", "OpenError", "SqliteStore", "Store", "TableRecord", "TokenRecord", "open_store"]

# The URL schemes of a PostgreSQL store (libpq accepts both).
SCHEMES = ("postgresql://", "postgres://")


def open_store(store: str, sqlite_path: Path, durability: str) -> Store:
    """The store ``store`` names: a PostgreSQL URL, or empty for the SQLite
    file at ``sqlite_path``, committing at ``durability``. PostgreSQL's
    driver is imported only here, so that an installation without it runs
    SQLite as ever."""
    if durability not in get_args(Durability):
        raise OpenError(f"unknown durability {durability!r}: one of {', '.join(get_args(Durability))}")
    mode = cast(Durability, durability)
    if not store:
        return SqliteStore(sqlite_path, mode)
    if not store.startswith(SCHEMES):
        raise OpenError(
            f"unknown store {store!r}: a postgresql:// URL, or empty for SQLite in the data directory"
        )
    try:
        from vigil.store.postgres import PostgresStore
    except ImportError as exc:
        raise OpenError(
            f"the PostgreSQL store needs psycopg ({exc}): pip install 'vigil[postgresql]'"
        ) from exc
    return PostgresStore(store, mode)
