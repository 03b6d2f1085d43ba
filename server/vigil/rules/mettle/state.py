"""The state of a Pain & Mettle table: what clients render and the log keeps.

Everything timed is stored as a value plus the clock time it refers to
(rattle and its ``rattle_set_at``, the rest stretch's ``rest_since``, the
dying deadline), so clients can draw it moving and the server only has to
wake at the next deadline (MET-10, MET-14, MET-17).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.rules.clock import GameClock
from vigil.rules.commands import CharId

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
Time = Annotated[float, msgspec.Meta(ge=0)]
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

    name: Name = ""
    mettle: Mettle
    pain: Count = 0
    rattle: Count = 0
    rattle_set_at: Time | None = None
    effort_toward_rattle: Annotated[int, msgspec.Meta(ge=0, le=3)] = 0
    injuries: Annotated[list[Injury], msgspec.Meta(max_length=1000)] = []
    next_injury: Annotated[int, msgspec.Meta(ge=1)] = 1
    status: Status = "active"
    stabilized: bool = False
    dying_since: Time | None = None
    stabilized_at: Time | None = None
    departs_at: Time | None = None
    departed_at: Time | None = None
    resting: bool = False
    rest_since: Time | None = None
    rest_hours: Count = 0
    kits: Annotated[dict[KitName, Count], msgspec.Meta(max_length=64)] = {}
    disciplines: Annotated[dict[DisciplineName, Level], msgspec.Meta(max_length=64)] = {}
    busy_until: Time | None = None


class LotWeights(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Relative weights of the three lots when the server draws them (MET-02)."""

    crit: Weight = 1
    plain: Weight = 10
    fail: Weight = 1


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Table options.

    ``lot_weights`` (default None, MET-02): the server draws the Cast Lot of a
    check whose command gives none; None means such a check is plain.
    ``manual_dice`` (default False): the GM may submit drawn lots by index
    (0 crit, 1 plain, 2 fail) in a command's ``lots``.
    ``stabilize_tn`` (default None, MET-11): the TN of a stabilize attempt
    that does not give one (a player's attempt as the helper); None means
    every attempt needs the GM's TN.
    """

    lot_weights: LotWeights | None = None
    manual_dice: bool = False
    stabilize_tn: Level | None = None


class MettleTable(msgspec.Struct, kw_only=True):
    clock: GameClock = msgspec.field(default_factory=GameClock)
    characters: dict[CharId, Character] = {}
    options: Options = msgspec.field(default_factory=Options)
