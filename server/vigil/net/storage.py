"""The store as the event loop calls it: every store call of the edge is
awaited through :class:`Storage`, which alone decides whether it runs on
the loop or in a worker thread.

A store that answers at memory speed (:func:`~vigil.store.base.inline`:
SQLite in WAL mode without fsync) is called on the loop for a quick call —
one row read or written, one commit — since a thread hop costs more than
the call; any other store (SQLite with fsync, PostgreSQL) in a worker
thread, so that the loop never waits on a disk or a network. A call that
may take long or write much whatever the store (a table's load or
creation, a page of history or a whole log, a token list, a snapshot, a
durable write beyond the log, the cluster's leases) always runs in a
worker thread. Which kind each call is, is said where it is made
(:meth:`Storage.quick` or :meth:`Storage.slow`); the answer to "loop or
thread" is here alone — for the log's appends too: an inline store that
can append at once without waiting on another thread (SQLite's
``append_nowait``) is offered as :attr:`Storage.append_now`.

The store is called directly, on the loop, only where nothing is served
yet or any more: at the start, before the server listens (loading every
table), and to close it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from vigil.changes import LogEntry
from vigil.store.base import Store, inline

P = ParamSpec("P")
T = TypeVar("T")


class Storage:
    def __init__(self, store: Store) -> None:
        self.store = store
        # Read once: whether the store answers at memory speed.
        self.inline = inline(store)
        # Its append on the loop, at once, for a store at memory speed that
        # has one: True once committed, False if another thread is using
        # the store (nothing done: append in a worker thread instead). None:
        # every append runs in a worker thread.
        nowait = getattr(store, "append_nowait", None) if self.inline else None
        self.append_now: Callable[[list[LogEntry]], bool] | None = nowait

    async def quick(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A call that answers at the store's speed: on the loop for an
        inline store, else in a worker thread."""
        if self.inline:
            return work(*args, **kwargs)
        return await asyncio.to_thread(work, *args, **kwargs)

    async def slow(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A call that may take long whatever the store: in a worker thread."""
        return await asyncio.to_thread(work, *args, **kwargs)
