"""The table clock's anchor: how wall time becomes game time.

Clients receive this anchor and draw countdowns themselves, so a running
clock costs no traffic. ``follow`` mode tracks Foundry's world time: only
``clock.world`` updates from the active GM's client move it.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Mode = Literal["paused", "running", "follow"]


class Anchor(msgspec.Struct, kw_only=True):
    mode: Mode = "paused"
    rate: float = 1.0
    game: float = 0.0
    wall: float = 0.0
    # Paused for want of a GM (the table's ``pause_without_gm``): it runs
    # again when one connects. Part of the document, so that it outlives a
    # restart; any other change of the clock clears it.
    awaiting_gm: bool = False

    def game_at(self, wall: float) -> float:
        """Game time at ``wall``; never before the anchor (clocks skew)."""
        if self.mode != "running":
            return self.game
        return self.game + max(0.0, wall - self.wall) * self.rate

    def wall_at(self, game: float) -> float | None:
        """When (wall time) the clock reaches ``game``, or None if it never
        will by itself (paused, or following Foundry)."""
        if self.mode != "running":
            return None
        return self.wall + max(0.0, game - self.game) / self.rate

    def rebased(
        self,
        wall: float,
        *,
        mode: Mode | None = None,
        rate: float | None = None,
        game: float | None = None,
        awaiting_gm: bool = False,
    ) -> Anchor:
        """A new anchor at ``wall`` that continues exactly where this one is."""
        return Anchor(
            mode=self.mode if mode is None else mode,
            rate=self.rate if rate is None else rate,
            game=self.game_at(wall) if game is None else game,
            wall=wall,
            awaiting_gm=awaiting_gm,
        )
