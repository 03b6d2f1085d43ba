"""Durable storage behind one small interface.

SQLite (WAL) is the embedded default; the interface is small on purpose so
that a PostgreSQL store can take its place on a multi-node host.
"""

from vigil.store.base import Store, TableRecord, TokenRecord
from vigil.store.sqlite import SqliteStore

__all__ = ["SqliteStore", "Store", "TableRecord", "TokenRecord"]
