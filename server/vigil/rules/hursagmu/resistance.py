"""HUR-12: resisting damage applied against a trait.

The chapter defers to a combat chapter not in the source, so (a Decision of
HUR-12 in :mod:`.rule_book`) damage D is resisted with 2d6 + trait + bonus against D; a failure takes
max(0, D − total). Table option ``resistance="flat"`` takes
max(0, D − (trait + bonus)) instead, with no dice. Poisons and falls pass no
armour bonus: armour never helps against them.
"""

from __future__ import annotations

from typing import Any

from vigil.rules.dice import DiceSource
from vigil.rules.hursagmu.roll import trait_roll
from vigil.rules.hursagmu.state import Character, Options


def resist(
    options: Options, ch: Character, amount: int, trait: str, bonus: int, dice: DiceSource
) -> tuple[int, dict[str, Any]]:
    """How much of ``amount`` gets through, and the event params (faces)."""
    level = ch.level(trait)
    params: dict[str, Any] = {"amount": amount, "trait": trait, "mode": options.resistance}
    if options.resistance == "flat":
        harm = max(0, amount - (level + bonus))
        params.update(level=level, bonus=bonus, harm=harm, counts={"wounds": harm})
        return harm, params
    result = trait_roll(dice, level, amount, bonus)
    harm = 0 if result.success else max(0, amount - result.total)
    # ``counts``: what got through, as the sentence says it ("takes 3 wounds").
    params.update(result.params(), bonus=bonus, harm=harm, counts={"wounds": harm})
    return harm, params
