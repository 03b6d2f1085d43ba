"""Words for people: every event and error code rendered with the parameters
the rules tests actually produced (issue 13, "Words for people").

tests/rules/conftest.py records every event and refusal that passes through
the rules engine during the session; this module sorts last in the
directory, so a run of tests/rules renders them all (run alone, with
nothing captured, it is skipped and says so). A sentence fails on a
leftover ``{…}`` (a parameter the template names and the event lacks), an
id where a name belongs (a poison as ``p0001``) or a singular counted as a
plural ("1 successes"). Codes no test produced are listed in the output
(not a failure: the list says what the suites leave untried).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.rules.word_capture import CAPTURED

from vigil.rules import words

LEFTOVER = re.compile(r"\{[A-Za-z0-9_.]+\}")
RAW_ID = re.compile(r"\bp\d{4}\b")
ONE_PLURAL = re.compile(r"(?<![\d.])1 (successes|stuns|wounds|shocks|hours|doses|dice|points)\b")


def sentences() -> tuple[list[str], set[str], set[str]]:
    events, errors = words.catalogue()
    problems: list[str] = []
    flagged: set[tuple[str, str, str]] = set()  # one line per code and kind of fault
    seen_events = {code for code, _ in CAPTURED["events"]}
    seen_errors = {code for code, _ in CAPTURED["errors"]}
    for kind, captured, templates in (
        ("event", CAPTURED["events"], events),
        ("error", CAPTURED["errors"], errors),
    ):
        for code, params in captured:
            if code not in templates:
                problems.append(f"{kind} {code} has no template")
                continue
            text = templates[code].format_map(_Lenient(params))
            for what, pattern in (("leftover", LEFTOVER), ("id", RAW_ID), ("plural", ONE_PLURAL)):
                if pattern.search(text) and (kind, code, what) not in flagged:
                    flagged.add((kind, code, what))
                    problems.append(f"{kind} {code} ({what}): {text!r}")
    return problems, set(events) - seen_events, set(errors) - seen_errors


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def test_every_produced_code_reads_as_words() -> None:
    if not CAPTURED["events"]:
        pytest.skip("nothing captured: run it with the rest of tests/rules")
    problems, no_event, no_error = sentences()
    print(f"\n{len(CAPTURED['events'])} events and {len(CAPTURED['errors'])} refusals rendered")
    print(f"event codes no test produced ({len(no_event)}): {', '.join(sorted(no_event))}")
    print(f"error codes no test produced ({len(no_error)}): {', '.join(sorted(no_error))}")
    assert problems == [], "\n".join(problems)
