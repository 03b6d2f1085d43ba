"""Presence, decided as pure functions (values in, a decision out; no
clock read, no socket, no store): what a table's clock does as GMs come
and go, and when a GM's presence is marked.

A running clock pauses when the last GM leaves (unless the table's
``pause_without_gm`` setting is off), so that nobody dies between
sessions, and runs again when a GM comes back. Across a restart too: a
clean stop pauses it; after a crash it stops where it stood at the last
presence mark (written every ``presence_mark_seconds`` while a GM is
connected), so the downtime is not counted. The hub (vigil.net.hub) is the
driver: it counts who is here, asks these, and has the writer make the
changes they name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from vigil.changes import Change
from vigil.rules.game import Ctx
from vigil.table import Table

# How many leases, beyond a mark's own period, a mark may be old and still
# mean a GM was connected to the node that had the table a moment ago: the
# time a failover takes (the former owner's lease running out, then a sweep
# taking the table), with room to spare.
MARK_LEASES = 3


def holds(table: Table) -> bool:
    """Whether ``table``'s clock is running and must pause while no GM is
    connected (its ``pause_without_gm`` setting)."""
    return bool(table.settings.get("pause_without_gm", True)) and table.anchor.mode == "running"


def unattended(table: Table, gms: int) -> bool:
    """Whether a table with ``gms`` GMs connected has a running clock that
    must pause now."""
    return gms == 0 and holds(table)


def pauses_after(table: Table, role: str, gms: int) -> bool:
    """Whether a connection of ``role`` leaving, ``gms`` GMs left, was the
    last GM of a table whose running clock must then pause."""
    return role == "gm" and unattended(table, gms)


def resumes_for(table: Table, role: str) -> bool:
    """Whether a connection of ``role`` joining is a GM coming back to a
    clock paused for want of one (before a restart, too: the anchor keeps
    why it is paused)."""
    return role == "gm" and table.anchor.awaiting_gm


def marks_at_once(table: Table, role: str, gms: int) -> bool:
    """Whether a connection of ``role`` joining (``gms`` GMs now, itself
    counted) is the first GM of a running clock: its presence is marked at
    once, not at the next mark, so that a crash (or a failover) in the
    meantime does not stop the clock where it stood before."""
    return role == "gm" and table.anchor.mode == "running" and gms == 1


def present(tables: Iterable[tuple[Table, int]]) -> list[str]:
    """Of ``tables`` (each with how many GMs are connected), the ones whose
    running clock a connected GM keeps running: those a mark is written for."""
    return [table.id for table, gms in tables if gms and table.anchor.mode == "running"]


def runs_on(mark: float | None, now: float, mark_seconds: float, lease_seconds: float) -> bool:
    """Whether a table just taken from another node keeps its clock running:
    a GM was marked present there lately (``mark``, at wall time ``now``),
    so one was connected a moment ago and may come back here."""
    return mark is not None and now - mark < mark_seconds + MARK_LEASES * lease_seconds


def held_since(table: Table, mark: float | None) -> float | None:
    """On a start, the wall time where a table's running clock stops, if
    it must: no GM is connected yet, so it pauses as it stood at the last
    moment a GM was known present — the store's presence ``mark``, or the
    clock's own last change if that is later (a GM ran it then) — and the
    downtime is not counted. A clean stop has paused it already."""
    if not holds(table):
        return None
    return max(mark or table.anchor.wall, table.anchor.wall)


def auto_pause(table: Table, wall: float, ctx: Ctx) -> Change:
    return table.hold(wall, wall, ctx)


def pause_at(at: float) -> Callable[[Table, float, Ctx], Change]:
    """The pause at wall time ``at`` (before now) of :func:`held_since`."""
    return lambda t, w, c: t.hold(w, at, c)


def auto_resume(table: Table, wall: float, ctx: Ctx) -> Change:
    return table.resume(wall, ctx)
