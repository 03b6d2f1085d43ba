"""Timers and presence: when a table wakes by itself, and what its clock
does with nobody asking.

A table's timer is armed for its next due effect (a Dying countdown, a
rest, a poison dose) after every change; when it fires, the writer applies
every effect due by then. Presence: a running clock pauses when the last
GM leaves (unless the table's ``pause_without_gm`` setting is off), so that
nobody dies between sessions, and runs again when a GM comes back. The
changes themselves go through the writer like any other; this module says
when, and what they are.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from vigil.changes import Change
from vigil.net.host import Conn, TableHost
from vigil.rules.game import Ctx
from vigil.rules.outcome import Event, RuleError
from vigil.table import Table
from vigil.table_commands import ClockPause, ClockRun

Fire = Callable[[TableHost], Coroutine[Any, Any, None]]


def arm(host: TableHost, fire: Fire) -> None:
    """Wake ``fire(host)`` when the table's next effect is due (if the
    clock will get there by itself)."""
    disarm(host)
    wake = host.table.next_wake()
    if wake is None:
        return
    loop = asyncio.get_running_loop()
    delay = max(0.0, wake - time.time())
    host.timer = loop.call_later(delay, lambda: loop.create_task(fire(host)))


def disarm(host: TableHost) -> None:
    if host.timer is not None:
        host.timer.cancel()
        host.timer = None


def halt(exc: RuleError) -> Callable[[Table, float, Ctx], Change]:
    """The change that stops the clock where it is, when catching up would
    exceed the work bound (``exc``): instead of retrying forever, the GM
    decides."""
    params = {"code": exc.code, **exc.params}
    return lambda t, w, c: t.halt(w, c, "clock_halted", params)


# -- presence -------------------------------------------------------------------


def pauses_after(host: TableHost, leaving: Conn) -> bool:
    """Whether ``leaving`` was the last GM of a table whose running clock
    must then pause."""
    return (
        leaving.role == "gm"
        and host.gm_count() == 0
        and host.table.settings.get("pause_without_gm", True)
        and host.table.anchor.mode == "running"
    )


def resumes_for(host: TableHost, joining: Conn) -> bool:
    """Whether ``joining`` is a GM coming back to a clock paused for want
    of one."""
    return joining.role == "gm" and host.auto_paused


def auto_pause(table: Table, wall: float, ctx: Ctx) -> Change:
    change = table.prepare(ClockPause(), wall, ctx)
    change.events.insert(0, Event(code="clock_auto_paused", at=change.game))
    return change


def auto_resume(table: Table, wall: float, ctx: Ctx) -> Change:
    return table.prepare(ClockRun(rate=table.anchor.rate), wall, ctx)
