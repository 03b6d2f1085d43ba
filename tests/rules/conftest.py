"""Every event and refusal the rules tests produce, kept for the words test.

``engine.apply`` and ``engine.advance`` are wrapped for the whole session (the helpers call it as
``engine.apply``, so they reach the wrapper): each event's code, character
and parameters and each RuleError's code and parameters are appended to
``word_capture.CAPTURED``. tests/rules/test_words.py (last in this directory) renders
them all with the English templates.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.rules.word_capture import CAPTURED

from vigil.rules import engine
from vigil.rules.outcome import RuleError


@pytest.fixture(autouse=True, scope="session")
def capture_words() -> Iterator[None]:
    originals = {"apply": engine.apply, "advance": engine.advance}

    def recording(original: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                out = original(*args, **kwargs)
            except RuleError as err:
                CAPTURED["errors"].append((err.code, dict(err.params)))
                raise
            for ev in out.events:
                who = {"char": ev.char} if ev.char is not None else {}
                CAPTURED["events"].append((ev.code, {**who, **ev.params}))
            return out

        return call

    for name, original in originals.items():
        setattr(engine, name, recording(original))
    yield
    for name, original in originals.items():
        setattr(engine, name, original)
