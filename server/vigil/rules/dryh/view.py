"""What clients are shown: derived numbers, badges, and an open roll's dice.

``derived`` is for viewers who see a character's numbers (GM, its player,
``full`` visibility); it includes the character's open roll in full.
``public_roll`` is the part of an open roll that a ``status``-visibility
viewer may see (docs/design.md "Visibility": an open roll's dice): the phase, the
challenge kind, the dice faces per pool and what they say — no sheet values
and no declarations. ``summary`` gives the badges.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, get_args

import msgspec

from vigil.rules import engine
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.consequences import check_failure, choose, resolve
from vigil.rules.dryh.dominance import strengths
from vigil.rules.dryh.reading import explain, pools_of
from vigil.rules.dryh.recovery import recover_cost
from vigil.rules.dryh.roll import busy_in
from vigil.rules.dryh.state import CRASH_ABOVE, Character, DryhTable, Roll
from vigil.rules.game import CARRIED, Summary
from vigil.rules.outcome import RuleError


def _character(t: DryhTable, char: str) -> Character:
    c = t.characters.get(char)
    if c is None:
        raise RuleError("unknown_character", char=char)
    return c


def roll_view(t: DryhTable, char: str, r: Roll, shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """An open roll with its current reading, including strengths, and the
    moves the rules would accept now (:func:`legal_moves`). It is the same
    for every viewer, so with ``shared`` it is made once per state and kept
    there for every viewer's table view: callers never change it in place
    (:func:`_only_visible` makes a new dict)."""
    if shared is None:
        return _roll_view(t, char, r)
    key = "roll:" + char
    data: dict[str, Any] | None = shared.get(key)
    if data is None:
        # A roll's view is kept from state to state with what it was made
        # from: the many open rolls of a large table are not read, and
        # their legal moves not tried, again at every change of another.
        carried: dict[str, Any] | None = shared.get(CARRIED)
        inputs = _roll_reads(t, char, r)
        kept = None if carried is None else carried.get(key)
        if kept is not None and kept[0] == inputs:
            data = kept[1]
        else:
            data = _roll_view(t, char, r)
            if carried is not None:
                carried[key] = (inputs, data)
        shared[key] = data
    return data


def _roll_reads(t: DryhTable, char: str, r: Roll) -> tuple[Any, ...]:
    """All that a roll's view reads: the roll (its reading, strengths and
    explanation are the roll's alone) and what the rules read to accept or
    refuse its resolve and choices (:func:`legal_moves`): the characters in
    it (protagonist, helpers, those with a choice pending) and the table's
    options (response boxes, failure consequences). Not the coins, the
    session or the clock: resolve and choose change the despair and date
    their events, but no check of theirs reads them, so a coin spent
    elsewhere leaves every other open roll's view as it was
    (tests/server/test_incremental_property.py compares with views made
    from scratch)."""
    chars = tuple(t.characters.get(who) for who in (char, *r.helpers, *r.pending))
    return (r, chars, t.options)


def _roll_view(t: DryhTable, char: str, r: Roll) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(r)
    data["strengths"] = None if r.dice is None else strengths(pools_of(r.dice))
    # Why it reads as it does (core/explain.js words it: pages, chat card).
    data["explain"] = None if r.dice is None else explain(r)
    data["legal"] = legal_moves(t, char, r)
    return data


FAILURES: tuple[c.Failure, ...] = get_args(c.Failure)


def _passes(check: Callable[[], object]) -> bool:
    """Whether the rules accept what ``check`` does (no RuleError)."""
    try:
        check()
    except RuleError:
        return False
    return True


def _accepted(t: DryhTable, move: c.Resolve | c.Choose) -> bool:
    """Would the rules accept this move? Tried on a copy of the table, so
    the answer is the rules' own (no second list of conditions to keep in
    step with them) and the table itself is untouched. The copy is the
    engine's own (a msgpack round trip, ~15x cheaper than ``deepcopy``):
    this runs for candidate moves on every change of a DRYH table. A
    resolve is first put to DRYH-21's own check, which resolve makes before
    it changes anything: most are refused there, without a copy."""
    if isinstance(move, c.Resolve):
        return _passes(lambda: check_failure(t, t.rolls[move.char], move)) and _passes(
            lambda: resolve(engine.copy_state(t), move)
        )
    return _passes(lambda: choose(engine.copy_state(t), move))


def legal_moves(t: DryhTable, char: str, r: Roll) -> dict[str, Any]:
    """What a menu may offer for ``char``'s roll: the failure consequences
    a resolve would accept (DRYH-21: only with the option on, on a failed
    roll, never the dominant kind) and, per pending chooser, the choices
    that would not be refused (DRYH-14: nothing to uncheck is refused), so
    no client offers a move the server then refuses."""
    failures: list[str] = []
    if r.phase in ("rolled", "adjusted"):
        resolves = (c.Resolve(char=char, failure=f) for f in FAILURES)
        failures = [m.failure for m in resolves if _accepted(t, m)]
    choices: dict[str, list[str]] = {}
    if r.phase == "resolved":
        for who, kind in r.pending.items():
            moves = (c.Choose(char=char, who=who, choice=x) for x in c.PENDING_CHOICES[kind])
            choices[who] = [m.choice for m in moves if _accepted(t, m)]
    return {"failures": failures, "choices": choices}


def public_roll(t: DryhTable, char: str) -> dict[str, Any] | None:
    """The open roll of ``char`` as a status-visibility viewer sees it."""
    _character(t, char)
    r = t.rolls.get(char)
    if r is None:
        return None
    return {
        "phase": r.phase,
        "kind": r.kind,
        "helpers": list(r.helpers),
        "dice": None if r.dice is None else msgspec.to_builtins(r.dice),
        "success": r.success,
        "dominant": r.dominant,
    }


def _status_seen(t: DryhTable, char: str, visible: frozenset[str]) -> dict[str, Any]:
    return _only_visible(public_roll(t, char) or {}, visible)


def public_table(
    t: DryhTable, full: frozenset[str], status: frozenset[str], shared: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Coins and session are public. An open roll shows in full to whoever
    sees its protagonist in full, as dice only to status viewers; either
    way, helpers the viewer may not see are left out (their ids, their dice
    and their pending choices), so a hidden helper never shows through."""
    visible = full | status
    rolls: dict[str, Any] = {}
    for char, r in t.rolls.items():
        if char in full:
            data = roll_view(t, char, r, shared)
            rolls[char] = _seen("seen:" + char, data, visible, shared, partial(_only_visible, data))
        elif char in status:
            rolls[char] = _seen("status:" + char, r, visible, shared, partial(_status_seen, t, char))
    return {
        "hope": t.hope,
        "despair": t.despair,
        "session": msgspec.to_builtins(t.session),
        "rolls": rolls,
    }


def _seen(
    key: str,
    source: object,
    visible: frozenset[str],
    shared: dict[str, Any] | None,
    seen_by: Callable[[frozenset[str]], dict[str, Any]],
) -> dict[str, Any]:
    """A roll as one kind of viewer sees it, made by ``seen_by`` for the
    characters ``visible`` (:func:`_only_visible` of its view in full, or
    of a status viewer's ``public_roll``), kept (in
    ``shared``'s :data:`CARRIED`, under ``key``) for as long as ``source``
    (what it was made from: the roll's view, or the roll itself) is the
    same object: a roll nothing changed is then the same object in every
    state's table view, which the diffs pass over by identity. Per roll,
    one entry for each set of characters seen, dropped when its source
    changes."""
    carried: dict[str, Any] | None = None if shared is None else shared.get(CARRIED)
    if carried is None:
        return seen_by(visible)
    kept: tuple[object, dict[frozenset[str], dict[str, Any]]] | None = carried.get(key)
    if kept is None or kept[0] is not source:
        kept = carried[key] = (source, {})
    seen = kept[1].get(visible)
    if seen is None:
        seen = kept[1][visible] = seen_by(visible)
    return seen


def _only_visible(roll: dict[str, Any], visible: frozenset[str]) -> dict[str, Any]:
    """The roll less the helpers the viewer may not see. The reading stays
    the rules' own (a hidden helper's dice still count towards the
    successes, and so the outcome), so a roll whose dice include a hidden
    helper's says ``includes_unseen_help``: the totals are not the sum of
    the dice shown, and the flag says neither whose help nor how much.
    ``roll`` is left as it is (it may be shared by other viewers' views):
    the dicts changed here are new ones."""
    roll = dict(roll)
    helpers = roll.get("helpers", [])
    roll["helpers"] = [h for h in helpers if h in visible]
    dice = roll.get("dice")
    roll["includes_unseen_help"] = dice is not None and len(roll["helpers"]) < len(helpers)
    if dice is not None:
        dice = roll["dice"] = dict(dice)
        dice["helpers"] = {h: f for h, f in dice.get("helpers", {}).items() if h in visible}
    if roll["includes_unseen_help"]:
        roll["explain"] = None  # its count of dice would tell how much unseen help there was
    if "pending" in roll:
        roll["pending"] = {c: k for c, k in roll["pending"].items() if c in visible}
    if "legal" in roll:  # a new dict: the legal moves may be shared by other views
        legal = roll["legal"]
        roll["legal"] = {**legal, "choices": {c: k for c, k in legal["choices"].items() if c in visible}}
    return roll


def derived(t: DryhTable, char: str) -> dict[str, Any]:
    """Numbers every full viewer needs, computed once on the server. The
    open roll itself is in the table's ``rolls`` (filtered per viewer by
    :func:`public_table`), not here: a character's derived values are
    shared by every audience, and a roll names other characters."""
    me = _character(t, char)
    boxes = t.options.response_boxes
    return {
        "status": me.status,
        "fight_free": boxes - me.fight,
        "flight_free": boxes - me.flight,
        "exhaustion_to_crash": max(CRASH_ABOVE + 1 - me.exhaustion, 0),
        "recover_cost": recover_cost(me.discipline),
        "in_a_roll": busy_in(t, char) is not None,
    }


def render_reads(t: DryhTable, char: str) -> tuple[Any, ...]:
    """What :func:`derived` and :func:`summary` read of the table-level
    state: the options and which roll the character takes part in."""
    return (t.options, busy_in(t, char))


def summary(t: DryhTable, char: str) -> Summary:
    """Badges only (DRYH has no timed rules, so no countdowns). Status
    precedence nightmare > crashed > awake is kept by the state itself."""
    me = _character(t, char)
    badges: list[str] = []
    if me.status != "awake":
        badges.append(me.status)
    if me.snapped:
        badges.append("snapped")
    return Summary(badges=badges)
