"""Shared helpers for the Hursagmu tests (not a test module itself)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from vigil.rules import engine
from vigil.rules.clock import DAY, HOUR
from vigil.rules.commands import AddCharacter, Command
from vigil.rules.dice import DiceSource, ScriptedDice
from vigil.rules.engine import Outcome
from vigil.rules.game import Actor, Ctx
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.hursagmu.system import SYSTEM
from vigil.rules.outcome import Event, RuleError

GM = Actor(id="gm", role="gm")
__all__ = ["DAY", "GM", "HOUR", "SYSTEM"]


def ctx(*faces: int, dice: DiceSource | None = None, max_effects: int = 100_000) -> Ctx:
    return Ctx(dice=dice if dice is not None else ScriptedDice(faces), actor=GM, max_effects=max_effects)


def new(**options: Any) -> HursagmuTable:
    table: HursagmuTable = SYSTEM.new_table(options)
    return table


def add(t: HursagmuTable, cid: str, **sheet: Any) -> HursagmuTable:
    out: Outcome[HursagmuTable] = engine.apply(SYSTEM, t, AddCharacter(id=cid, sheet=sheet), ctx())
    return out.state


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
    before = msgspec.json.encode(t)
    with pytest.raises(RuleError) as info:
        engine.apply(SYSTEM, t, cmd, ctx(*faces))
    assert info.value.code == code
    assert msgspec.json.encode(t) == before
    return info.value


def codes(events: list[Event]) -> list[str]:
    return [e.code for e in events]


def first(events: list[Event], code: str) -> Event:
    return next(e for e in events if e.code == code)
