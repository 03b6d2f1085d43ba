"""Work run on its own (a close, a pause, a bus message handled): each
task kept referenced until it ends — asyncio holds only a weak reference to
a running task, so an unreferenced one may vanish mid-way — and a failure
it did not handle logged, with its traceback, under the name of the part
that spawned it, instead of "Task exception was never retrieved", which
names neither."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any

import structlog

log = structlog.get_logger("vigil")


class Tasks:
    def __init__(self, owner: str) -> None:
        self.owner = owner
        self._running: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work)
        self._running.add(task)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._running.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("task_failed", part=self.owner, exc_info=exc)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._running))

    def __len__(self) -> int:
        return len(self._running)
