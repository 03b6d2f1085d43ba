"""Commit groups, and the snapshots that keep recovery short.

Every entry waiting when the committing thread is free goes into one
transaction, so many tables share one fsync in ``full`` mode while each
ack still waits for its own entries to be durable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import msgspec
import structlog

from vigil.changes import LogEntry
from vigil.net import metrics
from vigil.net.host import TableHost
from vigil.net.storage import Storage
from vigil.store.base import Fenced

log = structlog.get_logger("vigil")


class Committer:
    def __init__(self, storage: Storage, snapshot_every: int) -> None:
        self.storage = storage
        store = storage.store
        self.snapshot_every = snapshot_every
        # A store whose commit never waits on the disk commits on the loop
        # when Storage offers it (Storage.append_now: a thread hop costs
        # more than the commit); else in a thread. Both ways of committing
        # are timed (metrics.COMMIT_SECONDS).
        nowait = storage.append_now
        self._append_nowait: Callable[[list[LogEntry]], bool] | None = (
            metrics.timed_commit(nowait) if nowait is not None else None
        )
        self._append = metrics.timed_commit(store.append)
        self._pending: list[tuple[list[LogEntry], asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._snapshots: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def commit(self, entries: list[LogEntry]) -> None:
        """Return once ``entries`` are durable (raise if they cannot be)."""
        nowait = self._append_nowait
        if nowait is not None and not self._pending and nowait(entries):
            return  # committed on the spot: nothing to group, nobody to wake
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((entries, future))
        self._wake.set()
        await future

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            entries = [e for group, _ in batch for e in group]
            try:
                nowait = self._append_nowait
                if nowait is None or not nowait(entries):
                    await self.storage.slow(self._append, entries)
            except Fenced as exc:
                # Only the tables this node lost are refused; the others'
                # entries of the group are committed.
                for group, future in batch:
                    if not future.done():
                        if group[0].table in exc.tables:
                            future.set_exception(Fenced({group[0].table}))
                        else:
                            future.set_result(None)
                continue
            except Exception as exc:  # every waiter learns its commit failed
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(None)

    def committed(self, host: TableHost, count: int) -> None:
        """``count`` more entries of ``host``'s table are durable: past
        ``snapshot_every`` of them, write a snapshot (in a thread, without
        waiting: the log stays the truth until it lands)."""
        host.since_snapshot += count
        if host.since_snapshot >= self.snapshot_every:
            host.since_snapshot = 0
            table = host.table
            doc = msgspec.json.decode(msgspec.json.encode(table.doc))
            task = asyncio.get_running_loop().create_task(
                self.storage.slow(self.storage.store.snapshot, table.id, table.epoch, table.rev, doc)
            )
            self._snapshots.add(task)
            task.add_done_callback(self._snapshot_done)

    def _snapshot_done(self, task: asyncio.Task[None]) -> None:
        """A snapshot written, or not (the log is still the truth: a table
        loads from the last snapshot that landed and the entries after it)."""
        self._snapshots.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("snapshot_failed", error=str(exc))

    async def stop(self) -> None:
        if self._task is not None:
            while self._pending:
                await asyncio.sleep(0.01)
            self._task.cancel()
