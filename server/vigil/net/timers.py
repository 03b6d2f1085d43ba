"""Timers and presence: when a table wakes by itself, and what its clock
does with nobody asking.

A table's timer is armed for its next due effect (a Dying countdown, a
rest, a poison dose) after every change; when it fires, the writer applies
every effect due by then. Presence: a running clock pauses when the last
GM leaves (unless the table's ``pause_without_gm`` setting is off), so that
nobody dies between sessions, and runs again when a GM comes back. Across
a restart too: a clean stop pauses it; after a crash it stops where it
stood at the last presence mark (written every ``presence_mark_seconds``
while a GM is connected), so the downtime is not counted. The
changes themselves go through the writer like any other; this module says
when, and what they are.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from vigil.changes import Change
from vigil.net import metrics
from vigil.net.host import Peer, TableHost
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


# -- presence -------------------------------------------------------------------


def pauses_after(host: TableHost, leaving: Peer) -> bool:
    """Whether ``leaving`` was the last GM of a table whose running clock
    must then pause."""
    return leaving.role == "gm" and host.gm_count() == 0 and holds(host.table)


def holds(table: Table) -> bool:
    """Whether ``table``'s clock is running and must pause while no GM is
    connected (its ``pause_without_gm`` setting)."""
    return bool(table.settings.get("pause_without_gm", True)) and table.anchor.mode == "running"


def resumes_for(host: TableHost, joining: Peer) -> bool:
    """Whether ``joining`` is a GM coming back to a clock paused for want
    of one (before a restart, too: the anchor keeps why it is paused)."""
    return joining.role == "gm" and host.table.anchor.awaiting_gm


def held_since(table: Table, mark: float | None) -> float | None:
    """On a start, the wall time where a table's running clock stops, if
    it must: no GM is connected yet, so it pauses as it stood at the last
    moment a GM was known present — the store's presence ``mark``, or the
    clock's own last change if that is later (a GM ran it then) — and the
    downtime is not counted. A clean stop has paused it already."""
    if not holds(table):
        return None
    return max(mark or table.anchor.wall, table.anchor.wall)


def present(hosts: Iterable[TableHost]) -> list[str]:
    """The tables whose running clock a connected GM keeps running: the
    ones a presence mark is written for."""
    return [h.table.id for h in hosts if h.gm_count() and h.table.anchor.mode == "running"]


def auto_pause(table: Table, wall: float, ctx: Ctx) -> Change:
    return table.hold(wall, wall, ctx)


def pause_at(at: float) -> Callable[[Table, float, Ctx], Change]:
    """The pause at wall time ``at`` (before now) of :func:`held_since`."""
    return lambda t, w, c: t.hold(w, at, c)


def auto_resume(table: Table, wall: float, ctx: Ctx) -> Change:
    return table.resume(wall, ctx)
