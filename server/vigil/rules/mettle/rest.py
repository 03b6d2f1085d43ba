"""Adequate rest and Respite (MET-17, MET-18, MET-19).

A rest stretch is anchored at ``rest_since``; its hour boundaries are
``rest_since + k hours``. ``rest_hours`` is the last boundary whose effect
was applied. When pain is 0 there is nothing to do at an hour boundary, so
the only pending effect is the next Respite (and none without injuries);
the hours still pass and are counted from the clock (:func:`hours_done`),
which keeps a long rest cheap and a clock jump bounded.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from vigil.rules.clock import HOUR
from vigil.rules.mettle import conditions
from vigil.rules.mettle.state import Character
from vigil.rules.outcome import Event

RESPITE_HOURS = 24


class RestEffect(NamedTuple):
    time: float
    rule: str
    hour: int


def start(char: Character, now: float, char_id: str) -> list[Event]:
    char.resting = True
    char.rest_since = now
    char.rest_hours = 0
    return [Event(code="rest_started", at=now, char=char_id, rule="MET-17")]


def stop(char: Character, now: float, char_id: str) -> list[Event]:
    params = {"hours": hours_done(char, now)}
    char.resting = False
    char.rest_since = None
    char.rest_hours = 0
    return [Event(code="rest_stopped", at=now, char=char_id, rule="MET-17", params=params)]


def interrupt(char: Character, now: float, char_id: str, reason: str) -> list[Event]:
    """MET-17: strenuous activity or new pain, rattle or injury restarts the
    current hour and the Respite count (MET-18); pain already recovered stays
    recovered, and the character is still resting."""
    if not char.resting:
        return []
    params = {"reason": reason, "hours": hours_done(char, now)}
    char.rest_since = now
    char.rest_hours = 0
    return [Event(code="rest_interrupted", at=now, char=char_id, rule="MET-17", params=params)]


def boundary(char: Character, hour: int) -> float:
    assert char.rest_since is not None
    return char.rest_since + hour * HOUR


def _elapsed(char: Character, now: float, *, strict: bool = False) -> int:
    """Full hours of the stretch by ``now`` (boundaries ``<= now``, or
    ``< now`` when ``strict``), exactly consistent with :func:`boundary`
    (float division alone may round across a boundary)."""
    if not char.resting or char.rest_since is None:
        return 0

    def passed(hour: int) -> bool:
        edge = boundary(char, hour)
        return edge < now if strict else edge <= now

    hours = max(0, math.floor((now - char.rest_since) / HOUR))
    while passed(hours + 1):
        hours += 1
    while hours > 0 and not passed(hours):
        hours -= 1
    return hours


def hours_done(char: Character, now: float) -> int:
    """Full hours of uninterrupted rest in the current stretch."""
    return max(char.rest_hours, _elapsed(char, now))


def next_effect(char: Character, now: float) -> RestEffect | None:
    """The next hour that changes something: every hour while pain > 0
    (MET-17), else the next Respite while there are injuries (MET-18)."""
    if not char.resting or char.rest_since is None or char.status == "departed":
        return None
    # Hours that ended while there was nothing to do are not replayed; an
    # hour ending exactly now may still be pending (another character's
    # effect at the same time can fire first), so only earlier ones count.
    done = max(char.rest_hours, _elapsed(char, now, strict=True))
    if char.pain > 0:
        return RestEffect(boundary(char, done + 1), "MET-17", done + 1)
    if char.injuries:
        hour = (done // RESPITE_HOURS + 1) * RESPITE_HOURS
        return RestEffect(boundary(char, hour), "MET-18", hour)
    return None


def fire(char: Character, now: float, char_id: str, effect: RestEffect) -> list[Event]:
    """Apply the end of rest hour ``effect.hour``. Pain lowered by rest
    follows MET-08 and MET-12 (MET-19): wasted on a dying character that is
    not stabilized."""
    char.rest_hours = effect.hour
    events: list[Event] = []
    if effect.rule == "MET-17":
        params: dict[str, object] = {"hour": effect.hour}
        if char.status == "dying" and not char.stabilized:
            params["pain"] = char.pain
            events.append(Event(code="rest_hour_wasted", at=now, char=char_id, rule="MET-19", params=params))
        else:
            char.pain -= 1
            params["pain"] = char.pain
            events.append(Event(code="rest_hour", at=now, char=char_id, rule="MET-17", params=params))
            events += conditions.after_relief(char, now, char_id, "MET-19")
    if effect.hour % RESPITE_HOURS == 0:
        events += respite(char, now, char_id)
    return events


def respite(char: Character, now: float, char_id: str) -> list[Event]:
    """MET-18: after 24 uninterrupted hours each injury heals by 1; an injury
    at 0 is gone."""
    removed: list[str] = []
    kept = []
    for injury in char.injuries:
        if injury.penalty > 1:
            injury.penalty -= 1
            kept.append(injury)
        else:
            removed.append(injury.id)
    char.injuries = kept
    params = {
        "injuries": [{"id": i.id, "penalty": i.penalty} for i in char.injuries],
        "removed": removed,
    }
    return [Event(code="respite", at=now, char=char_id, rule="MET-18", params=params)]
