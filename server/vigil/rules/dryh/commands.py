"""DRYH commands, one Struct each, tagged ``dryh.<verb>``.

Bounds sit on the fields so the decoder refuses bad input before the rules
see it (docs/design.md "Limits": 30 pain dice, 6 helpers). ``char`` always names the
protagonist of the roll concerned (the key of ``table.rolls``) or, outside a
roll, the character acted on.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import msgspec

from vigil.rules.commands import CharId, Command, Rolls
from vigil.rules.dryh.state import PainKind, Pool, Talent


class Open(Command, kw_only=True, tag="dryh.open"):
    """DRYH-01: the GM opens a challenge for ``char``."""

    char: CharId
    pain: Annotated[int, msgspec.Meta(ge=0, le=30)]
    kind: PainKind = "environmental"


class Cancel(Command, kw_only=True, tag="dryh.cancel"):
    """The GM withdraws a roll that has not been rolled yet (no effect)."""

    char: CharId


class Declare(Command, kw_only=True, tag="dryh.declare"):
    """DRYH-02/11/12/13: change the declarations; ``None`` leaves a field as it is."""

    char: CharId
    madness: Annotated[int, msgspec.Meta(ge=0, le=6)] | None = None
    exhaustion_up: bool | None = None
    talent: Talent | None = None


class Help(Command, kw_only=True, tag="dryh.help"):
    """DRYH-03: ``helper`` joins (or, with ``leave``, leaves) ``char``'s roll."""

    char: CharId
    helper: CharId
    leave: bool = False


class Roll(Rolls, kw_only=True, tag="dryh.roll"):
    """DRYH-04: roll every pool. Manual faces are consumed in the order
    discipline, exhaustion, madness, pain, then each helper in joining order."""

    char: CharId


class DespairSpend(Command, kw_only=True, tag="dryh.despair_spend"):
    """DRYH-08: the GM adds or removes a 6 in one of the four pools."""

    char: CharId
    pool: Pool
    op: Literal["add", "remove"] = "add"


class HopeImprove(Command, kw_only=True, tag="dryh.hope_improve"):
    """DRYH-09: a player adds a 1 to the protagonist's discipline pool."""

    char: CharId


# DRYH-21: the GM's failure consequences (one list for rules, schema and menus).
Failure = Literal["none", "exhaustion", "fight", "flight"]


class Resolve(Command, kw_only=True, tag="dryh.resolve"):
    """DRYH-14…21: the GM closes the roll. ``failure`` is the GM's optional
    DRYH-21 consequence on a failed roll (table option ``failure_consequences``)."""

    char: CharId
    failure: Failure = "none"


# DRYH-14: what a discipline-dominated roll lets its chooser do; DRYH-16/20:
# what a madness-dominated one makes it do. One list each, used by the rules,
# the command's schema and (through the catalogue) every client's menu.
DisciplineChoice = Literal["uncheck_fight", "uncheck_flight", "exhaustion_down", "nothing"]
MadnessChoice = Literal["check_fight", "check_flight"]
Choice = Literal[DisciplineChoice, MadnessChoice]
PENDING_CHOICES: dict[str, tuple[Choice, ...]] = {
    "discipline": get_args(DisciplineChoice),
    "madness": get_args(MadnessChoice),
}


class Choose(Command, kw_only=True, tag="dryh.choose"):
    """DRYH-14/16/20: the pending choice of ``who`` (default: the
    protagonist) in ``char``'s resolved roll."""

    char: CharId
    who: CharId | None = None
    choice: Choice


class HopeSpend(Command, kw_only=True, tag="dryh.hope_spend"):
    """DRYH-22: 1 hope removes one exhaustion or unchecks one response."""

    char: CharId
    what: Literal["exhaustion", "fight", "flight"]


class RecoverDiscipline(Command, kw_only=True, tag="dryh.recover_discipline"):
    """DRYH-23: (5 − discipline) hope, at least 1, for +1 discipline −1 madness."""

    char: CharId


class Wake(Command, kw_only=True, tag="dryh.wake"):
    """DRYH-24: the GM wakes a crashed character."""

    char: CharId


class ClearSnap(Command, kw_only=True, tag="dryh.clear_snap"):
    """DRYH-18: the GM ends a snapped character's time of madness."""

    char: CharId


class SessionStart(Command, kw_only=True, tag="dryh.session_start"):
    """The GM starts a session: despair per player character."""


class SessionEnd(Command, kw_only=True, tag="dryh.session_end"):
    """DRYH-25: the GM ends the session."""


COMMANDS: tuple[type[Command], ...] = (
    Open,
    Cancel,
    Declare,
    Help,
    Roll,
    DespairSpend,
    HopeImprove,
    Resolve,
    Choose,
    HopeSpend,
    RecoverDiscipline,
    Wake,
    ClearSnap,
    SessionStart,
    SessionEnd,
)
