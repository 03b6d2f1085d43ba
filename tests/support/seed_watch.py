"""A pytest plugin: no dice seed leaves a server before it is revealed
(docs/dice.md), in any test of the run.

Every seed a table makes in this process (``Table._new_period``) is a
secret until its reveal (``Table._revealing`` makes it public). Everything
the tests' servers send and log is scanned for a secret, the way the words
check scans every event: each frame the tests' client receives (views,
patches, history pages, exports, errors), each log line structlog prints,
and each export made. A leak fails the test it happened in, naming where
the seed was seen. Servers in a subprocess keep their seeds to themselves;
tests/server/test_dice.py scans what those send and log after the reveal
told it the seed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import structlog
from tests.support.client import Client
from tests.support.patching import SessionPatches

from vigil import export, table
from vigil.net import requests


class SeedWatch(SessionPatches):
    """The plugin object (registered by tests/conftest.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        self.leaks: list[str] = []
        self.scanned = 0

    def scan(self, where: str, value: Any) -> None:
        if not self.secrets:
            return
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        self.scanned += 1
        for secret in self.secrets:
            if secret in text:
                self.leaks.append(f"an unrevealed dice seed in {where}: {text[:200]}")

    def install(self) -> None:
        def new_period(original: Any) -> Any:
            def call(t: table.Table, *args: Any, **kwargs: Any) -> dict[str, Any]:
                period: dict[str, Any] = original(t, *args, **kwargs)
                self.secrets.add(period["seed"])
                return period

            return call

        def revealing(original: Any) -> Any:
            def call(t: table.Table, *args: Any, **kwargs: Any) -> Any:
                old = t.doc.get("dice")
                if old is not None:
                    self.secrets.discard(old["seed"])
                return original(t, *args, **kwargs)

            return call

        def received(original: Any) -> Any:
            def handle(client: Client, msg: dict[str, Any]) -> None:
                self.scan(f"a {msg.get('type')} frame", msg)
                original(client, msg)

            return handle

        def printed(original: Any) -> Any:
            def msg(logger: Any, message: str) -> None:
                self.scan("a log line", message)
                original(logger, message)

            return msg

        def exported(original: Any) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                out = original(*args, **kwargs)
                self.scan("an export", out)
                return out

            return call

        self.wrap(table.Table, "_new_period", new_period)
        self.wrap(table.Table, "_revealing", revealing)
        self.wrap(Client, "handle", received)
        self.wrap(structlog.PrintLogger, "msg", printed)
        self.wrap(export, "export", exported)
        self.wrap(requests, "export", exported)

    @pytest.hookimpl
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        # A seed belongs to a table of one test: the next test's servers never saw it.
        self.secrets.clear()
        self.leaks.clear()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        out = yield
        leaks, self.leaks = self.leaks, []
        assert not leaks, leaks[0]
        return out
