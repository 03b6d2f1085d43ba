"""The state of a Hursagmu table, as clients render it.

Characters and their poisons sit in maps keyed by stable ids, so a JSON
patch names a poison by id rather than by a list index that shifts when an
earlier poison wears off.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.rules.clock import AT, KEPT, SPAN, GameClock
from vigil.rules.commands import Ident, ManualDice, StoredId, whole

MAX_COUNTER = 1_000_000
"""Harm keeps adding past the thresholds; this cap only keeps the numbers
encodable (msgpack int64) however long a GM keeps hitting a corpse."""

MAX_DOSES = 1000
"""docs/design.md "Limits": 1,000 poison doses (HUR-13)."""

Counter = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNTER)]
# A trait's name, the key of a sheet's traits; the ``ref`` marker lets the
# command catalogue offer a character's existing traits.
TraitName = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, pattern=whole("[a-z][a-z0-9_]*"), extra={"ref": "trait"})
]
TraitLevel = Annotated[int, msgspec.Meta(ge=-20, le=100)]
Name = Annotated[str, msgspec.Meta(max_length=64)]
Difficulty = Annotated[int, msgspec.Meta(ge=0, le=50)]
Day = Annotated[int, msgspec.Meta(ge=0)]
PoisonKind = Literal["poison", "drug"]
Resistance = Literal["roll", "flat"]
PoisonId = Annotated[Ident, msgspec.Meta(extra={"ref": "poison"})]
"""The key of one poison on a sheet (not a character's id)."""


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Table options, each with its default and its description (what
    ``docs/rules/hursagmu.md`` and the command catalogue show); the rules
    that read them are HUR-12 and HUR-09 in :mod:`vigil.rules.hursagmu.rule_book`."""

    resistance: Annotated[
        Resistance,
        msgspec.Meta(
            description=(
                "How damage against constitution is resisted: roll 2d6 + constitution against the "
                "damage, or subtract constitution from it flat, with no dice."
            )
        ),
    ] = "roll"
    wake_hour: Annotated[
        Annotated[int, msgspec.Meta(ge=0, le=23)] | None,
        msgspec.Meta(
            description=(
                "The hour of each day at which every living character wakes and makes its daily "
                "recovery; when unset, the GM calls the morning."
            )
        ),
    ] = None
    manual_dice: ManualDice = False


class RestTerms(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """How a night's rest went (HUR-10): the GM's difficulty increases for
    the wound and shock rolls, and whether strenuous activity spoiled it."""

    wound_difficulty: Difficulty = 0
    shock_difficulty: Difficulty = 0
    spoiled: bool = False


class Poison(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One application of a poison or drug (HUR-13). Dose k (1-based) falls at
    ``applied_at + k * interval``; ``next_dose`` is the k still to come, so the
    schedule is a pure function of these fields and the clock."""

    kind: PoisonKind = "poison"
    name: Name = ""
    damage: Annotated[int, msgspec.Meta(ge=1, le=100)]
    applied_at: Annotated[float, msgspec.Meta(ge=0), AT]
    interval: Annotated[int, msgspec.Meta(ge=1), SPAN]
    doses: Annotated[int, msgspec.Meta(ge=1, le=MAX_DOSES)]
    next_dose: Annotated[int, msgspec.Meta(ge=1, le=MAX_DOSES), KEPT] = 1

    @property
    def said(self) -> dict[str, str]:
        """What people read for this poison, as params: its name (``called``,
        "" when it has none, so that each reader says "the drug" in their own
        language from its ``kind``); never its id (p0001), which is for
        machines."""
        return {"called": self.name, "kind": self.kind}

    def dose_at(self, k: int) -> float:
        return self.applied_at + k * self.interval

    @property
    def ends_at(self) -> float:
        return self.dose_at(self.doses)


class Character(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A character's harm and what the clock will do to it.

    ``recovered_day`` / ``healed_day`` / ``spoiled_day`` are the day numbers
    (⌊clock / 86400⌋) of the last natural recovery (HUR-09), the last healer
    roll (HUR-11) and the last spoiled rest (HUR-10). ``rest_next_at`` is when
    an unconscious character out of combat next makes its two recovery rolls
    (HUR-08); ``rest`` the terms of the night now under way (HUR-10).
    ``pending_fall`` is the spaces of a fall the GM declared that waits for
    the character's choice: break it with athlete or take it (HUR-14).
    """

    name: Annotated[Name, KEPT] = ""
    traits: Annotated[dict[TraitName, TraitLevel], msgspec.Meta(max_length=64)] = {}
    stuns: Counter = 0
    wounds: Counter = 0
    shocks: Counter = 0
    blind: bool = False
    deaf: bool = False
    poisons: Annotated[dict[PoisonId, Poison], msgspec.Meta(max_length=1000)] = {}
    poison_seq: Annotated[int, msgspec.Meta(ge=0), KEPT] = 0
    rest: RestTerms = msgspec.field(default_factory=RestTerms)
    recovered_day: Annotated[Day | None, KEPT] = None
    healed_day: Annotated[Day | None, KEPT] = None
    spoiled_day: Annotated[Day | None, KEPT] = None
    may_act_second: Annotated[bool, KEPT] = False
    rest_next_at: Annotated[Annotated[float, msgspec.Meta(ge=0), AT] | None, KEPT] = None
    pending_fall: Annotated[Annotated[float, msgspec.Meta(ge=0, le=10_000)] | None, KEPT] = None

    def level(self, trait: str) -> int:
        """A trait the rules need (constitution, willpower, athlete…) that is
        not on the sheet counts as 0 (a Decision of "Traits the rules look up"
        in :mod:`.rule_book`)."""
        return self.traits.get(trait, 0)


class HursagmuTable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    clock: GameClock = msgspec.field(default_factory=GameClock)
    characters: dict[StoredId, Character] = {}
    options: Options = msgspec.field(default_factory=Options)
