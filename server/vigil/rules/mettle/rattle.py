"""Rattle (MET-13, MET-14, MET-15).

Rattle is stored as a value and the clock time it was last set, so clients
draw it falling without a message per second, and the only timed effect is
the moment it reaches 0 (MET-14). Wear-off is whole seconds: after ``k``
full seconds out of combat, ``k`` rattle is gone.
"""

from __future__ import annotations

import math

from vigil.rules.clock import GameClock
from vigil.rules.mettle.state import Character
from vigil.rules.outcome import Event


def _ticks(char: Character, clock: GameClock) -> int:
    """Whole seconds of wear-off since ``rattle_set_at`` (0 in combat)."""
    return 0 if clock.in_combat else _worn(char, clock.now)


def _worn(char: Character, now: float) -> int:
    if char.rattle_set_at is None:
        return 0
    return max(0, math.floor(now - char.rattle_set_at))


def rattle_now(char: Character, clock: GameClock) -> int:
    """MET-14: the effective rattle at ``clock.now``; never below 0 (MET-15)."""
    return max(0, char.rattle - _ticks(char, clock))


def zero_at(char: Character, clock: GameClock) -> float | None:
    """When rattle reaches 0 by wearing off (None in combat or at 0)."""
    if clock.in_combat or char.rattle == 0 or char.rattle_set_at is None:
        return None
    return char.rattle_set_at + char.rattle


def materialize(char: Character, clock: GameClock) -> None:
    """Store the effective rattle now. Out of combat the anchor moves by the
    whole seconds already worn off, so a part-second in progress still
    counts (a command in between never slows the wear-off)."""
    ticks = _ticks(char, clock)
    value = max(0, char.rattle - ticks)
    if value == 0 or clock.in_combat or char.rattle_set_at is None:
        char.rattle_set_at = clock.now
    else:
        char.rattle_set_at += ticks
    char.rattle = value


def change(char: Character, clock: GameClock, delta: int, *, rule: str, char_id: str) -> list[Event]:
    """Add ``delta`` (negative relieves) to the effective rattle, not below 0
    (MET-15). Reaching 0 drops leftover Effort (MET-13) and is recorded."""
    materialize(char, clock)
    before = char.rattle
    char.rattle = max(0, before + delta)
    if before > 0 and char.rattle == 0:
        return gone(char, clock, rule=rule, char_id=char_id)
    return []


def gone(char: Character, clock: GameClock, *, rule: str, char_id: str) -> list[Event]:
    """Rattle has just reached 0: leftover Effort is dropped (MET-13)."""
    char.rattle = 0
    char.rattle_set_at = clock.now
    char.effort_toward_rattle = 0
    return [Event(code="rattle_gone", at=clock.now, char=char_id, rule=rule)]


def combat(char: Character, clock: GameClock, starting: bool, char_id: str) -> list[Event]:
    """MET-14: wear-off stops while in combat and resumes when it ends. On a
    start (the clock's flag already flipped) the value worn off until now is
    kept; on an end, wear-off counts from now."""
    events: list[Event] = []
    if starting:
        before = char.rattle
        char.rattle = max(0, before - _worn(char, clock.now))
        if before > 0 and char.rattle == 0:
            events = gone(char, clock, rule="MET-14", char_id=char_id)
    char.rattle_set_at = clock.now
    return events
