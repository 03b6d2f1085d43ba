"""Moves between active, unconscious, dying and departed (MET-06…MET-10, MET-20).

The transitions live in one place so that pain, healing, rest and the dying
clock can never disagree about which fields a status owns: ``dying_since``,
``departs_at``, ``stabilized`` and ``stabilized_at`` are set exactly while
dying (departed keeps them as the record of how it ended).
"""

from __future__ import annotations

from vigil.rules.clock import DAY, MINUTE
from vigil.rules.mettle.state import Character
from vigil.rules.outcome import Event


def fall_unconscious(char: Character, now: float, char_id: str, rule: str) -> list[Event]:
    """MET-06: a failed TYM with pain ≤ mettle."""
    _leave_dying(char)
    char.status = "unconscious"
    return [Event(code="fell_unconscious", at=now, char=char_id, rule=rule)]


def begin_dying(char: Character, now: float, char_id: str, rule: str) -> list[Event]:
    """MET-06/MET-10: dying, not stabilized, departs in mettle minutes."""
    char.status = "dying"
    char.stabilized = False
    char.stabilized_at = None
    char.dying_since = now
    char.departs_at = now + char.mettle * MINUTE
    params = {"departs_at": char.departs_at}
    return [Event(code="began_dying", at=now, char=char_id, rule=rule, params=params)]


def stabilize(char: Character, now: float, char_id: str, rule: str, by: str) -> list[Event]:
    """MET-10/MET-11: stabilized, the spirit stays mettle days from now."""
    char.stabilized = True
    char.stabilized_at = now
    char.departs_at = now + char.mettle * DAY
    params = {"departs_at": char.departs_at, "by": by}
    return [Event(code="stabilized", at=now, char=char_id, rule=rule, params=params)]


def depart(char: Character, now: float, char_id: str, rule: str, cause: str) -> list[Event]:
    """MET-20: final. Rest ends; nothing but a GM revive or correction leaves."""
    char.status = "departed"
    char.departed_at = now
    char.resting = False
    char.rest_since = None
    char.rest_hours = 0
    return [Event(code="departed", at=now, char=char_id, rule=rule, params={"cause": cause})]


def wake(char: Character, now: float, char_id: str, rule: str) -> list[Event]:
    """MET-07/MET-08: back to active (from unconscious or stabilized dying)."""
    _leave_dying(char)
    char.status = "active"
    return [Event(code="regained_consciousness", at=now, char=char_id, rule=rule)]


def after_relief(char: Character, now: float, char_id: str, rule: str) -> list[Event]:
    """MET-08/MET-12/MET-19: where lowered pain leaves a character. Pain below
    mettle wakes it; a stabilized dying character at exactly mettle is no
    longer dying but stays unconscious (the Decision of MET-08 in
    :mod:`.rule_book`: equal keeps unconscious); above mettle it stays dying
    with the same deadline."""
    if char.status == "unconscious" and char.pain < char.mettle:
        return wake(char, now, char_id, rule)
    if char.status == "dying" and char.stabilized and char.pain <= char.mettle:
        if char.pain < char.mettle:
            return wake(char, now, char_id, rule)
        _leave_dying(char)
        char.status = "unconscious"
        return [Event(code="no_longer_dying", at=now, char=char_id, rule=rule)]
    return []


def _leave_dying(char: Character) -> None:
    """MET-12: leaving dying clears ``stabilized`` and the deadline."""
    char.stabilized = False
    char.stabilized_at = None
    char.dying_since = None
    char.departs_at = None
