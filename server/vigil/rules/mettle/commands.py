"""Pain & Mettle commands, tagged ``mettle.<verb>``.

An input that the rule text leaves to a person's judgement (a TN, whether a
move was strenuous, the Cast Lot the table cast) is an explicit field; the
engine never guesses it ("Judgement calls are inputs" in
:data:`vigil.rules.reference.COMMON`). Commands that may cast a lot inherit
``Rolls`` so that a GM with ``manual_dice`` can submit drawn lots by index.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.rules.commands import CharId, Command, Rolls
from vigil.rules.mettle.state import (
    CheckKind,
    Discipline,
    DisciplineName,
    InjuryId,
    KitName,
    Level,
    Lot,
    Name,
    Penalty,
)

Amount = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Uses = Annotated[int, msgspec.Meta(ge=0, le=1000)]
# Setting a kit's uses or a discipline's level may name a new one.
NewKit = Annotated[KitName, msgspec.Meta(extra={"new": True})]
NewDiscipline = Annotated[DisciplineName, msgspec.Meta(extra={"new": True})]


class Pain(Rolls, kw_only=True, tag="mettle.pain"):
    """Pain received; triggers Test Your Mettle (MET-05) with ``lot``."""

    char: CharId
    amount: Amount
    lot: Lot | None = None


class Heal(Command, kw_only=True, tag="mettle.heal"):
    """Esoteric healing (herbs, magic) of ``amount`` pain (MET-08, MET-12)."""

    char: CharId
    amount: Amount


class Rattle(Command, kw_only=True, tag="mettle.rattle"):
    """Rattle received (MET-15); interrupts rest (MET-17)."""

    char: CharId
    amount: Amount


class Relieve(Command, kw_only=True, tag="mettle.relieve"):
    """Rattle relieved by outside means (MET-15)."""

    char: CharId
    amount: Amount


class ShakeOff(Command, kw_only=True, tag="mettle.shake_off"):
    """The character's whole action: stand still and spend ``effort`` (MET-13)."""

    char: CharId
    effort: Amount


class Effort(Command, kw_only=True, tag="mettle.effort"):
    """Effort spent on any other activity: 1 rattle per 4 Effort (MET-13)."""

    char: CharId
    effort: Amount


class InjuryAdd(Command, kw_only=True, tag="mettle.injury_add"):
    char: CharId
    label: Name = ""
    penalty: Penalty


class InjuryRemove(Command, kw_only=True, tag="mettle.injury_remove"):
    """Esoteric means removing a whole injury (MET-16)."""

    char: CharId
    injury: InjuryId


class InjuryReduce(Command, kw_only=True, tag="mettle.injury_reduce"):
    """Esoteric means lowering one injury's penalty; at 0 it is removed."""

    char: CharId
    injury: InjuryId
    amount: Amount


class Check(Rolls, kw_only=True, tag="mettle.check"):
    """A check of ``stat + modifiers`` against ``tn`` (MET-01, MET-03, MET-04)."""

    char: CharId
    stat: Level
    modifiers: Level = 0
    tn: Level
    kind: CheckKind = "check"
    lot: Lot | None = None


class Stabilize(Rolls, kw_only=True, tag="mettle.stabilize"):
    """``helper`` tries to stabilize dying ``char`` (MET-11). The TN is the
    GM's input: given here by the GM, or else the table option
    ``stabilize_tn`` (so that a player, who may not set it, can still make
    the attempt as the helper)."""

    char: CharId
    helper: CharId
    discipline: Discipline
    kit: KitName
    tn: Level | None = None
    modifiers: Level = 0
    lot: Lot | None = None


class StabilizeByFiat(Command, kw_only=True, tag="mettle.stabilize_by_fiat"):
    """The GM stabilizes directly: herbs, magic, healing aid (MET-11)."""

    char: CharId
    means: Name = ""


class RestStart(Command, kw_only=True, tag="mettle.rest_start"):
    char: CharId


class RestStop(Command, kw_only=True, tag="mettle.rest_stop"):
    char: CharId


class Strenuous(Command, kw_only=True, tag="mettle.strenuous"):
    """Strenuous activity or circumstances while resting (MET-17)."""

    char: CharId
    reason: Literal["hindrance", "faster_than_stride", "other"] = "other"


class KitSet(Command, kw_only=True, tag="mettle.kit_set"):
    char: CharId
    kit: NewKit
    uses: Uses


class DisciplineSet(Command, kw_only=True, tag="mettle.discipline_set"):
    char: CharId
    discipline: NewDiscipline
    level: Level


COMMANDS: tuple[type[Command], ...] = (
    Pain,
    Heal,
    Rattle,
    Relieve,
    ShakeOff,
    Effort,
    InjuryAdd,
    InjuryRemove,
    InjuryReduce,
    Check,
    Stabilize,
    StabilizeByFiat,
    RestStart,
    RestStop,
    Strenuous,
    KitSet,
    DisciplineSet,
)
