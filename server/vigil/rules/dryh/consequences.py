"""DRYH-14…21: what a roll does to the characters, and crash and snap.

Consequences that need no choice apply when the GM resolves; those that do
(DRYH-14 discipline, DRYH-16 madness, for the protagonist and, for madness,
each helper, DRYH-20) wait in ``roll.pending`` and the roll stays in the
``resolved`` phase until the last one is made. A choice with a single
possible answer is made at once (Decisions of DRYH-14 and DRYH-16 in
:mod:`.rule_book`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from vigil.rules.dryh import commands as c
from vigil.rules.dryh.coins import despair_bought_pain
from vigil.rules.dryh.dominance import strengths
from vigil.rules.dryh.guards import open_roll
from vigil.rules.dryh.reading import explain, pools_of
from vigil.rules.dryh.state import CRASH_ABOVE, Character, DryhTable, Roll
from vigil.rules.outcome import Event, RuleError

Response = Literal["fight", "flight"]


def raise_exhaustion(t: DryhTable, char: str, rule: str) -> list[Event]:
    """Exhaustion +1 (DRYH-02/12/15/20/21), crashing above 6 (DRYH-17)."""
    me = t.characters[char]
    before = me.exhaustion
    me.exhaustion = min(before + 1, 30)
    events = [
        Event(
            code="exhaustion_raised",
            at=t.clock.now,
            char=char,
            rule=rule,
            params={"before": before, "after": me.exhaustion},
        )
    ]
    return events + crash_if_over(t, char)


def crash_if_over(t: DryhTable, char: str) -> list[Event]:
    """DRYH-17: exhaustion above 6 crashes an awake character. Status
    precedence nightmare > crashed > awake, so a nightmare stays one."""
    me = t.characters[char]
    if me.exhaustion > CRASH_ABOVE and me.status == "awake":
        me.status = "crashed"
        return [
            Event(
                code="crashed",
                at=t.clock.now,
                char=char,
                rule="DRYH-17",
                params={"exhaustion": me.exhaustion},
            )
        ]
    return []


def free(me: Character, kind: Response, boxes: int) -> bool:
    checked: int = getattr(me, kind)
    return checked < boxes


def check_response(t: DryhTable, char: str, kind: Response, rule: str) -> list[Event]:
    """Check one box of ``kind``; a full ``kind`` is refused while the other
    still has room, and with no room at all the character snaps (DRYH-18)."""
    me = t.characters[char]
    boxes = t.options.response_boxes
    if not free(me, kind, boxes):
        other: Response = "flight" if kind == "fight" else "fight"
        if free(me, other, boxes):
            raise RuleError("response_full", rule=rule, char=char, response=kind)
        return snap(t, char, rule)
    setattr(me, kind, getattr(me, kind) + 1)
    return [
        Event(
            code="response_checked",
            at=t.clock.now,
            char=char,
            rule=rule,
            params={"response": kind, "checked": getattr(me, kind)},
        )
    ]


def snap(t: DryhTable, char: str, cause: str) -> list[Event]:
    """DRYH-18: responses cleared, discipline −1, madness +1, snapped; at
    discipline 0 the character becomes a nightmare (an NPC, final)."""
    me = t.characters[char]
    me.fight = me.flight = 0
    me.discipline = max(me.discipline - 1, 0)
    me.madness = min(me.madness + 1, 30)
    me.snapped = True
    now = t.clock.now
    events = [
        Event(
            code="snapped",
            at=now,
            char=char,
            rule="DRYH-18",
            params={"cause": cause, "discipline": me.discipline, "madness": me.madness},
        )
    ]
    if me.discipline == 0:
        me.status = "nightmare"
        events.append(Event(code="became_nightmare", at=now, char=char, rule="DRYH-18"))
    return events


def madness_fallout(t: DryhTable, r: Roll, char: str, rule: str) -> list[Event]:
    """DRYH-16/20: check a response of the character's choice, or snap."""
    me = t.characters[char]
    boxes = t.options.response_boxes
    room: list[Response] = [k for k in ("fight", "flight") if free(me, k, boxes)]
    if len(room) == 2:
        r.pending[char] = "madness"
        return [
            Event(
                code="choice_pending",
                at=t.clock.now,
                char=char,
                rule=rule,
                params={"kind": "madness"},
            )
        ]
    if room:
        return check_response(t, char, room[0], rule)
    return snap(t, char, rule)


def discipline_fallout(t: DryhTable, r: Roll, char: str) -> list[Event]:
    """DRYH-14: the player may uncheck a response or drop one exhaustion."""
    me = t.characters[char]
    if me.fight or me.flight or me.exhaustion:
        r.pending[char] = "discipline"
        return [
            Event(
                code="choice_pending",
                at=t.clock.now,
                char=char,
                rule="DRYH-14",
                params={"kind": "discipline"},
            )
        ]
    return []


def record(char: str, r: Roll) -> dict[str, object]:
    """The full record of a roll for the history (dice faces included)."""
    data: dict[str, object] = msgspec.to_builtins(r)
    data.pop("pending", None)
    assert r.dice is not None
    data["strengths"] = strengths(pools_of(r.dice))
    data["protagonist"] = char
    data["explain"] = explain(r)
    return data


def resolve(t: DryhTable, cmd: c.Resolve) -> list[Event]:
    """DRYH-14…21: apply what dominated, then the GM's failure consequence."""
    r = open_roll(t, cmd.char, "rolled", "adjusted")
    check_failure(t, r, cmd)
    now = t.clock.now
    r.phase = "resolved"
    resolved = record(cmd.char, r)
    # The sentence's words ("Mina's roll is a failure"), never "success: no".
    resolved["outcome"] = "success" if resolved.get("success") else "failure"
    events = [Event(code="roll_resolved", at=now, char=cmd.char, rule="DRYH-05", params=resolved)]
    everyone = [cmd.char, *r.helpers]
    if r.dominant == "discipline":
        events += discipline_fallout(t, r, cmd.char)
    elif r.dominant == "exhaustion":
        for who in everyone:
            events += raise_exhaustion(t, who, "DRYH-15" if who == cmd.char else "DRYH-20")
    elif r.dominant == "madness":
        for who in everyone:
            events += madness_fallout(t, r, who, "DRYH-16" if who == cmd.char else "DRYH-20")
    elif r.dominant == "pain":
        events += pay_despair(t, r, cmd.char, everyone)
    if cmd.failure == "exhaustion":
        events += raise_exhaustion(t, cmd.char, "DRYH-21")
    elif cmd.failure != "none":
        events += check_response(t, cmd.char, cmd.failure, "DRYH-21")
    return events + close_if_done(t, cmd.char, r)


def pay_despair(t: DryhTable, r: Roll, char: str, everyone: list[str]) -> list[Event]:
    """DRYH-19/20: one coin into despair per affected character (a Decision
    of DRYH-20 in :mod:`.rule_book`), unless only the GM's despair spends made pain dominate
    (DRYH-10)."""
    now = t.clock.now
    if despair_bought_pain(r):
        return [Event(code="despair_withheld", at=now, char=char, rule="DRYH-10")]
    t.despair += len(everyone)
    return [
        Event(
            code="despair_paid",
            at=now,
            char=who,
            rule="DRYH-19" if who == char else "DRYH-20",
            params={"despair": t.despair},
        )
        for who in everyone
    ]


def check_failure(t: DryhTable, r: Roll, cmd: c.Resolve) -> None:
    """DRYH-21: only with the option on, only on a failed roll, and never the
    kind of consequence that dominated (exhaustion; madness checks a response)."""
    if cmd.failure == "none":
        return
    if not t.options.failure_consequences:
        raise RuleError("failure_consequences_off", rule="DRYH-21")
    if r.success:
        raise RuleError("roll_succeeded", rule="DRYH-21", char=cmd.char)
    same = "exhaustion" if cmd.failure == "exhaustion" else "madness"
    if r.dominant == same:
        raise RuleError("failure_same_kind", rule="DRYH-21", dominant=same)


def close_if_done(t: DryhTable, char: str, r: Roll) -> list[Event]:
    """A resolved roll leaves the table once no choice is pending."""
    if r.pending:
        return []
    del t.rolls[char]
    return [Event(code="roll_closed", at=t.clock.now, char=char, rule="DRYH-05")]


DISCIPLINE_CHOICES = frozenset(c.PENDING_CHOICES["discipline"])
MADNESS_CHOICES = frozenset(c.PENDING_CHOICES["madness"])


def choose(t: DryhTable, cmd: c.Choose) -> list[Event]:
    """DRYH-14/16/20: the pending choice of the protagonist or a helper."""
    r = open_roll(t, cmd.char, "resolved")
    who = cmd.who or cmd.char
    kind = r.pending.get(who)
    if kind is None:
        raise RuleError("no_pending_choice", char=who, owner=cmd.char)
    me = t.characters[who]
    now = t.clock.now
    if kind == "madness":
        if cmd.choice not in MADNESS_CHOICES:
            raise RuleError("bad_choice", rule="DRYH-16", choice=cmd.choice, kind=kind)
        response: Response = "fight" if cmd.choice == "check_fight" else "flight"
        rule = "DRYH-16" if who == cmd.char else "DRYH-20"
        events = check_response(t, who, response, rule)
    else:
        if cmd.choice not in DISCIPLINE_CHOICES:
            raise RuleError("bad_choice", rule="DRYH-14", choice=cmd.choice, kind=kind)
        field = {
            "uncheck_fight": "fight",
            "uncheck_flight": "flight",
            "exhaustion_down": "exhaustion",
        }.get(cmd.choice)
        if field is not None:
            if getattr(me, field) == 0:
                raise RuleError("nothing_to_remove", rule="DRYH-14", char=who, what=field)
            setattr(me, field, getattr(me, field) - 1)
        events = [
            Event(
                code="discipline_chosen",
                at=now,
                char=who,
                rule="DRYH-14",
                params={"choice": cmd.choice},
            )
        ]
    del r.pending[who]
    return events + close_if_done(t, cmd.char, r)
