"""Timers: when a table wakes by itself.

A table's timer is armed for its next due effect (a Dying countdown, a
rest, a poison dose) after every change; when it fires, the writer applies
every effect due by then. What its clock does as GMs come and go is
decided in vigil.net.presence. The changes themselves go through the
writer like any other; this module says when.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from vigil.changes import Change
from vigil.net import metrics
from vigil.net.host import TableHost
from vigil.net.tasks import Tasks
from vigil.rules.game import Ctx
from vigil.rules.outcome import RuleError
from vigil.table import Table

Fire = Callable[[TableHost], Coroutine[Any, Any, None]]
# The wakes under way: kept referenced until done, a failure logged.
_FIRING = Tasks("timers")


def arm(host: TableHost, fire: Fire) -> None:
    """Wake ``fire(host)`` when the table's next effect is due (if the
    clock will get there by itself)."""
    disarm(host)
    wake = host.table.next_wake()
    if wake is None:
        return
    loop = asyncio.get_running_loop()
    delay = max(0.0, wake - time.time())
    host.timer = loop.call_later(delay, _wake, loop, fire, host, wake)


def _wake(loop: asyncio.AbstractEventLoop, fire: Fire, host: TableHost, due: float) -> None:
    """The timer armed for wall time ``due`` fired: how late (metrics), then ``fire``."""
    metrics.timer_fired(due)
    _FIRING.spawn(fire(host))


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
