"""Taking pain and Test Your Mettle (MET-05…MET-09).

TYM is an ordinary check (MET-01) of mettle against the new total pain, with
the injury penalty (MET-03) and without rattle (MET-04); what a pass or a
fail means depends on the status the pain found the character in.
"""

from __future__ import annotations

from vigil.rules.clock import GameClock
from vigil.rules.mettle import conditions
from vigil.rules.mettle.check import resolve
from vigil.rules.mettle.rest import interrupt
from vigil.rules.mettle.state import Character, Lot
from vigil.rules.outcome import Event


def take_pain(
    char: Character, clock: GameClock, char_id: str, amount: int, lot: Lot, drawn: bool
) -> list[Event]:
    """MET-05: pain is added, then TYM. New pain also interrupts rest (MET-17)."""
    now = clock.now
    char.pain += amount
    events = [
        Event(
            code="pain_taken",
            at=now,
            char=char_id,
            rule="MET-05",
            params={"amount": amount, "pain": char.pain},
        )
    ]
    tym = resolve(char, clock, stat=char.mettle, modifiers=0, tn=char.pain, kind="tym", lot=lot, drawn=drawn)
    events.append(Event(code="tym", at=now, char=char_id, rule="MET-05", params=tym))
    events += _outcome(char, now, char_id, passed=tym["passed"], lot=lot)
    events += interrupt(char, now, char_id, "pain")
    return events


def _outcome(char: Character, now: float, char_id: str, *, passed: bool, lot: Lot) -> list[Event]:
    if char.status == "active":
        # MET-06: a pass keeps fighting; a fail falls by the pain/mettle test.
        return [] if passed else _fall(char, now, char_id, "MET-06")
    if char.status == "unconscious":
        # MET-07: a crit wakes, a plain pass changes nothing, a fail may
        # push into dying (MET-06's test).
        if lot == "crit":
            return conditions.wake(char, now, char_id, "MET-07")
        if passed or char.pain <= char.mettle:
            return []
        return conditions.begin_dying(char, now, char_id, "MET-07")
    # MET-09: dying (stabilized or not): a pass keeps the spirit in the body,
    # with its deadline and stabilization unchanged (MET-12); a fail departs.
    if passed:
        return []
    return conditions.depart(char, now, char_id, "MET-09", cause="tym")


def _fall(char: Character, now: float, char_id: str, rule: str) -> list[Event]:
    if char.pain <= char.mettle:
        return conditions.fall_unconscious(char, now, char_id, rule)
    return conditions.begin_dying(char, now, char_id, rule)


def heal(char: Character, now: float, char_id: str, amount: int) -> list[Event]:
    """MET-08/MET-12: esoteric healing. Wasted on a dying character that is
    not stabilized (pain unchanged, but the history says so)."""
    if char.status == "dying" and not char.stabilized:
        params = {"amount": amount, "pain": char.pain}
        return [Event(code="healing_wasted", at=now, char=char_id, rule="MET-12", params=params)]
    healed = min(amount, char.pain)
    char.pain -= healed
    params = {"amount": amount, "healed": healed, "pain": char.pain}
    events = [Event(code="healed", at=now, char=char_id, rule="MET-08", params=params)]
    return events + conditions.after_relief(char, now, char_id, "MET-08")
