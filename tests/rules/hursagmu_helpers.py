"""Helpers shared by the Hursagmu tests (not a test module itself).

Every game's helpers have one shape: ``SYSTEM``, the ``GM`` and ``PLAYER``
actors, then ``ctx``, ``new_table``, ``run``, ``refused``, ``codes`` and
``one`` (and ``advance`` where the game has timed effects), then what only
this game needs: here adding a character by its sheet's fields.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

# Re-exported: every game's tests read events the same way.
from event_helpers import by_code as by_code
from event_helpers import codes as codes
from event_helpers import one as one

from vigil.rules import engine
from vigil.rules.commands import AddCharacter, Command
from vigil.rules.dice import DiceSource, ScriptedDice
from vigil.rules.engine import Outcome
from vigil.rules.game import Actor, Ctx
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.hursagmu.system import SYSTEM
from vigil.rules.outcome import RuleError

GM = Actor(id="gm", role="gm")
PLAYER = Actor(id="p", role="player")
__all__ = ["GM", "PLAYER", "SYSTEM"]


def ctx(*faces: int, dice: DiceSource | None = None, actor: Actor = GM, max_effects: int = 100_000) -> Ctx:
    return Ctx(dice=dice if dice is not None else ScriptedDice(faces), actor=actor, max_effects=max_effects)


def new_table(**options: Any) -> HursagmuTable:
    table: HursagmuTable = SYSTEM.new_table(options)
    return table


def run(t: HursagmuTable, cmd: Command, *faces: int) -> Outcome[HursagmuTable]:
    """Apply with exactly these faces: too few or too many is a test failure."""
    dice = ScriptedDice(faces)
    out: Outcome[HursagmuTable] = engine.apply(SYSTEM, t, cmd, ctx(dice=dice))
    dice.check_all_used()
    return out


def advance(t: HursagmuTable, to: float, *faces: int) -> Outcome[HursagmuTable]:
    dice = ScriptedDice(faces)
    out: Outcome[HursagmuTable] = engine.advance(SYSTEM, t, to, ctx(dice=dice))
    dice.check_all_used()
    return out


def refused(t: HursagmuTable, cmd: Command, code: str, *faces: int) -> RuleError:
    """The command is refused with ``code`` and the caller's state is untouched."""
    before = msgspec.msgpack.encode(t)
    with pytest.raises(RuleError) as info:
        engine.apply(SYSTEM, t, cmd, ctx(*faces))
    assert info.value.code == code, info.value
    assert msgspec.msgpack.encode(t) == before
    return info.value


# -- Hursagmu only -------------------------------------------------------------


def add(t: HursagmuTable, cid: str, **sheet: Any) -> HursagmuTable:
    out: Outcome[HursagmuTable] = engine.apply(SYSTEM, t, AddCharacter(id=cid, sheet=sheet), ctx())
    return out.state
