"""The command mix: which command a character gets next, and who sends it.

Each category of :data:`MIX` is drawn with its weight; the target is an idle
character (one command in flight per character, one table-level command in
flight per table) of a table whose game the category fits. The next command
is chosen from the GM's live view of the character (the generator keeps it
from the GM connection's snapshot and patches), so that the mix stays valid:
harm alternates with healing or a GM ``correct`` before anyone falls, and a
DRYH character is reset by ``correct`` before it could crash or snap. Against
the baseline (whose view has no characters) the same shapes are sent from a
fresh character's point of view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SYSTEM_ORDER = ("dryh", "mettle", "hursagmu")

# category -> (weight in percent, systems it applies to, description)
MIX: dict[str, tuple[int, tuple[str, ...], str]] = {
    "harm_heal": (
        40,
        SYSTEM_ORDER,
        "GM: mettle.pain/heal, hursagmu.harm or correct back, dryh correct exhaustion",
    ),
    "rattle_effort_rest": (
        20,
        ("mettle",),
        "mettle.rattle (GM), mettle.effort / rest_start / rest_stop (player)",
    ),
    "dryh_roll": (
        25,
        ("dryh",),
        "one step: dryh.open (GM) → dryh.roll (player) → dryh.resolve (GM) → dryh.choose if pending",
    ),
    "stabilize_recovery": (
        10,
        SYSTEM_ORDER,
        "mettle.relieve (GM), hursagmu.rest (player) or rest_terms, dryh.hope_spend (player) or hope",
    ),
    "clock_combat": (5, SYSTEM_ORDER, "GM: combat.start → combat.next_round ×2 → combat.end (table-level)"),
}

SHEETS: dict[str, dict[str, Any]] = {
    "dryh": {"discipline": 3},
    "mettle": {"mettle": 5},
    "hursagmu": {"traits": {"constitution": 3, "willpower": 3, "athlete": 2}},
}


@dataclass
class CharLocal:
    """What the generator remembers of a character between its commands,
    used when the view says nothing (the baseline)."""

    step: int = 0
    rest: bool = False


@dataclass
class Choice:
    body: dict[str, Any]
    by_owner: bool  # sent by the character's player (else by the GM)


@dataclass
class Plan:
    """Per-character memory for the baseline path."""

    local: dict[str, CharLocal] = field(default_factory=dict)


def _sheet(view: dict[str, Any] | None, char: str) -> dict[str, Any]:
    if not view:
        return {}
    entry = view.get("characters", {}).get(char)
    return entry.get("sheet", {}) if entry else {}


def choose(
    category: str,
    system: str,
    char: str,
    has_owner: bool,
    view: dict[str, Any] | None,
    local: CharLocal,
) -> Choice:
    """The next command of ``category`` for ``char`` (a player's command
    goes through the GM when the character has no player)."""
    local.step += 1
    sheet = _sheet(view, char)
    if category == "harm_heal":
        return Choice(_harm_heal(system, char, sheet, local), False)
    if category == "rattle_effort_rest":
        return _rattle_effort_rest(char, sheet, local, has_owner)
    if category == "dryh_roll":
        return _dryh_step(char, sheet, view, local, has_owner)
    if category == "stabilize_recovery":
        return _recovery(system, char, sheet, view, local, has_owner)
    raise ValueError(category)


def table_command(view: dict[str, Any] | None, local: CharLocal) -> dict[str, Any]:
    """clock_combat: start, two rounds, end, over and over."""
    local.step += 1
    if view and "clock" in view:
        clock = view["clock"]
        if not clock.get("in_combat"):
            return {"type": "combat.start"}
        if clock.get("round", 0) < 3:
            return {"type": "combat.next_round"}
        return {"type": "combat.end"}
    phase = local.step % 4
    return {"type": ("combat.start", "combat.next_round", "combat.next_round", "combat.end")[phase]}


def _correct(char: str | None, field_: str, value: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "correct", "field": field_, "value": value}
    if char is not None:
        body["char"] = char
    return body


def _harm_heal(system: str, char: str, sheet: dict[str, Any], local: CharLocal) -> dict[str, Any]:
    if system == "mettle":
        if sheet.get("pain", local.step % 2) >= 2:
            return {"type": "mettle.heal", "char": char, "amount": 2}
        return {"type": "mettle.pain", "char": char, "amount": 1}
    if system == "hursagmu":
        tracks = ("stuns", "wounds", "shocks")
        worst = max(tracks, key=lambda t: sheet.get(t, 0))
        if sheet.get(worst, 0) >= 3:
            return _correct(char, worst, 0)
        track = tracks[local.step % 3]
        return {"type": "hursagmu.harm", "char": char, track: 1}
    exhaustion = sheet.get("exhaustion", local.step % 2)
    return _correct(char, "exhaustion", 0 if exhaustion >= 2 else exhaustion + 1)


def _rattle_effort_rest(char: str, sheet: dict[str, Any], local: CharLocal, owner: bool) -> Choice:
    phase = local.step % 4
    resting = sheet.get("resting", local.rest) if sheet else local.rest
    if phase == 0 or (phase == 1 and not sheet.get("rattle", 1)):
        return Choice({"type": "mettle.rattle", "char": char, "amount": 1}, False)
    if phase == 1:
        return Choice({"type": "mettle.effort", "char": char, "effort": 4}, owner)
    local.rest = not resting
    kind = "mettle.rest_stop" if resting else "mettle.rest_start"
    return Choice({"type": kind, "char": char}, owner)


_RESET = {"exhaustion": 0, "madness": 0, "fight": 0, "flight": 0, "discipline": 3, "snapped": False}


def _dryh_step(
    char: str, sheet: dict[str, Any], view: dict[str, Any] | None, local: CharLocal, owner: bool
) -> Choice:
    rolls = (view or {}).get("game", {}).get("rolls", {})
    roll = rolls.get(char)
    if view is None or "game" not in view:
        phase = ("open", "roll", "resolve")[local.step % 3]
        roll = None if phase == "open" else {"phase": "open" if phase == "roll" else "rolled"}
    if roll is None:
        # Before a new roll: put back whatever a past roll piled up, one
        # field per correction, so the character never crashes or snaps.
        if sheet:
            for name, value in _RESET.items():
                limit = 2 if name in ("exhaustion", "fight", "flight") else 0
                current = sheet.get(name, value)
                off = current != value if name in ("discipline", "snapped", "madness") else current > limit
                if off:
                    return Choice(_correct(char, name, value), False)
        return Choice({"type": "dryh.open", "char": char, "pain": 2}, False)
    phase = roll.get("phase")
    if phase in ("open", "declared"):
        return Choice({"type": "dryh.roll", "char": char}, owner)
    if phase in ("rolled", "adjusted"):
        return Choice({"type": "dryh.resolve", "char": char}, False)
    pending = roll.get("pending") or {}
    kind = pending.get(char)
    if kind == "madness":
        pick = "check_fight" if sheet.get("fight", 0) <= sheet.get("flight", 0) else "check_flight"
    else:
        pick = "nothing"
    return Choice({"type": "dryh.choose", "char": char, "choice": pick}, owner)


def _recovery(
    system: str,
    char: str,
    sheet: dict[str, Any],
    view: dict[str, Any] | None,
    local: CharLocal,
    owner: bool,
) -> Choice:
    if system == "mettle":
        if sheet.get("rattle", 1) >= 1:
            return Choice({"type": "mettle.relieve", "char": char, "amount": 1}, False)
        return Choice({"type": "mettle.heal", "char": char, "amount": 1}, False)
    if system == "hursagmu":
        if sheet.get("stuns", 1) >= 1:
            return Choice({"type": "hursagmu.rest", "char": char}, owner)
        return Choice(
            {"type": "hursagmu.rest_terms", "char": char, "wound_difficulty": local.step % 3}, False
        )
    hope = (view or {}).get("game", {}).get("hope", 1)
    if hope >= 1 and sheet.get("exhaustion", 1) >= 1:
        return Choice({"type": "dryh.hope_spend", "char": char, "what": "exhaustion"}, owner)
    return Choice(_correct(None, "hope", min(hope + 1, 50)), False)


def mix_lines() -> list[str]:
    return [f"{w:>3}% {name}: {desc}" for name, (w, _s, desc) in MIX.items()]
