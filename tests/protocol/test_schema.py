"""schemas/ is generated from protocol.py and must never drift from it: the
JavaScript clients validate against these files."""

from __future__ import annotations

import json
import pathlib
import string

import msgspec
import pytest

from vigil.protocol import ALL_COMMANDS, client_decoder
from vigil.rules import words
from vigil.schema_files import CATALOGUE_MODULE, contents, render, render_module

ROOT = pathlib.Path(__file__).parents[2]
SCHEMAS = ROOT / "schemas"


@pytest.mark.parametrize("name", sorted(contents()))
def test_committed_schema_matches_protocol(name: str) -> None:
    committed = (SCHEMAS / name).read_text()
    assert committed == render(contents()[name]), f"run `vigil schema --out schemas` ({name})"


def test_committed_catalogue_module_matches_the_catalogue() -> None:
    """The client core's copy of the command catalogue, outside schemas/."""
    committed = (ROOT / CATALOGUE_MODULE).read_text()
    assert committed == render_module(contents()["catalogue.json"]), "run `vigil schema --out schemas`"


def test_every_command_tag_is_unique_and_namespaced() -> None:
    tags = [c.__struct_config__.tag for c in ALL_COMMANDS]
    assert len(tags) == len(set(tags))
    assert all(isinstance(t, str) and t for t in tags)


def test_unknown_fields_and_types_are_refused() -> None:
    good = {"type": "cmd", "id": "1", "table": "t", "body": {"type": "combat.start"}}
    client_decoder.decode(json.dumps(good))
    for bad in (
        {**good, "extra": 1},
        {**good, "body": {"type": "combat.start", "extra": 1}},
        {**good, "body": {"type": "no.such.command"}},
        {**good, "id": ""},
        {"type": "hello", "protocol": 1},
    ):
        with pytest.raises(msgspec.ValidationError):
            client_decoder.decode(json.dumps(bad))


def test_every_code_in_the_catalogue_has_an_english_template() -> None:
    events, errors = words.catalogue()
    assert events and errors
    formatter = string.Formatter()
    for code, template in [*events.items(), *errors.items()]:
        assert template.strip(), code
        names = [field for _, field, _, _ in formatter.parse(template) if field is not None]
        assert all(name.isidentifier() for name in names), (code, template)
