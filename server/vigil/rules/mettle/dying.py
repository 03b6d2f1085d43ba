"""The dying clock and stabilizing (MET-10, MET-11).

The check resolves when the attempt starts and the helper is then busy for
the target's current pain in minutes (a Decision of MET-11 in
:mod:`.rule_book`, which says why).
"""

from __future__ import annotations

from vigil.rules.clock import MINUTE, GameClock
from vigil.rules.dice import DiceSource
from vigil.rules.mettle import conditions
from vigil.rules.mettle.check import cast_lot, resolve
from vigil.rules.mettle.commands import Stabilize
from vigil.rules.mettle.state import Character, Options
from vigil.rules.outcome import Event, RuleError


def _require_unstabilized_dying(char: Character, char_id: str) -> None:
    if char.status != "dying":
        raise RuleError("not_dying", rule="MET-11", char=char_id)
    if char.stabilized:
        raise RuleError("already_stabilized", rule="MET-11", char=char_id)


def attempt(
    target: Character,
    helper: Character,
    cmd: Stabilize,
    clock: GameClock,
    options: Options,
    dice: DiceSource,
) -> list[Event]:
    """MET-11: the helper checks a discipline (level 0 if it has none) with
    its own injury and rattle penalties; one kit use is spent, pass or fail."""
    now = clock.now
    _require_unstabilized_dying(target, cmd.char)
    if helper.status != "active":
        raise RuleError("cannot_act", rule="MET-07", char=cmd.helper, status=helper.status)
    if helper.busy_until is not None and helper.busy_until > now:
        raise RuleError("helper_busy", rule="MET-11", char=cmd.helper, until=helper.busy_until)
    tn = cmd.tn if cmd.tn is not None else options.stabilize_tn
    if tn is None:
        raise RuleError("tn_required", rule="MET-11", char=cmd.char)
    uses = helper.kits.get(cmd.kit, 0)
    if uses <= 0:
        raise RuleError("no_kit_uses", rule="MET-11", char=cmd.helper, kit=cmd.kit)
    lot, drawn = cast_lot(cmd.lot, options, dice)
    helper.kits[cmd.kit] = uses - 1
    check = resolve(
        helper,
        clock,
        stat=helper.disciplines.get(cmd.discipline, 0),
        modifiers=cmd.modifiers,
        tn=tn,
        kind="check",
        lot=lot,
        drawn=drawn,
    )
    helper.busy_until = now + target.pain * MINUTE
    params = {
        **check,
        "helper": cmd.helper,
        "discipline": cmd.discipline,
        "kit": cmd.kit,
        "kit_uses": uses - 1,
        "busy_until": helper.busy_until,
    }
    events = [Event(code="stabilize_attempt", at=now, char=cmd.char, rule="MET-11", params=params)]
    if check["passed"]:
        events += conditions.stabilize(target, now, cmd.char, "MET-11", by=cmd.helper)
    return events


def by_fiat(char: Character, now: float, char_id: str, means: str) -> list[Event]:
    """MET-11: herbs, magic or successful healing aid, on the GM's word."""
    _require_unstabilized_dying(char, char_id)
    return conditions.stabilize(char, now, char_id, "MET-11", by=means or "gm")


def departure_due(char: Character) -> float | None:
    """MET-10: when the spirit leaves a dying body (None if not dying)."""
    return char.departs_at if char.status == "dying" else None


def fire_departure(char: Character, now: float, char_id: str) -> list[Event]:
    """MET-10: the deadline passed, whether or not anyone is connected."""
    return conditions.depart(char, now, char_id, "MET-10", cause="time")
