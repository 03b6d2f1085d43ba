"""Dice anyone at the table can verify: a committed seed, faces derived from it.

Each table has a dice *period*: a 32-byte secret seed whose SHA-256
commitment every audience sees before any die of the period is rolled.
Every face is an HMAC-SHA-256 of the seed and public inputs only (the
table, its epoch, the period, the rev of the change that rolls it, the
draw's position in that change, the rolling client's nonce), mapped to a
face by rejection, never by a bare modulo, so that no face is likelier
than another. Once the seed is revealed, anyone can recompute every face.
The exact derivation, with test vectors, is ``docs/dice.md``; this module
and the ``/verify`` page's JavaScript are two implementations of it.

Pure and synchronous like the rest of the rules: the seed comes in, faces
and a record of what was drawn come out.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SEED_BYTES = 32
"""The seed's size: as much entropy as SHA-256 can commit to."""
NONCE_HEX = 32
"""A client nonce: 16 bytes as 32 lowercase hex digits (``docs/dice.md``)."""
LABEL = "vigil-dice-1"
"""The first line of every HMAC message: a new derivation gets a new label."""
SAMPLE_BITS = 32
"""Bits of each HMAC taken as one uniform sample (its first 4 bytes)."""
FINGERPRINT_HEX = 8
"""How much of a commitment pages and cards show: enough to compare by eye."""


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: its SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def fingerprint(commit: str) -> str:
    """The short form of a commitment that people compare by eye."""
    return commit[:FINGERPRINT_HEX]


def message(table: str, epoch: int, period: int, rev: int, position: int, nonce: str, attempt: int) -> bytes:
    """The HMAC message of one attempt at one draw (``docs/dice.md``).
    Table ids hold no newline (their pattern), so the lines cannot run
    into each other."""
    return "\n".join(
        (LABEL, table, str(epoch), str(period), str(rev), str(position), nonce, str(attempt))
    ).encode()


def accept(sample: int, n: int, bits: int = SAMPLE_BITS) -> int | None:
    """A uniform ``bits``-bit ``sample`` as a uniform value in ``0..n-1``,
    or None to draw again: samples at or past the largest multiple of
    ``n`` are rejected, so every value keeps exactly as many samples."""
    if n < 1:
        raise ValueError("nothing to draw from")
    space = 1 << bits
    limit = space - space % n
    return sample % n if sample < limit else None


def uniform(seed: bytes, prefix: tuple[str, int, int, int, int, str], n: int) -> int:
    """A uniform value in ``0..n-1`` for the draw named by ``prefix``
    (table, epoch, period, rev, position, nonce), by rejection. One-shot
    ``hmac.digest`` (OpenSSL's, no HMAC object per attempt): a die costs a
    few microseconds."""
    attempt = 0
    while True:
        digest = hmac.digest(seed, message(*prefix, attempt), "sha256")
        value = accept(int.from_bytes(digest[:4], "big"), n)
        if value is not None:
            return value
        attempt += 1


def lot_index(value: int, weights: Sequence[int]) -> int:
    """The Cast Lot (MET-02) a uniform ``value`` in ``0..sum(weights)-1``
    picks: the first whose running total passes it."""
    total = 0
    for index, weight in enumerate(weights):
        total += weight
        if value < total:
            return index
    raise ValueError("value past the weights")


@dataclass(frozen=True, slots=True)
class Period:
    """The dice period a change rolls in, and where its draws are named."""

    seed: bytes
    table: str
    epoch: int
    number: int
    rev: int
    nonce: str = ""


@dataclass
class DerivedDice:
    """A :class:`~vigil.rules.dice.DiceSource` whose faces are derived from a
    committed seed; it records each draw (sides and face, or weights and
    lot) in order, which the change's log entry keeps for verifiers."""

    period: Period
    draws: list[list[Any]] = field(default_factory=list)

    def _uniform(self, n: int) -> int:
        p = self.period
        return uniform(p.seed, (p.table, p.epoch, p.number, p.rev, len(self.draws), p.nonce), n)

    def die(self, sides: int) -> int:
        face = self._uniform(sides) + 1
        self.draws.append([sides, face])
        return face

    def weighted(self, weights: Sequence[int]) -> int:
        index = lot_index(self._uniform(sum(weights)), weights)
        self.draws.append([list(weights), index])
        return index


def expected(period: Period, draws: Sequence[Sequence[Any]]) -> list[Any]:
    """What each of ``draws`` (as a :class:`DerivedDice` recorded them)
    must be under ``period``: a face for a die, a lot's index for weights.
    The verifier's half of the derivation."""
    dice = DerivedDice(period)
    out: list[Any] = []
    for what, _ in draws:
        out.append(dice.weighted(what) if isinstance(what, list) else dice.die(int(what)))
    return out
