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

# Markers the command catalogue reads (server/vigil/catalogue.py) so that a
# form asks a person only what a person at the table knows, in the table's
# units; msgspec keeps ``extra`` out of the JSON Schema.
KEPT = msgspec.Meta(extra={"kept": True})
"""A field the rules keep for themselves (when a character started dying,
the next injury's number): never asked in a form nor offered for correction."""
AT = msgspec.Meta(extra={"time": "clock"})
"""A game time (seconds since midnight of day 1): a form reads and writes it
as a clock time, "day 2, 07:00"."""
SPAN = msgspec.Meta(extra={"time": "duration"})
"""A span of game time in seconds: a form reads and writes it in minutes,
hours or days."""


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
