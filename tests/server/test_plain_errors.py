"""msgspec's validation messages become plain words naming the field
(vigil.plain_errors), from the messages msgspec itself produces."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from vigil.plain_errors import explain, refusal
from vigil.rules.commands import Ident, Nonce
from vigil.table_commands import TableId


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
    cases: list[tuple[dict[str, object], str, str, dict[str, object]]] = [
        ({"pain": -2}, "pain", "it must be 0 or more", {"why": "at_least", "limit": 0}),
        ({"pain": "x"}, "pain", "it must be a whole number, not text", {}),
        ({"pain": 1.5}, "pain", "it must be a whole number, not a number", {}),
        ({}, "pain", "it is required", {"why": "required"}),
        (
            {"pain": 1, "kind": "z"},
            "kind",
            "'z' is not one of the choices",
            {"why": "not_a_choice", "given": "'z'"},
        ),
        ({"pain": 1, "name": "long"}, "name", "it must be at most 3 characters long", {}),
        ({"pain": 1, "extra": 1}, "extra", "there is no such field here", {"why": "unknown_field"}),
    ]
    # The reason also travels as a code with its values, for the clients to
    # word in the reader's language (lang/*.json VIGIL.Reason.<why>).
    for body, field, reason, why in cases:
        text = message({"body": {"type": "x", **body}})
        assert "`" in text  # msgspec's own wording, which people never see
        assert refusal(text) == ("bad_input", {"field": field, "reason": reason, **why}), text
    assert explain("Expected `int` >= 0 - at `$.pain`") == ("pain", "it must be 0 or more")
    assert refusal("Expected `object`, got `int`") == (
        "bad_message",
        {"reason": "it must be a set of fields, not a whole number"},
    )


def test_a_pattern_refusal_says_what_that_field_allows() -> None:
    """Each pattern's own characters, read from the pattern (a nonce is hex
    digits, a table id has no dots), never one sentence for all."""

    def reason(typ: object, value: str) -> str:
        try:
            msgspec.convert(value, typ)
        except msgspec.ValidationError as exc:
            return explain(str(exc))[1]
        raise AssertionError("valid")

    assert reason(Nonce, "x" * 32) == "it may use only digits and the letters a to f"
    assert reason(Ident, "a b") == "it may use only letters, digits and _ . : -"
    assert reason(TableId, "a.b") == "it may use only letters, digits and _ -"
    trait = Annotated[str, msgspec.Meta(pattern="^(?!.*\\n)[a-z][a-z0-9_]*$")]
    assert reason(trait, "9x") == "it must start with a small letter and use only small letters, digits and _"
    other = Annotated[str, msgspec.Meta(pattern="^x|y$")]
    assert reason(other, "z") == "it contains characters that are not allowed here"
