"""The DRYH table state: characters, coins, session, options and open rolls.

Everything a client renders lives here as plain msgspec Structs. Characters
and open rolls are maps keyed by stable ids (a roll by its protagonist's id),
so that a JSON Patch path names a character or a roll, never a list index.
A resolved roll leaves the map; its full record goes into the resolution
event, which keeps the live state small.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.rules.clock import AT, KEPT, GameClock
from vigil.rules.commands import ManualDice, StoredId

Count = Annotated[int, msgspec.Meta(ge=0, le=30)]
Coins = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]
Face = Annotated[int, msgspec.Meta(ge=1, le=6)]
Faces = Annotated[list[Face], msgspec.Meta(max_length=64)]
Boxes = Annotated[int, msgspec.Meta(ge=0, le=6)]
Label = Annotated[str, msgspec.Meta(max_length=64)]

Status = Literal["awake", "crashed", "nightmare"]
PainKind = Literal["environmental", "nightmare"]
Talent = Literal["none", "exhaustion_minor", "exhaustion_major", "madness"]
Pool = Literal["discipline", "exhaustion", "madness", "pain"]
Phase = Literal["open", "declared", "rolled", "adjusted", "resolved"]
PendingKind = Literal["discipline", "madness"]

POOLS: tuple[Pool, ...] = ("discipline", "exhaustion", "madness", "pain")
MAX_HELPERS = 6
CRASH_ABOVE = 6
"""DRYH-17: exhaustion *above* this crashes the character."""


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Table options, each with its default and its description (what
    ``docs/rules/dryh.md`` and the command catalogue show). Why a default is
    what it is, is a Decision in :mod:`vigil.rules.dryh.rule_book`."""

    response_boxes: Annotated[
        int,
        msgspec.Meta(ge=1, le=6, description="Boxes of fight and boxes of flight on every character."),
    ] = 3
    despair_per_player: Annotated[
        int,
        msgspec.Meta(
            ge=0, le=10, description="Despair coins the GM gains per player character when a session starts."
        ),
    ] = 1
    failure_consequences: Annotated[
        bool,
        msgspec.Meta(
            description=(
                "On a failed roll the GM may also add one exhaustion or check a response, but not the "
                "kind that dominated."
            )
        ),
    ] = False
    wake_resets: Annotated[
        bool,
        msgspec.Meta(
            description=(
                "Waking a crashed character clears its exhaustion and every response; when off, "
                "exhaustion is set to 6 instead."
            )
        ),
    ] = True
    hope_clears_at_session_end: Annotated[
        bool, msgspec.Meta(description="Hope goes back to 0 when the GM ends the session.")
    ] = False
    reveal_dice_at_session_end: Annotated[
        bool,
        msgspec.Meta(
            description=(
                "Ending the session reveals the dice period's seed, so that anyone can verify the "
                "session's rolls, and commits to a new one (docs/dice.md)."
            )
        ),
    ] = True
    manual_dice: ManualDice = False


class Character(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One character's sheet. ``fight``/``flight`` count the checked boxes.

    ``npc`` marks a GM character: it does not count towards the despair given
    at session start (``despair_per_player`` is per *player* character).
    """

    name: Annotated[Label, KEPT] = ""
    npc: Annotated[bool, KEPT] = False
    discipline: Count = 3
    madness: Count = 0
    exhaustion: Count = 0
    fight: Boxes = 0
    flight: Boxes = 0
    status: Status = "awake"
    snapped: bool = False
    exhaustion_talent: Label = ""
    madness_talent: Label = ""


class Declaration(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """DRYH-02: what the player adds before the roll."""

    madness: Annotated[int, msgspec.Meta(ge=0, le=6)] = 0
    exhaustion_up: bool = False
    talent: Talent = "none"

    @property
    def raises_exhaustion(self) -> bool:
        """DRYH-12: a major exhaustion talent *is* the once-per-roll +1."""
        return self.exhaustion_up or self.talent == "exhaustion_major"


class Dice(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The roll's current faces per pool (after adjustments), helpers apart."""

    discipline: Faces = []
    exhaustion: Faces = []
    madness: Faces = []
    pain: Faces = []
    helpers: dict[str, Faces] = {}

    def pool(self, name: Pool) -> list[int]:
        faces: list[int] = getattr(self, name)
        return faces


class Adjustment(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One coin spent on the rolled dice (DRYH-08 despair, DRYH-09 hope)."""

    source: Literal["despair", "hope"]
    op: Literal["add", "remove"]
    pool: Pool
    face: Face


class Roll(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """An open conflict roll (DRYH-01…DRYH-20), keyed by its protagonist.

    The reading (``successes`` … ``dominant``) is recomputed after the roll
    and after every adjustment, so clients never compute it themselves.
    ``pending`` maps a character (protagonist or helper) to the choice the
    resolution is waiting for (DRYH-14/16/20); only a ``resolved`` roll has any.
    """

    phase: Phase = "open"
    opened_at: Annotated[float, AT, KEPT] = 0.0
    pain: Count = 0
    kind: PainKind = "environmental"
    declaration: Declaration = msgspec.field(default_factory=Declaration)
    helpers: Annotated[list[str], msgspec.Meta(max_length=MAX_HELPERS)] = []
    dice: Dice | None = None
    exhaustion_at_roll: Count | None = None
    adjustments: Annotated[list[Adjustment], msgspec.Meta(max_length=10_000)] = []
    successes: Annotated[int, msgspec.Meta(ge=0)] | None = None
    degree: Count | None = None
    success: bool | None = None
    dominant: Pool | None = None
    pending: dict[str, PendingKind] = {}


class Session(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    number: Annotated[int, msgspec.Meta(ge=0)] = 0
    active: bool = False


class DryhTable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    clock: GameClock = msgspec.field(default_factory=GameClock)
    characters: dict[StoredId, Character] = {}
    options: Options = msgspec.field(default_factory=Options)
    hope: Coins = 0
    despair: Coins = 0
    session: Session = msgspec.field(default_factory=Session)
    rolls: dict[str, Roll] = {}
