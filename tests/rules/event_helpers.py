"""Reading a command's events in rules tests, the same for every game (each
game's helper module re-exports these, so a test imports from one place)."""

from __future__ import annotations

from vigil.rules.outcome import Event


def codes(events: list[Event]) -> list[str]:
    return [e.code for e in events]


def by_code(events: list[Event], code: str) -> list[Event]:
    """Every event of ``code``, in order."""
    return [e for e in events if e.code == code]


def one(events: list[Event], code: str) -> Event:
    """The one event of ``code`` (exactly one, or the test fails)."""
    found = by_code(events, code)
    assert len(found) == 1, codes(events)
    return found[0]
