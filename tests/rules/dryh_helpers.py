"""Helpers shared by the DRYH tests (not a test module itself).

Every game's helpers have one shape: ``SYSTEM``, the ``GM`` and ``PLAYER``
actors, then ``ctx``, ``new_table``, ``run``, ``refused``, ``codes`` and
``one`` (and ``advance`` where the game has timed effects), then what only
this game needs: here the faces of a roll in draw order, a whole roll, and
every event of a code.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.state import DryhTable
from vigil.rules.dryh.system import SYSTEM
from vigil.rules.game import Actor, Ctx
from vigil.rules.outcome import Event, RuleError

GM = Actor(id="gm-1", role="gm")
PLAYER = Actor(id="player-1", role="player")
__all__ = ["GM", "PLAYER", "SYSTEM"]


def ctx(*faces: int, dice: DiceSource | None = None, actor: Actor = GM) -> Ctx:
    return Ctx(dice=dice if dice is not None else ScriptedDice(faces), actor=actor)


def new_table(chars: dict[str, dict[str, Any]] | None = None, **options: Any) -> DryhTable:
    """A table with these options and characters (by default one, ``a``)."""
    t: DryhTable = SYSTEM.new_table(options)
    for cid, sheet in (chars or {"a": {}}).items():
        t = run(t, AddCharacter(id=cid, sheet=sheet))[0]
    return t


def run(
    t: DryhTable,
    cmd: Command,
    faces: Sequence[int] = (),
    actor: Actor = GM,
    dice: DiceSource | None = None,
) -> tuple[DryhTable, list[Event]]:
    """Apply with scripted faces, checking every scripted face was used."""
    scripted = ScriptedDice(faces)
    out = engine.apply(SYSTEM, t, cmd, ctx(dice=dice or scripted, actor=actor))
    if dice is None:
        scripted.check_all_used()
    return out.state, out.events


def refused(t: DryhTable, cmd: Command, code: str, faces: Sequence[int] = (), actor: Actor = GM) -> RuleError:
    """The command is refused with ``code`` and the caller's state is untouched."""
    before = msgspec.msgpack.encode(t)
    with pytest.raises(RuleError) as info:
        engine.apply(SYSTEM, t, cmd, ctx(*faces, actor=actor))
    assert info.value.code == code, info.value
    assert msgspec.msgpack.encode(t) == before
    return info.value


# -- DRYH only -----------------------------------------------------------------


def faces_for(
    d: Sequence[int] = (),
    e: Sequence[int] = (),
    m: Sequence[int] = (),
    p: Sequence[int] = (),
    helpers: Sequence[Sequence[int]] = (),
) -> list[int]:
    """Faces in the order DRYH draws them: D, E, M, P, then each helper."""
    out = [*d, *e, *m, *p]
    for h in helpers:
        out += h
    return out


def rolled(
    t: DryhTable,
    char: str = "a",
    *,
    pain: int | None = None,
    kind: str = "environmental",
    d: Sequence[int] = (),
    e: Sequence[int] = (),
    m: Sequence[int] = (),
    p: Sequence[int] = (),
    helpers: dict[str, Sequence[int]] | None = None,
    declare: dict[str, Any] | None = None,
) -> tuple[DryhTable, list[Event]]:
    """Open (with as many pain dice as ``p``), declare, help and roll."""
    t, events = run(t, c.Open(char=char, pain=len(p) if pain is None else pain, kind=kind))
    if declare:
        t, ev = run(t, c.Declare(char=char, **declare))
        events += ev
    for h in helpers or {}:
        t, ev = run(t, c.Help(char=char, helper=h))
        events += ev
    faces = faces_for(d, e, m, p, list((helpers or {}).values()))
    t, ev = run(t, c.Roll(char=char), faces)
    return t, events + ev
