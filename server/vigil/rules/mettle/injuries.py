"""Injuries (MET-16): tracked one by one, with stable ids.

Ids are never reused (``next_injury`` only grows), so a command or a patch
that names an injury can never hit a newer one that took its place.
"""

from __future__ import annotations

from vigil.rules.mettle.rest import interrupt
from vigil.rules.mettle.state import Character, Injury
from vigil.rules.outcome import Event, RuleError


def add(char: Character, now: float, char_id: str, label: str, penalty: int) -> list[Event]:
    """A new injury; receiving one interrupts rest (MET-17)."""
    injury = Injury(id=f"i{char.next_injury}", label=label, penalty=penalty)
    char.next_injury += 1
    char.injuries.append(injury)
    params = {"id": injury.id, "label": label, "penalty": penalty}
    event = Event(code="injury_added", at=now, char=char_id, rule="MET-16", params=params)
    return [event, *interrupt(char, now, char_id, "injury")]


def _find(char: Character, char_id: str, injury_id: str) -> Injury:
    for injury in char.injuries:
        if injury.id == injury_id:
            return injury
    raise RuleError("unknown_injury", rule="MET-16", char=char_id, injury=injury_id)


def remove(char: Character, now: float, char_id: str, injury_id: str) -> list[Event]:
    """MET-16: esoteric means remove a whole injury."""
    injury = _find(char, char_id, injury_id)
    char.injuries.remove(injury)
    params = {"id": injury.id, "label": injury.label}
    return [Event(code="injury_removed", at=now, char=char_id, rule="MET-16", params=params)]


def reduce(char: Character, now: float, char_id: str, injury_id: str, amount: int) -> list[Event]:
    """Esoteric means lower one penalty; at 0 the injury is gone (as MET-18)."""
    injury = _find(char, char_id, injury_id)
    if injury.penalty <= amount:
        return remove(char, now, char_id, injury_id)
    injury.penalty -= amount
    params = {"id": injury.id, "label": injury.label, "penalty": injury.penalty}
    return [Event(code="injury_reduced", at=now, char=char_id, rule="MET-16", params=params)]
