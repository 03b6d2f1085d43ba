"""Helpers shared by the Pain & Mettle tests (not a test module itself).

Every game's helpers have one shape: ``SYSTEM``, the ``GM`` and ``PLAYER``
actors, then ``ctx``, ``new_table``, ``run``, ``refused``, ``codes`` and
``one`` (and ``advance`` where the game has timed effects), then what only
this game needs: here tables made with characters, a character, a state's
bytes, and a command through the typed decoder.
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
from vigil.rules.dice import DiceSource, RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.mettle.state import Character, MettleTable
from vigil.rules.mettle.system import SYSTEM
from vigil.rules.outcome import RuleError

GM = Actor(id="gm", role="gm")
PLAYER = Actor(id="p1", role="player")
__all__ = ["GM", "PLAYER", "SYSTEM"]


def ctx(dice: DiceSource | None = None, actor: Actor = GM) -> Ctx:
    return Ctx(dice=dice if dice is not None else RandomDice(0), actor=actor)


def new_table(**options: Any) -> MettleTable:
    table: MettleTable = SYSTEM.new_table(options)
    return table


def run(
    table: MettleTable, cmd: Command, dice: DiceSource | None = None, actor: Actor = GM
) -> engine.Outcome[MettleTable]:
    return engine.apply(SYSTEM, table, cmd, ctx(dice, actor))


def advance(table: MettleTable, to: float, seed: int = 0) -> engine.Outcome[MettleTable]:
    return engine.advance(SYSTEM, table, to, ctx(RandomDice(seed)))


def refused(
    table: MettleTable, cmd: Command, code: str, dice: DiceSource | None = None, actor: Actor = GM
) -> RuleError:
    """The command is refused with ``code`` and the caller's state is untouched."""
    before = snapshot(table)
    with pytest.raises(RuleError) as info:
        engine.apply(SYSTEM, table, cmd, ctx(dice, actor))
    assert info.value.code == code, info.value
    assert snapshot(table) == before
    return info.value


# -- Pain & Mettle only --------------------------------------------------------


def with_chars(table: MettleTable, **sheets: dict[str, Any]) -> MettleTable:
    for char_id, sheet in sheets.items():
        table = engine.apply(SYSTEM, table, AddCharacter(id=char_id, sheet=sheet), ctx()).state
    return table


def table_of(options: dict[str, Any] | None = None, **sheets: dict[str, Any]) -> MettleTable:
    return with_chars(new_table(**(options or {})), **sheets)


def char(table: MettleTable, char_id: str = "a") -> Character:
    return table.characters[char_id]


def snapshot(table: MettleTable) -> bytes:
    return msgspec.msgpack.encode(table)


def decode(data: dict[str, Any]) -> Command:
    """A command through the typed decoder, as the server receives it."""
    result: Command = msgspec.convert(data, type=_union(SYSTEM.commands))
    return result


def _union(types: tuple[type[Command], ...]) -> Any:
    result: Any = types[0]
    for t in types[1:]:
        result = result | t
    return result
