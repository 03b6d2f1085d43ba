"""Reading a served table's log back, for its history page, its export and
the GM's undo: this epoch's entries, as the store has them (durable ones
only: the writer appends before anything is sent). Its own service beside
the hub; every read is a slow store call (vigil.net.storage)."""

from __future__ import annotations

from vigil.changes import LogEntry
from vigil.net.host import TableHost
from vigil.net.storage import Storage
from vigil.store.base import Store


class HistoryReads:
    def __init__(self, store: Store, storage: Storage) -> None:
        self.store = store
        self.storage = storage

    async def page(self, host: TableHost, before: int | None, limit: int) -> list[LogEntry]:
        """Up to ``limit`` entries of this epoch before rev ``before``,
        newest first."""
        table = host.table
        return await self.storage.slow(self.store.history, table.id, table.epoch, before, limit)

    async def all(self, host: TableHost) -> list[LogEntry]:
        """Every entry of this epoch, oldest first."""
        return list(reversed(await self.page(host, None, 10**9)))

    async def entry(self, host: TableHost, rev: int) -> LogEntry | None:
        """The entry of rev ``rev`` of this epoch, if the store has it."""
        table = host.table
        return await self.storage.slow(self.store.entry, table.id, table.epoch, rev)
