"""Hursagmu's commands ("hursagmu.<verb>"). Every field is bounded so that
bad input is refused by the decoder before any rule runs; what the rule
text leaves to the GM's judgement (targets, difficulty increases, whether a
rest was spoiled) is an explicit field, never guessed."""

from __future__ import annotations

from typing import Annotated

import msgspec

from vigil.rules.clock import SPAN
from vigil.rules.commands import CharId, Command, Rolls
from vigil.rules.hursagmu.penalties import ActionKind
from vigil.rules.hursagmu.state import (
    Difficulty,
    Name,
    PoisonKind,
    RestTerms,
    TraitLevel,
    TraitName,
)

Amount = Annotated[int, msgspec.Meta(ge=0, le=100)]
Modifier = Annotated[int, msgspec.Meta(ge=-50, le=50)]
Target = Annotated[int, msgspec.Meta(ge=-50, le=200)]
Seconds = Annotated[int, msgspec.Meta(ge=1, le=100 * 365 * 86400), SPAN]


class TraitRollCmd(Rolls, kw_only=True, tag="hursagmu.trait_roll"):
    """HUR-01/02/03: a generic trait roll; ``kind`` picks the condition
    penalty, ``needs_sight``/``needs_hearing``/``darkness`` the senses'."""

    char: CharId
    trait: TraitName
    target: Target
    kind: ActionKind
    modifiers: Modifier = 0
    needs_sight: bool = False
    needs_hearing: bool = False
    darkness: bool = False


class SeeDim(Rolls, kw_only=True, tag="hursagmu.see_dim"):
    """HUR-03: Perception against the GM's challenge level for dim light."""

    char: CharId
    challenge: Annotated[int, msgspec.Meta(ge=0, le=100)]
    modifiers: Modifier = 0


class Harm(Command, kw_only=True, tag="hursagmu.harm"):
    """Stuns, wounds and shocks dealt directly (HUR-04…06 apply)."""

    char: CharId
    stuns: Amount = 0
    wounds: Amount = 0
    shocks: Amount = 0


class Damage(Rolls, kw_only=True, tag="hursagmu.damage"):
    """HUR-12: damage applied against constitution; ``bonus`` (armour, a
    shield…) adds to constitution for the resistance."""

    char: CharId
    amount: Annotated[int, msgspec.Meta(ge=1, le=100)]
    bonus: Modifier = 0


class RestAction(Rolls, kw_only=True, tag="hursagmu.rest"):
    """HUR-07: the character gives up one action to rest off stuns."""

    char: CharId


class SetRest(Command, kw_only=True, tag="hursagmu.rest_terms"):
    """HUR-10: how the coming night's rest goes, for the next morning."""

    char: CharId
    wound_difficulty: Difficulty = 0
    shock_difficulty: Difficulty = 0
    spoiled: bool = False


class Morning(Rolls, kw_only=True, tag="hursagmu.morning"):
    """HUR-09/10: daily recovery for ``char``, or for every character when
    None. ``rest`` gives per-character terms; a character not named uses the
    terms set with ``hursagmu.rest_terms`` (default: a good night)."""

    char: CharId | None = None
    rest: Annotated[dict[CharId, RestTerms], msgspec.Meta(max_length=200)] = msgspec.field(
        default_factory=dict
    )


class Heal(Rolls, kw_only=True, tag="hursagmu.heal"):
    """HUR-11: a healer's roll for ``patient``: ``healer`` names a character
    of the table, or ``healer_level`` gives an NPC healer's trait."""

    patient: CharId
    healer: CharId | None = None
    healer_level: TraitLevel | None = None


class ApplyPoison(Command, kw_only=True, tag="hursagmu.poison"):
    """HUR-13: ``damage`` every ``interval`` seconds for ``duration`` seconds."""

    char: CharId
    damage: Annotated[int, msgspec.Meta(ge=1, le=100)]
    interval: Seconds
    duration: Seconds
    kind: PoisonKind = "poison"
    name: Name = ""


class Fall(Rolls, kw_only=True, tag="hursagmu.fall"):
    """HUR-14: the GM declares a fall of ``spaces`` (partial spaces round
    down). One that can do harm to an awake character waits as its pending
    fall for ``hursagmu.break_fall`` or ``hursagmu.take_fall``: breaking it
    is the falling character's roll, so its player makes that choice. An
    unconscious character cannot roll: its fall lands at once (hence dice)."""

    char: CharId
    spaces: Annotated[float, msgspec.Meta(ge=0, le=10_000)]


class BreakFall(Rolls, kw_only=True, tag="hursagmu.break_fall"):
    """HUR-14: the falling character rolls athlete against the damage of its
    pending fall, then resists it with the roll's dx added."""

    char: CharId


class TakeFall(Rolls, kw_only=True, tag="hursagmu.take_fall"):
    """HUR-14: the falling character takes its pending fall without the
    athlete roll (resisted with constitution alone)."""

    char: CharId


class SetSenses(Command, kw_only=True, tag="hursagmu.senses"):
    """HUR-03: lose or regain sight or hearing (None leaves it as it is)."""

    char: CharId
    blind: bool | None = None
    deaf: bool | None = None


COMMANDS: tuple[type[Command], ...] = (
    TraitRollCmd,
    SeeDim,
    Harm,
    Damage,
    RestAction,
    SetRest,
    Morning,
    Heal,
    ApplyPoison,
    Fall,
    BreakFall,
    TakeFall,
    SetSenses,
)
