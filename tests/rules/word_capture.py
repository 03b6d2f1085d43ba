"""Where tests/rules/conftest.py keeps what the rules produced, for test_words.py
(a module of its own: both import this one copy)."""

from __future__ import annotations

from typing import Any

CAPTURED: dict[str, list[tuple[str, dict[str, Any]]]] = {"events": [], "errors": []}
