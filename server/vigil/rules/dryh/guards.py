"""Lookups that refuse with a clear code, shared by every command.

A nightmare is an NPC (DRYH-18) and the game's one final state: every DRYH
command naming one is refused with ``final_state``; only the engine's
correct and revive take a character out of it. A crashed character
(DRYH-17) cannot open a roll or help until the GM wakes it.
"""

from __future__ import annotations

from vigil.rules.dryh.state import Character, DryhTable, Phase, Roll
from vigil.rules.outcome import RuleError


def character(t: DryhTable, char: str) -> Character:
    """The character, refused when unknown or a nightmare."""
    c = t.characters.get(char)
    if c is None:
        raise RuleError("unknown_character", char=char)
    if c.status == "nightmare":
        raise RuleError("final_state", rule="DRYH-18", char=char, status="nightmare")
    return c


def awake(t: DryhTable, char: str) -> Character:
    """DRYH-17: a crashed character can neither roll nor help."""
    c = character(t, char)
    if c.status == "crashed":
        raise RuleError("crashed", rule="DRYH-17", char=char)
    return c


def open_roll(t: DryhTable, char: str, *phases: Phase) -> Roll:
    """``char``'s open roll, refused unless it is in one of ``phases``."""
    character(t, char)
    roll = t.rolls.get(char)
    if roll is None:
        raise RuleError("no_open_roll", char=char)
    if roll.phase not in phases:
        raise RuleError("wrong_phase", char=char, phase=roll.phase, expected=list(phases))
    return roll
