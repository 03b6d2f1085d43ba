"""The state of a Pain & Mettle table: what clients render and the log keeps.

Everything timed is stored as a value plus the clock time it refers to
(rattle and its ``rattle_set_at``, the rest stretch's ``rest_since``, the
dying deadline), so clients can draw it moving and the server only has to
wake at the next deadline (MET-10, MET-14, MET-17).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.rules.clock import AT, KEPT, GameClock
from vigil.rules.commands import ManualDice, StoredId

Lot = Literal["crit", "plain", "fail"]
Status = Literal["active", "unconscious", "dying", "departed"]
Discipline = Literal["survival", "ingenuity", "lore", "intuition"]
CheckKind = Literal["check", "tym", "offensive", "defensive", "passive"]

LOTS: tuple[Lot, ...] = ("crit", "plain", "fail")
"""Index order of a drawn lot (``DiceSource.weighted`` and manual ``lots``)."""

Name = Annotated[str, msgspec.Meta(max_length=64)]
Key = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
# Ids of things on a sheet; the ``ref`` marker lets the command catalogue
# offer a character's existing ones (its injuries, kits, disciplines).
InjuryId = Annotated[Key, msgspec.Meta(extra={"ref": "injury"})]
KitName = Annotated[Key, msgspec.Meta(extra={"ref": "kit"})]
DisciplineName = Annotated[Key, msgspec.Meta(extra={"ref": "discipline"})]
Time = Annotated[float, msgspec.Meta(ge=0), AT]
Kept = Annotated[Time | None, KEPT]
"""A game time the rules keep (when dying started, when rest began...)."""
Count = Annotated[int, msgspec.Meta(ge=0)]
Mettle = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Level = Annotated[int, msgspec.Meta(ge=-1000, le=1000)]
Penalty = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Weight = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class Injury(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One injury, tracked on its own because each heals in parallel at a
    Respite and esoteric means remove a whole injury by its id (MET-16)."""

    id: InjuryId
    label: Name = ""
    penalty: Penalty


class Character(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A character's harm and conditions.

    ``rattle`` is the value at ``rattle_set_at`` (None: "as of now", filled
    in on validation); the effective rattle at any time is
    :func:`vigil.rules.mettle.rattle.rattle_now` (MET-14).
    ``rest_hours`` counts the full hours of the current rest stretch (which
    started at ``rest_since``) whose effects have been applied (MET-17/18).
    ``effort_toward_rattle`` is leftover Effort from other activities (MET-13).
    ``busy_until`` is when this character, as a helper, may start another
    stabilize attempt (MET-11).
    """

    name: Annotated[Name, KEPT] = ""
    mettle: Mettle
    pain: Count = 0
    rattle: Count = 0
    rattle_set_at: Kept = None
    effort_toward_rattle: Annotated[int, msgspec.Meta(ge=0, le=3), KEPT] = 0
    injuries: Annotated[list[Injury], msgspec.Meta(max_length=1000)] = []
    next_injury: Annotated[int, msgspec.Meta(ge=1), KEPT] = 1
    status: Annotated[Status, KEPT] = "active"
    stabilized: Annotated[bool, KEPT] = False
    dying_since: Kept = None
    stabilized_at: Kept = None
    departs_at: Kept = None
    departed_at: Kept = None
    resting: Annotated[bool, KEPT] = False
    rest_since: Kept = None
    rest_hours: Annotated[Count, KEPT] = 0
    kits: Annotated[dict[KitName, Count], msgspec.Meta(max_length=64)] = {}
    disciplines: Annotated[dict[DisciplineName, Level], msgspec.Meta(max_length=64)] = {}
    busy_until: Kept = None


class LotWeights(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Relative weights of the three lots when the server draws them (MET-02)."""

    crit: Annotated[Weight, msgspec.Meta(description="How often a drawn lot is a crit.")] = 1
    plain: Annotated[Weight, msgspec.Meta(description="How often a drawn lot is plain.")] = 10
    fail: Annotated[Weight, msgspec.Meta(description="How often a drawn lot is a fail.")] = 1


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Table options, each with its default and its description (what
    ``docs/rules/mettle.md`` and the command catalogue show); the rules that
    read them are MET-02 and MET-11 in :mod:`vigil.rules.mettle.rule_book`.
    With ``manual_dice`` the GM gives drawn lots by index (0 crit, 1 plain,
    2 fail) in a command's ``lots``."""

    lot_weights: Annotated[
        LotWeights | None,
        msgspec.Meta(
            description=(
                "The server draws the Cast Lot of a check whose command gives none, with these "
                "weights; when unset, such a check is plain."
            )
        ),
    ] = None
    manual_dice: ManualDice = False
    stabilize_tn: Annotated[
        Level | None,
        msgspec.Meta(
            description=(
                "The target number of a stabilize attempt that gives none, such as a player's attempt "
                "as the helper; when unset, every attempt needs the GM's target number."
            )
        ),
    ] = None


class MettleTable(msgspec.Struct, kw_only=True):
    clock: GameClock = msgspec.field(default_factory=GameClock)
    characters: dict[StoredId, Character] = {}
    options: Options = msgspec.field(default_factory=Options)
