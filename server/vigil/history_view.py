"""What each viewer may read of a table's history (docs/design.md "Visibility").

The history obeys the view: a viewer reads of each entry only what its view
of the table shows. Pure: a function of the log entries, the table and the
viewer (its role and characters), never of a connection.
"""

from __future__ import annotations

from typing import Any

from vigil.changes import LogEntry
from vigil.protocol import HistoryEntry
from vigil.table import Table
from vigil.views import Viewer

# Table-level events (no character) that any viewer may read; the rest of
# them (options, corrections of table fields…) are the GM's.
PUBLIC_TABLE_EVENTS = frozenset(
    {
        "combat_started",
        "combat_ended",
        "round_advanced",
        "clock_changed",
        "clock_auto_paused",
        "clock_halted",
        "session_started",
        "session_ended",
        "dice_revealed",
    }
)


# Event parameters about kit contents: like the sheet's kits, only for the
# GM and the player of the kit's owner (docs/design.md "Visibility").
KIT_PARAMS = frozenset({"kit", "kit_uses"})
# The parameter naming who acts for an event's character (a stabilize
# attempt's helper): the kit such an event spends is the helper's own.
HELPER_PARAM = "helper"


def history_page(entries: list[LogEntry], table: Table, viewer: Viewer) -> list[HistoryEntry]:
    """``entries`` of ``table``'s log as ``viewer`` may read them, each
    marked when a later undo took it back. An entry of which a player or
    spectator may read no event is left out: an empty entry would still
    tell it that, and when, something it may not see happened."""
    undone = {int(e.events[0]["params"]["rev"]) for e in entries if e.kind == "undo" and e.events}
    view = table.seen_by(viewer.audience)
    hidden = set(table.state.characters) - set(view["characters"]) - set(viewer.chars)
    page = [visible_entry(e, viewer, view, e.rev in undone, hidden) for e in entries]
    return page if viewer.role == "gm" else [e for e in page if e.events]


def visible_entry(
    entry: LogEntry, viewer: Viewer, view: dict[str, Any], undone: bool, hidden: set[str]
) -> HistoryEntry:
    """The history obeys the view: hidden characters' events are dropped,
    status-only characters' events lose their numbers, an event that names
    a hidden character (a helper, a healer) loses its parameters and text,
    table-level events are public only when listed, commands are GM-only."""
    is_gm = viewer.role == "gm"
    own = viewer.chars
    events: list[dict[str, Any]] = []
    # Whether the viewer reads every event whole: only then may it read the
    # change's dice too (a die of a character it may not see stays hidden,
    # and so does a die whose event it reads without numbers).
    whole = True
    for event in entry.events:
        char = event.get("char")
        if is_gm:
            events.append(event)
            continue
        if char is None:
            if event.get("code") not in PUBLIC_TABLE_EVENTS:
                whole = False
                continue
        elif char not in own and char not in view["characters"]:
            whole = False
            continue
        seen = view["characters"].get(char) if char is not None else None
        status_only = char is not None and char not in own and "sheet" not in (seen or {})
        kits = _kit_owner(event) not in own and bool(KIT_PARAMS & set(event.get("params", {})))
        if status_only or kits or _mentions(event.get("params"), hidden):
            # Numbers, kit contents or hidden names: the bare event only.
            events.append({k: event[k] for k in ("code", "at", "char", "rule") if k in event})
            whole = False
        else:
            events.append(event)
    return HistoryEntry(
        rev=entry.rev,
        at=entry.game,
        wall=entry.wall,
        actor=entry.actor if is_gm else entry.actor.split("#")[0],
        kind=entry.kind,
        events=events,
        command=entry.command if is_gm else None,
        undone=undone,
        dice=entry.dice if is_gm or whole else None,
    )


def _kit_owner(event: dict[str, Any]) -> Any:
    """Whose kit an event's kit parameters are about: the helper's when a
    helper acts (it spends its own kit on the event's character), else the
    event's character's."""
    return event.get("params", {}).get(HELPER_PARAM, event.get("char"))


def _mentions(value: Any, ids: set[str]) -> bool:
    if isinstance(value, str):
        return value in ids
    if isinstance(value, dict):
        return any(_mentions(k, ids) or _mentions(v, ids) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions(v, ids) for v in value)
    return False
