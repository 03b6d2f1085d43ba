"""HUR-09 daily recovery and HUR-10 rest conditions.

Once per day (day = ⌊clock / 86400⌋) a character that wakes from sleep rolls
constitution against its wounds and willpower against its shocks, each only
when it has some. The GM's "morning" command wakes one character or all;
with table option ``wake_hour`` the clock does it at that hour of each day.
The night's terms (HUR-10) come from the command, or from what the GM set
with ``hursagmu.rest_terms`` during the night; waking consumes them.
"""

from __future__ import annotations

from vigil.rules.clock import DAY, HOUR
from vigil.rules.game import Ctx, Due
from vigil.rules.hursagmu.commands import Morning, SetRest
from vigil.rules.hursagmu.conditions import conditions, final_status, settle
from vigil.rules.hursagmu.guards import living
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import Character, HursagmuTable, RestTerms
from vigil.rules.outcome import Event, RuleError

TRACKS = (
    ("wounds", "constitution", "wound_difficulty"),
    ("shocks", "willpower", "shock_difficulty"),
)


def day_of(now: float) -> int:
    return int(now // DAY)


def natural_recovery(table: HursagmuTable, char_id: str, terms: RestTerms, ctx: Ctx) -> list[Event]:
    """HUR-09/10 for one character that has not yet recovered today."""
    ch = table.characters[char_id]
    now = table.clock.now
    day = day_of(now)
    before = conditions(ch)
    ch.recovered_day = day
    ch.rest = RestTerms()
    if terms.spoiled:
        # HUR-10: strenuous activity prevents all of this morning's healing,
        # the healer's included (healing.py reads spoiled_day).
        ch.spoiled_day = day
        return [Event(code="rest_spoiled", at=now, char=char_id, rule="HUR-10", params={"day": day})]
    events: list[Event] = []
    for track, trait, difficulty_field in TRACKS:
        value: int = getattr(ch, track)
        if value == 0:
            continue
        difficulty: int = getattr(terms, difficulty_field)
        result = trait_roll(ctx.dice, ch.level(trait), value + difficulty)
        if result.success:
            setattr(ch, track, max(0, value - result.dx))
        params = {
            **result.params(),
            "track": track,
            "trait": trait,
            "difficulty": difficulty,
            "before": value,
            "after": getattr(ch, track),
            "day": day,
        }
        events.append(Event(code="recovery_rolled", at=now, char=char_id, rule="HUR-09", params=params))
    if not events:
        events.append(Event(code="nothing_to_recover", at=now, char=char_id, rule="HUR-09"))
    return events + settle(table, char_id, before)


def morning(table: HursagmuTable, cmd: Morning, ctx: Ctx) -> list[Event]:
    """The GM's "morning": one character (refused if it already recovered
    today) or every living character in id order (those that already did
    are skipped, with an event saying so)."""
    for cid in cmd.rest:
        if cid not in table.characters:
            raise RuleError("unknown_character", char=cid)
        if cmd.char is not None and cid != cmd.char:
            raise RuleError("rest_terms_other", rule="HUR-10", char=cid)
    day = day_of(table.clock.now)
    if cmd.char is not None:
        ch = living(table, cmd.char)
        if ch.recovered_day == day:
            raise RuleError("already_recovered", rule="HUR-09", char=cmd.char, day=day)
        return natural_recovery(table, cmd.char, cmd.rest.get(cmd.char, ch.rest), ctx)
    events: list[Event] = []
    for cid in sorted(table.characters):
        ch = table.characters[cid]
        if final_status(ch) is not None:
            continue
        if ch.recovered_day == day:
            params = {"day": day}
            events.append(
                Event(
                    code="recovery_skipped",
                    at=table.clock.now,
                    char=cid,
                    rule="HUR-09",
                    params=params,
                )
            )
            continue
        events += natural_recovery(table, cid, cmd.rest.get(cid, ch.rest), ctx)
    return events


def set_rest(table: HursagmuTable, cmd: SetRest) -> list[Event]:
    """HUR-10: the terms of the night under way, used by the next waking."""
    ch = living(table, cmd.char)
    ch.rest = RestTerms(
        wound_difficulty=cmd.wound_difficulty,
        shock_difficulty=cmd.shock_difficulty,
        spoiled=cmd.spoiled,
    )
    params = {
        "wound_difficulty": cmd.wound_difficulty,
        "shock_difficulty": cmd.shock_difficulty,
        "spoiled": cmd.spoiled,
    }
    return [Event(code="rest_terms_set", at=table.clock.now, char=cmd.char, rule="HUR-10", params=params)]


def wake_dues(table: HursagmuTable) -> list[Due]:
    """HUR-09 with ``wake_hour``: each living character's next waking is
    today's wake hour if the clock has not passed it and it has not yet
    recovered today, else tomorrow's. A pure function of the state and the
    clock: firing at the hour itself marks the day, which moves the due on."""
    wakes = ((cid, next_wake(table, ch)) for cid, ch in table.characters.items())
    return [Due(at, cid, "HUR-09") for cid, at in wakes if at is not None]


def next_wake(table: HursagmuTable, ch: Character) -> float | None:
    """When the clock wakes ``ch`` next (``wake_hour``; None without it or
    in a final state): today's hour if not passed and not yet recovered
    today, else tomorrow's."""
    hour = table.options.wake_hour
    if hour is None or final_status(ch) is not None:
        return None
    now = table.clock.now
    today = day_of(now)
    today_at = today * DAY + hour * HOUR
    pending_today = now <= today_at and ch.recovered_day != today
    return today_at if pending_today else today_at + DAY


def next_recovery_roll(table: HursagmuTable, ch: Character) -> float | None:
    """When the clock's next waking rolls dice for ``ch`` (its wounds or
    shocks, on a night not spoiled): what a page counts down to, since its
    outcome is random. None when that waking would roll nothing."""
    if (ch.wounds == 0 and ch.shocks == 0) or ch.rest.spoiled:
        return None
    return next_wake(table, ch)


def fire_wake(table: HursagmuTable, char_id: str, ctx: Ctx) -> list[Event]:
    ch = table.characters[char_id]
    return natural_recovery(table, char_id, ch.rest, ctx)
