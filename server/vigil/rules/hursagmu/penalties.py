"""HUR-02 condition penalties and HUR-03 senses: the modifiers an action
takes from the character's state, and the perceptions it cannot attempt."""

from __future__ import annotations

from typing import Literal

from vigil.rules.hursagmu.conditions import DELIRIOUS_ABOVE, SERIOUS_ABOVE
from vigil.rules.hursagmu.state import Character
from vigil.rules.outcome import RuleError

ActionKind = Literal["physical", "mental", "perception", "recovery"]
SENSE_PENALTY = -4  # HUR-03


def condition_penalty(ch: Character, kind: ActionKind) -> int:
    """HUR-02: −1 per wound beyond ten to physical actions, −1 per shock
    beyond ten to mental ones (Perception included). Recovery, resistance
    and healing take none (a Decision of HUR-02 in :mod:`.rule_book`)."""
    if kind == "physical":
        return -max(0, ch.wounds - SERIOUS_ABOVE)
    if kind in ("mental", "perception"):
        return -max(0, ch.shocks - DELIRIOUS_ABOVE)
    return 0


def condition_source(ch: Character, kind: ActionKind) -> dict[str, int | str]:
    """What a roll's HUR-02 penalty comes from, for its explanation ("− 2
    (12 wounds)"): the track and its count, or nothing when it takes none."""
    if condition_penalty(ch, kind) == 0:
        return {}
    track = "wounds" if kind == "physical" else "shocks"
    count: int = getattr(ch, track)
    return {"penalty_track": track, "penalty_count": count}


def sense_penalty(ch: Character, needs_sight: bool, needs_hearing: bool, darkness: bool) -> int:
    """HUR-03: −4 for an action needing sight when blind or in darkness, and
    −4 for one needing hearing when deaf (both can apply)."""
    penalty = 0
    if needs_sight and (ch.blind or darkness):
        penalty += SENSE_PENALTY
    if needs_hearing and ch.deaf:
        penalty += SENSE_PENALTY
    return penalty


def require_perceivable(ch: Character, needs_sight: bool, needs_hearing: bool, darkness: bool) -> None:
    """HUR-03: Perception through a lost sense is impossible, not penalised.
    Total darkness takes sight away from Perception as blindness does (a
    Decision of HUR-03 in :mod:`.rule_book`; dim light is :mod:`checks`'
    challenge instead)."""
    if needs_sight and ch.blind:
        raise RuleError("sense_lost", rule="HUR-03", sense="sight", reason="blind")
    if needs_sight and darkness:
        raise RuleError("sense_lost", rule="HUR-03", sense="sight", reason="darkness")
    if needs_hearing and ch.deaf:
        raise RuleError("sense_lost", rule="HUR-03", sense="hearing", reason="deaf")
