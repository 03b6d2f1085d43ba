"""Who may be the subject of a command: an existing character, not in a
final state (only correct/revive leave one: "Corrections and revive" in
:data:`vigil.rules.reference.COMMON`), and for anything it must do itself,
awake (HUR-04: it can do nothing)."""

from __future__ import annotations

from vigil.rules.hursagmu.conditions import final_status, is_unconscious
from vigil.rules.hursagmu.state import MAX_COUNTER, Character, HursagmuTable
from vigil.rules.outcome import RuleError


def living(table: HursagmuTable, char_id: str) -> Character:
    ch = table.characters.get(char_id)
    if ch is None:
        raise RuleError("unknown_character", char=char_id)
    status = final_status(ch)
    if status is not None:
        raise RuleError(
            "final_state",
            rule="HUR-05" if status == "dead" else "HUR-06",
            char=char_id,
            status=status,
        )
    return ch


def awake(table: HursagmuTable, char_id: str) -> Character:
    """HUR-04: an unconscious character is senseless and can do nothing."""
    ch = living(table, char_id)
    if is_unconscious(ch):
        raise RuleError("unconscious", rule="HUR-04", char=char_id)
    return ch


def add(ch: Character, track: str, amount: int) -> int:
    """Add harm to ``track`` ("stuns", "wounds", "shocks") within the state's
    bound; returns the new value."""
    value = min(MAX_COUNTER, int(getattr(ch, track)) + amount)
    setattr(ch, track, value)
    return value
