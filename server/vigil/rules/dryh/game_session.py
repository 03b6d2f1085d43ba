"""DRYH-25 and the despair of a game session (one evening of play): the GM
starts and ends sessions."""

from __future__ import annotations

from vigil.rules.dryh.state import DryhTable
from vigil.rules.outcome import Event, RuleError


def player_characters(t: DryhTable) -> int:
    """Characters that count for despair: not GM characters, not nightmares
    (a nightmare is an NPC now, DRYH-18)."""
    return sum(1 for c in t.characters.values() if not c.npc and c.status != "nightmare")


def session_start(t: DryhTable) -> list[Event]:
    """Core-book practice: the GM's despair gains ``despair_per_player``
    coins per player character, added to what is left (Decisions of "Start
    of session" in :mod:`.rule_book`)."""
    if t.session.active:
        raise RuleError("session_active", number=t.session.number)
    gained = t.options.despair_per_player * player_characters(t)
    t.despair += gained
    t.session.number += 1
    t.session.active = True
    params = {"number": t.session.number, "gained": gained, "despair": t.despair}
    return [Event(code="session_started", at=t.clock.now, params=params)]


def session_end(t: DryhTable) -> list[Event]:
    """DRYH-25: with ``hope_clears_at_session_end`` hope becomes 0."""
    if not t.session.active:
        raise RuleError("no_session", rule="DRYH-25")
    t.session.active = False
    cleared = t.hope if t.options.hope_clears_at_session_end else 0
    t.hope -= cleared
    params = {"number": t.session.number, "hope_cleared": cleared, "hope": t.hope}
    return [Event(code="session_ended", at=t.clock.now, rule="DRYH-25", params=params)]
