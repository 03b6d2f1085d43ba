"""Verify a table's dice from its public history alone (``docs/dice.md``).

What ``vigil verify FILE`` runs, offline: it trusts nothing of the server
but the history it was given — a table export, or a history downloaded
from the ``/verify`` page — and recomputes every face from the revealed
seeds. The page's JavaScript is a second, independent implementation of
the same steps, so a sceptical player need not trust this one either.

Pure: a document in, a list of findings out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec

from vigil.changes import LogEntry
from vigil.rules import fair_dice

HISTORY_FORMAT = "vigil-history"
"""The ``format`` of a history the ``/verify`` page downloads."""
REVEAL_EVENT = "dice_revealed"
CORRECTION_EVENT = "corrected"
# Corrections whose field is one of a roll's dice: their faces are the GM's.
_DICE_FIELD_WORDS = ("dice", "faces", "lot")


@dataclass(frozen=True)
class Finding:
    """One line of a verification: a roll verified, a roll that cannot be
    verified and why (``manual_dice``, ``correction``, ``unrevealed``), or
    a failure (``mismatch``, ``bad_seed``, ``bad_commitment``,
    ``bad_order``). ``params`` fill the words of ``VIGIL.Verify.<status>``."""

    status: str
    rev: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status in FAILURES


FAILURES = frozenset({"mismatch", "bad_seed", "bad_commitment", "bad_order"})
UNVERIFIABLE = frozenset({"manual_dice", "correction", "unrevealed"})


class Source(msgspec.Struct, kw_only=True):
    """What a verification reads: the table, its epoch and its history's
    entries, oldest first (only the members verification needs)."""

    table: str
    epoch: int
    entries: list[dict[str, Any]]
    # Each character's name, where the file has them (an export does).
    names: dict[str, str] = {}


class BadFile(ValueError):
    """Not an export or a downloaded history: the message says why."""


def read(document: Any) -> Source:
    """The history of a table export (``vigil-table``) or of a history
    downloaded from the ``/verify`` page (``vigil-history``)."""
    if not isinstance(document, dict):
        raise BadFile("not a JSON object")
    kind = document.get("format")
    try:
        if kind == "vigil-table":
            log = msgspec.convert(document["history"], list[LogEntry])
            table = document["table"]
            entries = [{"rev": e.rev, "events": e.events, "dice": e.dice, "command": e.command} for e in log]
            meta = document.get("doc", {}).get("meta", {})
            names = {cid: str(m.get("name", cid)) for cid, m in meta.items()}
            return Source(table=str(table["id"]), epoch=int(table["epoch"]), entries=entries, names=names)
        if kind == HISTORY_FORMAT:
            return msgspec.convert(document, Source)
    except (KeyError, TypeError, msgspec.ValidationError) as exc:
        raise BadFile(str(exc)) from None
    raise BadFile("neither a vigil-table export nor a vigil-history")


def about(entry: dict[str, Any], names: dict[str, str]) -> str:
    """A roll in words: whose it is (by name where the file has names)
    and what its first event is."""
    events = entry.get("events") or []
    if not events:
        return "no event"
    first = events[0]
    char = first.get("char")
    code = str(first.get("code")).replace("_", " ")
    return code if char is None else f"{names.get(char, char)}, {code}"


def verify(source: Source) -> list[Finding]:
    """Every roll of ``source``: verified, not verifiable and why, or
    failed and what differs."""
    findings: list[Finding] = []
    seeds: dict[int, tuple[bytes, str]] = {}
    announced: dict[int, str] = {}
    previous: int | None = None
    for entry in source.entries:
        rev = int(entry["rev"])
        if previous is not None and rev <= previous:
            findings.append(Finding("bad_order", rev, {"rev": rev, "previous": previous}))
        previous = rev
        for event in entry.get("events") or []:
            if event.get("code") == REVEAL_EVENT:
                findings.extend(_reveal(rev, event.get("params") or {}, seeds, announced))
    for entry in source.entries:
        findings.extend(_entry(source, entry, seeds))
    return findings


def _reveal(
    rev: int, params: dict[str, Any], seeds: dict[int, tuple[bytes, str]], announced: dict[int, str]
) -> list[Finding]:
    """A reveal: its seed must hash to its commitment, and that must be the
    commitment the previous reveal announced for this period."""
    out: list[Finding] = []
    period, seed, commit = params.get("period"), params.get("seed"), params.get("commitment")
    if period is not None and isinstance(seed, str) and isinstance(commit, str):
        raw = bytes.fromhex(seed) if _is_hex(seed) else b""
        if fair_dice.commitment(raw) != commit:
            out.append(Finding("bad_seed", rev, {"period": period, "commitment": commit}))
        else:
            seeds[int(period)] = (raw, commit)
        before = announced.get(int(period))
        if before is not None and before != commit:
            roll = f"Rev {rev}"
            out.append(
                Finding(
                    "bad_commitment",
                    rev,
                    {"roll": roll, "period": period, "expected": before, "logged": commit},
                )
            )
    if params.get("next_period") is not None and isinstance(params.get("next_commitment"), str):
        announced[int(params["next_period"])] = str(params["next_commitment"])
    return out


def _entry(source: Source, entry: dict[str, Any], seeds: dict[int, tuple[bytes, str]]) -> list[Finding]:
    rev = int(entry["rev"])
    roll = {"roll": f"Rev {rev}, {about(entry, source.names)}"}
    out: list[Finding] = []
    for event in entry.get("events") or []:
        params = event.get("params") or {}
        if event.get("code") == CORRECTION_EVENT and any(
            w in str(params.get("field", "")) for w in _DICE_FIELD_WORDS
        ):
            out.append(Finding("correction", rev, roll))
    record = entry.get("dice")
    if not record:
        return out
    draws: list[list[Any]] = record.get("draws") or []
    if record.get("manual"):
        faces = (entry.get("command") or {}).get("faces") or []
        out.append(Finding("manual_dice", rev, {**roll, "faces": _faces(faces)}))
        if not draws:
            return out
    number = int(record["period"])
    known = seeds.get(number)
    if known is None:
        out.append(Finding("unrevealed", rev, {**roll, "period": number}))
        return out
    seed, commit = known
    if record.get("commitment") != commit:
        params = {**roll, "period": number, "expected": commit, "logged": record.get("commitment")}
        out.append(Finding("bad_commitment", rev, params))
        return out
    period = fair_dice.Period(seed, source.table, source.epoch, number, rev, record.get("nonce") or "")
    logged = [d[1] for d in draws]
    try:
        want = fair_dice.expected(period, draws)
    except (TypeError, ValueError, IndexError):
        want = []
    shown = shown_faces(entry)
    dice = [face for (what, face) in draws if not isinstance(what, list)]
    if want != logged:
        out.append(Finding("mismatch", rev, {**roll, "expected": _faces(want), "logged": _faces(logged)}))
    elif not _within(shown, dice):
        out.append(Finding("mismatch", rev, {**roll, "expected": _faces(dice), "logged": _faces(shown)}))
    else:
        out.append(Finding("verified", rev, {**roll, "faces": _faces(logged)}))
    return out


# Where an event shows the faces it rolled: a list of faces, or a DRYH
# roll's pools (lists of faces, helpers' lists by helper).
_FACE_PARAMS = ("faces", "dice")


def shown_faces(entry: dict[str, Any]) -> list[int]:
    """Every face the entry's events show (what people saw on screen):
    each must be one the period drew, or the events were changed."""
    out: list[int] = []
    for event in entry.get("events") or []:
        params = event.get("params") or {}
        for key in _FACE_PARAMS:
            out.extend(_ints(params.get(key)))
    return out


def _ints(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [i for v in value for i in _ints(v)]
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ints(v)]
    return []


def _within(shown: list[int], drawn: list[int]) -> bool:
    """Whether ``shown`` is part of ``drawn``, counting repeats."""
    left = Counter(drawn)
    left.subtract(Counter(shown))
    return all(n >= 0 for n in left.values())


def _faces(faces: list[Any]) -> str:
    return ", ".join(str(f) for f in faces) or "none"


def _is_hex(text: str) -> bool:
    return len(text) % 2 == 0 and all(c in "0123456789abcdef" for c in text)


TEMPLATES = {
    "verified": "{roll}: verified ({faces}).",
    "manual_dice": "{roll}: not verifiable, the GM's manual dice ({faces}).",
    "correction": "{roll}: not verifiable, a correction by the GM.",
    "unrevealed": "{roll}: not verifiable yet, dice period {period} is not revealed.",
    "mismatch": "{roll}: MISMATCH, expected {expected}, logged {logged}.",
    "bad_seed": "Dice period {period}: the revealed seed does not hash to its commitment {commitment}.",
    "bad_commitment": (
        "{roll}: rolled under commitment {logged}, but period {period} committed to {expected}."
    ),
    "bad_order": "The history is out of order: rev {rev} comes after rev {previous}.",
}
"""The English of each finding, as the CLI prints it (the page's words are
``VIGIL.Verify.*`` in the language file, the same sentences)."""


def sentence(finding: Finding) -> str:
    return TEMPLATES[finding.status].format(**finding.params)
