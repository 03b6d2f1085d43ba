"""The rate limit of a connection: a token bucket, as a pure value.

``rate`` messages a second sustained, ``burst`` at once. The time is given
(the connection loop reads the monotonic clock and passes it in), so the
bucket is tested without waiting (tests/unit/test_rate.py)."""

from __future__ import annotations

from typing import NamedTuple


class Bucket(NamedTuple):
    """How many messages may still be sent now, as of monotonic time ``at``."""

    level: float
    at: float


def full(burst: int, now: float) -> Bucket:
    return Bucket(float(burst), now)


def take(bucket: Bucket, now: float, rate: float, burst: int) -> tuple[bool, Bucket]:
    """Whether one message may pass at ``now``, and the bucket after it:
    refilled for the time since, at most ``burst``, then one taken if any."""
    level = min(float(burst), bucket.level + max(0.0, now - bucket.at) * rate)
    if level < 1:
        return False, Bucket(level, now)
    return True, Bucket(level - 1, now)
