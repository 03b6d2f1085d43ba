"""A pytest plugin: every event and every error frame the suites produce,
written to ``artifacts/words/capture.json`` for the words check
(``foundry-module/tools/check-words.mjs``, run by scripts/test.sh after
pytest), which renders them all through the pages' and the module's own
JavaScript.

Why a file and a later check rather than a test at the end of the run: the
check renders in Node, with the very functions the pages and the Foundry
module call, and what it renders is what the whole Python suite produced —
the rules tests (53,000+ events), the server tests over real sockets. A
test of its own would have to run those suites again (minutes) or skip when
run alone; a file written at the end of the session lets the check run
alone on the last capture, and the capture lists the test files that
produced it so that the check can refuse one that a partial run left.

What is captured, each with the names of the characters it mentions (as the
viewer's page knows them):
- events of the rules engine (``engine.apply`` / ``engine.advance``; the
  rules tests and the in-process servers both reach them through the
  module, so one wrapper sees both), as the log stores them;
- events of every committed change (``Change.entry``: the server's own
  events, such as ``undone`` or ``options_changed``);
- events as each viewer's history page gives them (the server's
  ``history_page``: a player's or spectator's bare events without
  parameters included; not the unit tests' made-up log entries);
- every error frame the server sends (``vigil.net.connection.error_message``,
  the one place that encodes them), every error frame the tests' client
  (tests/support/client.py) receives — from a server in a subprocess too —
  and every refusal the rules make (each ``RuleError`` made, wherever a
  test makes it happen), encoded as the frame that would carry it.

Identical captures are kept once.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.support.client import Client
from tests.support.patching import SessionPatches

from vigil import changes
from vigil.net import connection, errors, requests
from vigil.rules import engine
from vigil.rules.outcome import RuleError

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "artifacts" / "words" / "capture.json"


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, dictionary keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


class WordCapture(SessionPatches):
    """The plugin object (registered by tests/conftest.py)."""

    def __init__(self, path: Path = CAPTURE) -> None:
        super().__init__()
        self.path = path
        self.events: dict[str, dict[str, Any]] = {}
        self.errors: dict[str, dict[str, Any]] = {}
        self.files: set[str] = set()
        # Names of the characters the current test's tables had (id -> name):
        # an error frame carries ids only, the page maps them by its view.
        self.names: dict[str, str] = {}

    # -- recording ---------------------------------------------------------

    def _keep(
        self, store: dict[str, dict[str, Any]], what: str, value: dict[str, Any], names: Mapping[str, str]
    ) -> None:
        mentioned = {s: names[s] for s in set(_strings(value)) if s in names}
        record = {what: value, "names": mentioned}
        store.setdefault(json.dumps(record, sort_keys=True, default=str), record)

    def _learn(self, names: Mapping[str, str]) -> dict[str, str]:
        """Remember the current test's characters (a name once given is
        kept: a rules test's state may hold the same id unnamed)."""
        for cid, name in names.items():
            if name or cid not in self.names:
                self.names[cid] = name
        return dict(self.names)

    def event(self, event: dict[str, Any], names: Mapping[str, str], viewer: str = "gm") -> None:
        """``names``: what the viewer's page knows (a player's or a
        spectator's only its view's names; the GM's, every name seen)."""
        known = self._learn(names) if viewer == "gm" else dict(names)
        self._keep(self.events, "event", {**event, "viewer": viewer}, known)

    def error(self, frame: dict[str, Any], names: Mapping[str, str] | None = None) -> None:
        plain = {"code": frame["code"], "params": frame.get("params") or {}}
        self._keep(self.errors, "error", plain, self._learn(names or {}))

    # -- wrapping ------------------------------------------------------------

    def install(self) -> None:
        def rules_names(table: Any) -> dict[str, str]:
            chars = getattr(table, "characters", {}) or {}
            return {cid: getattr(ch, "name", "") or "" for cid, ch in chars.items()}

        def engine_call(original: Any) -> Any:
            def call(system: Any, table: Any, *args: Any, **kwargs: Any) -> Any:
                self._learn(rules_names(table))
                out = original(system, table, *args, **kwargs)
                names = self._learn(rules_names(out.state))  # a character it added too
                for ev in changes.render_events(out.events):
                    self.event(ev, names)
                return out

            return call

        def refusal(original: Any) -> Any:
            def init(err: RuleError, code: str, **kwargs: Any) -> None:
                original(err, code, **kwargs)
                frame = msgspec.json.decode(errors.error_message(err.code, dict(err.params), None))
                self.error(frame, self.names)

            return init

        def received(original: Any) -> Any:
            def handle(client: Client, msg: dict[str, Any]) -> None:
                original(client, msg)
                if msg.get("type") == "error":
                    chars = (client.state or {}).get("characters", {})
                    self.error(msg, {cid: str(ch.get("name", "")) for cid, ch in chars.items()})

            return handle

        def entry(original: Any) -> Any:
            def call(change: changes.Change, *args: Any, **kwargs: Any) -> Any:
                out = original(change, *args, **kwargs)
                meta = (change.doc or {}).get("meta", {})
                names = {cid: str(m.get("name", "")) for cid, m in meta.items()}
                for ev in out.events:
                    self.event(ev, names)
                return out

            return call

        def history(original: Any) -> Any:
            def call(entries: Any, table: Any, viewer: Any) -> Any:
                out = original(entries, table, viewer)
                # The names the viewer's page knows: those of its view.
                view = table.seen_by(viewer.audience)["characters"]
                names = {cid: str(ch.get("name", "")) for cid, ch in view.items()}
                for entry in out:
                    for ev in entry.events:
                        self.event(ev, names, viewer.role)
                return out

            return call

        def error_frame(original: Any) -> Any:
            def call(*args: Any, **kwargs: Any) -> bytes:
                out: bytes = original(*args, **kwargs)
                self.error(msgspec.json.decode(out), self.names)
                return out

            return call

        self.wrap(RuleError, "__init__", refusal)
        self.wrap(Client, "handle", received)
        self.wrap(engine, "apply", engine_call)
        self.wrap(engine, "advance", engine_call)
        self.wrap(changes.Change, "entry", entry)
        self.wrap(requests, "history_page", history)
        self.wrap(connection, "error_message", error_frame)

    # -- pytest hooks --------------------------------------------------------

    @pytest.hookimpl
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.names = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "setup":
            self.files.add(report.nodeid.split("::", 1)[0])

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.uninstall()
        if not self.files:
            return  # collection only, or nothing ran: keep the last capture
        document = {
            "written": time.strftime("%Y-%m-%d %H:%M:%S"),
            "exitstatus": int(exitstatus),
            "files": sorted(self.files),
            "events": list(self.events.values()),
            "errors": list(self.errors.values()),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(document, separators=(",", ":"), default=str))
        os.replace(tmp, self.path)
