"""The three games by name: the one place that knows which exist (their
protocol is :class:`vigil.rules.game.Game`)."""

from __future__ import annotations

from vigil.rules.dryh.system import SYSTEM as DRYH
from vigil.rules.game import Game
from vigil.rules.hursagmu.system import SYSTEM as HURSAGMU
from vigil.rules.mettle.system import SYSTEM as METTLE

GAMES: dict[str, Game] = {s.name: s for s in (DRYH, METTLE, HURSAGMU)}


def get(name: str) -> Game:
    return GAMES[name]
