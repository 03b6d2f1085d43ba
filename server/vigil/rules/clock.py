"""The rules' view of a table's game clock.

Only game time lives here: the wall-clock anchor (rate, paused, following
Foundry) belongs to the server, which turns wall time into a game time and
asks the rules to advance to it. Keeping the wall clock out means every timed
rule is a pure function of this value.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

NonNegative = Annotated[float, msgspec.Meta(ge=0)]


class GameClock(msgspec.Struct, kw_only=True):
    """``now`` in seconds of game time; never decreases ("The clock" in
    :data:`vigil.rules.reference.COMMON`)."""

    now: NonNegative = 0.0
    in_combat: bool = False
    round: Annotated[int, msgspec.Meta(ge=0)] = 0


MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0
ROUND = 6.0
