"""HUR-01: the trait roll, 2d6 + trait + modifiers against a target.

Every rolling rule of the chapter (resting, recovery, healing, resisting,
breaking a fall) goes through :func:`trait_roll`, so the natural-12 and
natural-2 decisions hold everywhere and every event carries the same fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vigil.rules.dice import DiceSource, roll


@dataclass(frozen=True)
class TraitRoll:
    """One rolled trait check. ``dx`` is total − target, except that a natural
    12 always succeeds with dx ≥ 1 and a natural 2 always fails with dx ≤ −1,
    so ``success`` is always ``dx >= 0``."""

    faces: tuple[int, ...]
    level: int
    modifiers: int
    target: int

    @property
    def natural(self) -> int:
        return sum(self.faces)

    @property
    def total(self) -> int:
        return self.natural + self.level + self.modifiers

    @property
    def dx(self) -> int:
        margin = self.total - self.target
        if self.natural == 12:  # a Decision of HUR-01 (rule_book): the worked example
            return max(1, margin)
        if self.natural == 2:  # a Decision of HUR-01 (rule_book): Hursagmu's overview
            return min(-1, margin)
        return margin

    @property
    def success(self) -> bool:
        return self.dx >= 0

    def params(self) -> dict[str, Any]:
        """The event fields every roll shares, faces included."""
        return {
            "faces": list(self.faces),
            "level": self.level,
            "modifiers": self.modifiers,
            "total": self.total,
            "target": self.target,
            "success": self.success,
            "dx": self.dx,
        }


def trait_roll(dice: DiceSource, level: int, target: int, modifiers: int = 0) -> TraitRoll:
    """HUR-01: roll 2d6 and add the trait level and modifiers."""
    return TraitRoll(tuple(roll(dice, 2, 6)), level, modifiers, target)
