"""What a test does when a service it needs (PostgreSQL, Redis) is not
installed: fail under CI (``CI=true``), skip with the reason elsewhere. CI
must never pass by not running them; ``scripts/test.sh`` installs Debian's
packages for them as root."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn, Protocol, TypeVar

import pytest


def missing(reason: str, tests: str) -> NoReturn:
    """Fail under CI, skip elsewhere; ``tests`` names the tests that need it."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: {tests} must run in CI", pytrace=False)
    pytest.skip(reason)


class Service(Protocol):
    """A throwaway server a test session starts: its files live in ``directory``."""

    directory: Path

    def stop(self) -> None: ...


S = TypeVar("S", bound=Service)


def for_the_session(start: Callable[[], S]) -> Iterator[S]:
    """A session fixture's body: the service started, then stopped and its
    files removed after the last test."""
    service = start()
    try:
        yield service
    finally:
        service.stop()
        shutil.rmtree(service.directory, ignore_errors=True)
