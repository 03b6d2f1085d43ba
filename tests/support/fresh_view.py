"""A table's view built from scratch, for the tests that prove the
incremental views (``TableViews``: renders kept by identity, memos, patches)
equal what a full render gives."""

from __future__ import annotations

from typing import Any

from vigil.table import Table, public_dice
from vigil.views import Audience, build_view, renders


def fresh_view(table: Table, audience: Audience) -> dict[str, Any]:
    """``audience``'s view of ``table`` with every character rendered anew
    and no memo: what the first version of the server sent."""
    return build_view(
        audience,
        table_id=table.id,
        name=table.name,
        system=table.system,
        state=table.state,
        chars=renders(table.system, table.state, table.doc["meta"]),
        anchor=table.anchor,
        settings=table.settings,
        undo=table.undo_next(),
        dice=public_dice(table.doc["dice"]),
    )
