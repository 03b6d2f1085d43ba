"""msgspec's validation messages become plain words naming the field
(vigil.plain_errors), from the messages msgspec itself produces."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.plain_errors import explain, refusal


class Body(msgspec.Struct, tag="x", forbid_unknown_fields=True):
    pain: Annotated[int, msgspec.Meta(ge=0)]
    kind: Literal["a", "b"] = "a"
    name: Annotated[str, msgspec.Meta(max_length=3)] = ""


class Msg(msgspec.Struct):
    body: Body


def message(data: object) -> str:
    try:
        msgspec.convert(data, Msg)
    except msgspec.ValidationError as exc:
        return str(exc)
    raise AssertionError("valid")


def test_each_kind_of_message_reads_as_a_sentence_about_its_field() -> None:
    cases = [
        ({"pain": -2}, "pain", "it must be 0 or more"),
        ({"pain": "x"}, "pain", "it must be a whole number, not text"),
        ({"pain": 1.5}, "pain", "it must be a whole number, not a number"),
        ({}, "pain", "it is required"),
        ({"pain": 1, "kind": "z"}, "kind", "'z' is not one of the choices"),
        ({"pain": 1, "name": "long"}, "name", "it must be at most 3 characters long"),
        ({"pain": 1, "extra": 1}, "extra", "there is no such field here"),
    ]
    for body, field, reason in cases:
        text = message({"body": {"type": "x", **body}})
        assert "`" in text  # msgspec's own wording, which people never see
        assert refusal(text) == ("bad_input", {"field": field, "reason": reason}), text
    assert explain("Expected `int` >= 0 - at `$.pain`") == ("pain", "it must be 0 or more")
    assert refusal("Expected `object`, got `int`") == (
        "bad_message",
        {"reason": "it must be a set of fields, not a whole number"},
    )
