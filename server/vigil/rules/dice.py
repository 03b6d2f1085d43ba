"""Dice sources injected into the rules.

The rules never call ``random``'s module-level functions: the server passes a
secure source, tests a seeded one, and a GM with ``manual_dice`` on passes the
faces the table rolled by hand. All three share this small protocol so the
rules code reads the same whichever is in use.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from vigil.rules.outcome import RuleError


class DiceSource(Protocol):
    """Where faces come from. ``die`` is one roll of a ``sides``-sided die."""

    def die(self, sides: int) -> int: ...

    def weighted(self, weights: Sequence[int]) -> int:
        """Index drawn with the given integer weights (the Cast Lot, MET-02)."""
        ...


class RandomDice:
    """Dice from a ``random.Random`` instance: seeded for tests and replays."""

    def __init__(self, seed: int | str | None = None, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.Random(seed)

    def die(self, sides: int) -> int:
        return self._rng.randint(1, sides)

    def weighted(self, weights: Sequence[int]) -> int:
        return self._rng.choices(range(len(weights)), weights=weights)[0]


class SecureDice(RandomDice):
    """Dice from the operating system's CSPRNG: what the server rolls with, so
    that no player can predict the next face from the ones already seen."""

    def __init__(self) -> None:
        super().__init__(rng=random.SystemRandom())


class ScriptedDice:
    """Faces given in advance: the GM's hand-rolled dice (table option
    ``manual_dice``) or a test's exact script.

    Faces are consumed in order; asking for more than were given, or a face
    that does not fit the die, is a rule error rather than a silent reroll, so
    a GM who typed too few faces is told so and nothing is applied.
    """

    def __init__(self, faces: Sequence[int], lots: Sequence[int] = ()) -> None:
        self._faces = list(faces)
        self._lots = list(lots)
        self._next = 0
        self._next_lot = 0

    def die(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise RuleError("dice_too_few", given=len(self._faces))
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise RuleError("dice_bad_face", face=face, sides=sides)
        self._next += 1
        return face

    def weighted(self, weights: Sequence[int]) -> int:
        if self._next_lot >= len(self._lots):
            raise RuleError("dice_too_few_lots", given=len(self._lots))
        index = self._lots[self._next_lot]
        if not 0 <= index < len(weights):
            raise RuleError("dice_bad_lot", index=index)
        self._next_lot += 1
        return index

    def check_all_used(self) -> None:
        """Refuse leftovers: more faces than the roll needed is a typing slip."""
        if self._next != len(self._faces):
            raise RuleError("dice_too_many", given=len(self._faces), used=self._next)
        if self._next_lot != len(self._lots):
            raise RuleError("dice_too_many", given=len(self._lots), used=self._next_lot)


def roll(dice: DiceSource, count: int, sides: int = 6) -> list[int]:
    """``count`` dice of ``sides`` sides, in the order drawn."""
    return [dice.die(sides) for _ in range(count)]
