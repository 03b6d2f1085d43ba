"""The scaffolding the suite's watching plugins share: wrap a function of
the code under test for the whole session, and put every original back at
its end.

Why plugins patch at all: what they watch (every event the rules make,
every frame a test's client receives, every log line) passes through a
handful of functions that the code calls from many places; wrapping those
few sees all of it without any test having to opt in. Patching is done
once per session and undone in reverse order, so that plugins stacked on
the same function (the words capture and the seed watch both wrap
``Client.handle``) unwind cleanly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


class SessionPatches:
    """A pytest plugin base: :meth:`install` wraps, the session's end unwraps."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        """Replace ``owner.name`` by ``make(original)`` until :meth:`uninstall`."""
        original = getattr(owner, name)
        setattr(owner, name, make(original))
        self._undo.append(lambda: setattr(owner, name, original))

    def install(self) -> None:
        """Wrap what the plugin watches (each plugin says what)."""
        raise NotImplementedError

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    @pytest.hookimpl
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.install()

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.uninstall()
