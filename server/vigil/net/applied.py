"""The commands a table applied lately, remembered by request, so that one
sent again is answered with its first ack instead of being applied twice.

A request is named by its sender's token, its client's session and its
message id (:func:`vigil.net.routing.request_key`). A client sends a
command again only while it has no answer for it: the client library does so
for ``RESEND_SECONDS`` from its first send (after a reconnect, or after an
``outcome_unknown`` answer). So what matters is *time*, not a number of
commands: a busy table must still know, 30 s later, a command applied among
thousands of others. Requests are kept for :data:`HOLD_SECONDS`, four times
the client's window (a resend can wait for a failover or a reconnect
before it is sent), within :data:`MAX_BYTES` per table: past that the
oldest are forgotten even if younger (counted, so an operator sees it).
At the bound's estimate (about 430 bytes a command with a session name
and a small result: tests/unit/test_applied.py measures it), 16 MiB hold
some 39,000 commands: the whole 120 s of a table running 325 commands a
second — a hundred times a busy table's pace — and the client's 30 s up
to 1,300 a second.

Pure: wall times are given, nothing is read from a clock.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple

import msgspec

# The client library's resend window (foundry-module/scripts/core/client.js
# RESEND_WITHIN_MS): no client sends a command again later than this.
RESEND_SECONDS = 30.0
# How long an applied request is remembered (wall-clock seconds).
HOLD_SECONDS = 4 * RESEND_SECONDS
# The most a table's remembered requests may cost, in estimated bytes.
MAX_BYTES = 16 << 20
# What one remembered request costs beyond its name's and its result's
# JSON: the request's string, the ordered dict's slot and link, the tuple,
# the int, the float and the JSON's bytes object (measured with tracemalloc:
# tests/unit/test_applied.py).
ENTRY_BYTES = 384

_json = msgspec.json.Encoder()


class Done(NamedTuple):
    rev: int
    result: msgspec.Raw | None
    wall: float
    size: int


def kept(result: Any) -> msgspec.Raw | None:
    """A result as it is remembered: its JSON, which an ack embeds as it is
    and whose size is known (a Python object's is not), or None."""
    return None if result is None else msgspec.Raw(_json.encode(result))


def size_of(request: str, result: msgspec.Raw | None) -> int:
    """The estimated bytes of one remembered request."""
    return ENTRY_BYTES + len(request) + (0 if result is None else len(result))


class Applied:
    """One table's remembered requests, oldest first."""

    def __init__(self, hold_seconds: float = HOLD_SECONDS, max_bytes: int = MAX_BYTES) -> None:
        self.hold_seconds = hold_seconds
        self.max_bytes = max_bytes
        self._done: OrderedDict[str, Done] = OrderedDict()
        self.bytes = 0
        # Requests forgotten younger than ``hold_seconds`` (the byte bound).
        self.forgotten_early = 0

    def __len__(self) -> int:
        return len(self._done)

    def get(self, request: str) -> tuple[int, msgspec.Raw | None] | None:
        """The rev and result (as JSON) ``request`` was applied with, if
        remembered."""
        done = self._done.get(request)
        return None if done is None else (done.rev, done.result)

    def remember(self, request: str, rev: int, result: Any, wall: float) -> int:
        """``request`` was applied at ``rev`` at wall time ``wall``; returns
        how many requests younger than the hold were forgotten for room."""
        raw = kept(result)
        size = size_of(request, raw)
        former = self._done.pop(request, None)
        if former is not None:
            self.bytes -= former.size
        self._done[request] = Done(rev, raw, wall, size)
        self.bytes += size
        return self.expire(wall)

    def expire(self, now: float) -> int:
        """Forget what is older than the hold, then the oldest while past the
        byte bound; how many of those were still within the hold."""
        early = 0
        horizon = now - self.hold_seconds
        while self._done:
            request, oldest = next(iter(self._done.items()))
            if oldest.wall >= horizon and self.bytes <= self.max_bytes:
                break
            if oldest.wall >= horizon:
                early += 1
            del self._done[request]
            self.bytes -= oldest.size
        self.forgotten_early += early
        return early
