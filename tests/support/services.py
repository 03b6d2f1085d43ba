"""What a test does when a service it needs (PostgreSQL, Redis) is not
installed: fail under CI (``CI=true``), skip with the reason elsewhere. CI
must never pass by not running them; ``scripts/test.sh`` installs Debian's
packages for them as root."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str, tests: str) -> NoReturn:
    """Fail under CI, skip elsewhere; ``tests`` names the tests that need it."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: {tests} must run in CI", pytrace=False)
    pytest.skip(reason)
