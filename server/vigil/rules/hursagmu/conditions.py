"""HUR-04, HUR-05, HUR-06: what the counters mean, and keeping the timed
parts of a character (unconscious rest, poisons) in step with them.

Every command and timed effect that changes a counter ends with
:func:`settle`, which reports the conditions gained and lost and reschedules
what the new condition implies; :func:`sync` is its silent half, also run
after corrections so that a GM-set value schedules what it should.
"""

from __future__ import annotations

from vigil.rules.clock import ROUND
from vigil.rules.hursagmu.state import Character, HursagmuTable
from vigil.rules.outcome import Event

UNCONSCIOUS_AT = 10  # HUR-04: ten stuns
SERIOUS_ABOVE = 10  # HUR-05: more than ten wounds
DEAD_AT = 20  # HUR-05: wounds reach twenty
DELIRIOUS_ABOVE = 10  # HUR-06: more than ten shocks
INSANE_AT = 20  # HUR-06: shocks reach twenty

RULE_OF = {
    "unconscious": "HUR-04",
    "seriously_injured": "HUR-05",
    "dead": "HUR-05",
    "delirious": "HUR-06",
    "insane": "HUR-06",
}


def final_status(ch: Character) -> str | None:
    """HUR-05 / HUR-06: dead and insane are final (only correct/revive)."""
    if ch.wounds >= DEAD_AT:
        return "dead"
    if ch.shocks >= INSANE_AT:
        return "insane"
    return None


def is_unconscious(ch: Character) -> bool:
    """HUR-04: ten stuns or more, and not already beyond it (dead, insane)."""
    return ch.stuns >= UNCONSCIOUS_AT and final_status(ch) is None


def conditions(ch: Character) -> list[str]:
    """The character's conditions. A final state hides the others: a dead
    character is not also "unconscious" for the badges."""
    final = [s for s, on in (("dead", ch.wounds >= DEAD_AT), ("insane", ch.shocks >= INSANE_AT)) if on]
    if final:
        return final
    out = []
    if ch.stuns >= UNCONSCIOUS_AT:
        out.append("unconscious")
    if ch.wounds > SERIOUS_ABOVE:
        out.append("seriously_injured")
    if ch.shocks > DELIRIOUS_ABOVE:
        out.append("delirious")
    return out


def _schedule(table: HursagmuTable, ch: Character) -> tuple[bool, float | None, bool]:
    """What the counters imply for the timed parts: whether the poisons go
    on, when the next rest round comes and whether a second action stays.

    A final character loses its poisons (no effect applies after death or
    madness, and a revived character must not take the missed doses all at
    once). An unconscious character out of combat rests every round from
    one round after it fell (HUR-08); in combat the GM's rounds drive it
    instead, so the clock schedule is dropped — never both for one round."""
    if final_status(ch) is not None:
        return False, None, False
    if ch.stuns >= UNCONSCIOUS_AT:
        if table.clock.in_combat:
            return True, None, False
        rest = ch.rest_next_at if ch.rest_next_at is not None else table.clock.now + ROUND
        return True, rest, False
    return True, None, ch.may_act_second


def in_step(table: HursagmuTable, ch: Character) -> bool:
    """Would :func:`sync` leave ``ch`` as it is? It only reads, so that a
    correction's validate copies only the characters out of step
    (:func:`vigil.rules.sharing.peek`)."""
    poisons_go_on, rest_next_at, may_act_second = _schedule(table, ch)
    return (
        (poisons_go_on or not ch.poisons)
        and ch.rest_next_at == rest_next_at
        and ch.may_act_second == may_act_second
    )


def sync(table: HursagmuTable, ch: Character) -> list[Event]:
    """Bring the schedule in line with the counters (:func:`_schedule`).
    Returns the poison-stopped events (empty when called from validate)."""
    poisons_go_on, ch.rest_next_at, ch.may_act_second = _schedule(table, ch)
    if poisons_go_on:
        return []
    now = table.clock.now
    events = [
        Event(
            code="poison_stopped",
            at=now,
            rule="HUR-13",
            params={"poison": pid, **ch.poisons[pid].said},
        )
        for pid in sorted(ch.poisons)
    ]
    ch.poisons = {}
    return events


def settle(table: HursagmuTable, char_id: str, before: list[str]) -> list[Event]:
    """Report what changed since ``before`` (from :func:`conditions`) and
    resync. On reaching a final state only that state is reported: "no longer
    unconscious" would misread a death."""
    ch = table.characters[char_id]
    after = conditions(ch)
    now = table.clock.now
    gained = [c for c in after if c not in before]
    lost = [] if final_status(ch) is not None else [c for c in before if c not in after]
    events = [
        Event(code="condition_ended", at=now, char=char_id, rule=RULE_OF[c], params={"condition": c})
        for c in lost
    ]
    events += [
        Event(code="condition_started", at=now, char=char_id, rule=RULE_OF[c], params={"condition": c})
        for c in gained
    ]
    for event in sync(table, ch):
        event.char = char_id
        events.append(event)
    return events
