"""msgspec's validation messages as plain English for people.

msgspec says ``Expected `int` >= 0 - at `$.body.pain```; a GM should read
"Pain: it must be 0 or more." This module turns such a message into the
field path it names (``pain``) and a plain reason; the clients put the
field's label (lang/en.json ``VIGIL.Field.<name>``) in front, and the form
builder marks that field. Pure and synchronous: no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Any

_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)

_TYPES = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "yes or no",
    "array": "a list",
    "object": "a set of fields",
    "null": "empty",
}

_BOUNDS = {">=": "{n} or more", ">": "more than {n}", "<=": "{n} or less", "<": "less than {n}"}
_LENGTHS = {">=": "at least {n}", ">": "more than {n}", "<=": "at most {n}", "<": "fewer than {n}"}


_RANGES = {
    "A-Z": "capital letters",
    "a-z": "small letters",
    "0-9": "digits",
    "a-f": "the letters a to f",
}
_ONE = {
    "capital letters": "a capital letter",
    "small letters": "a small letter",
    "letters": "a letter",
    "digits": "a digit",
}


def _class_words(chars: str) -> str:
    """A regex character class's content (``A-Za-z0-9_-``) in words."""
    words: list[str] = []
    for rng, word in _RANGES.items():
        if rng in chars:
            words.append(word)
            chars = chars.replace(rng, "")
    if {"capital letters", "small letters"} <= set(words):
        words = ["letters", *(w for w in words if w not in ("capital letters", "small letters"))]
    marks = " ".join(chars.replace("\\", ""))
    if marks:
        words.append(marks)
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def _pattern_reason(regex: str) -> str:
    """What a pattern of ``whole(...)`` (rules/commands.py) allows, read from
    the pattern itself so that each field's own rule is told (a nonce's hex
    digits, a table id's letters without dots): one class repeated, or a
    first character and a repeated rest."""
    body = re.sub(r"^\^(\(\?!\.\*\\+n\))?|\$$", "", regex)
    classes = re.fullmatch(r"\[([^\]]+)\](?:\[([^\]]+)\][*+])?\+?", body)
    if not classes:
        return "it contains characters that are not allowed here"
    first, rest = classes[1], classes[2]
    if rest is None:
        return f"it may use only {_class_words(first)}"
    one = _ONE.get(_class_words(first), f"one of {_class_words(first)}")
    return f"it must start with {one} and use only {_class_words(rest)}"


def _type_word(name: str) -> str:
    words = [_TYPES.get(part.strip(" `"), part.strip(" `")) for part in name.split("|")]
    return " or ".join(words)


_BOUND_CODES = {">=": "at_least", ">": "more_than", "<=": "at_most", "<": "less_than"}


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def _reason(what: str) -> tuple[str, str | None, dict[str, Any]]:
    """The plain reason of one message, a field it adds to the path, and
    the reason as a code with its values (``{"why": "at_least", "limit":
    0}``) for the clients to word in the reader's language
    (lang/*.json ``VIGIL.Reason.<why>``); empty where only the English
    says it (a pattern's characters, a type's name, a length)."""
    m = re.fullmatch(r"Expected `(\w+)` (>=|>|<=|<) (-?[\d.]+)", what)
    if m:
        why = {"why": _BOUND_CODES[m[2]], "limit": _number(m[3])}
        return "it must be " + _BOUNDS[m[2]].format(n=m[3]), None, why
    m = re.fullmatch(r"Expected `(str|array|object)` of length (>=|>|<=|<) (\d+)", what)
    if m:
        unit = "characters long" if m[1] == "str" else "entries"
        verb = "it must be" if m[1] == "str" else "it must have"
        return f"{verb} {_LENGTHS[m[2]].format(n=m[3])} {unit}", None, {}
    m = re.fullmatch(r"Expected `str` matching regex '(.*)'", what, re.DOTALL)
    if m:
        return _pattern_reason(m[1]), None, {}
    m = re.fullmatch(r"Expected `([^`]+)`, got `([^`]+)`", what)
    if m:
        return f"it must be {_type_word(m[1])}, not {_type_word(m[2])}", None, {}
    m = re.fullmatch(r"Invalid enum value (.+)", what)
    if m:
        return f"{m[1]} is not one of the choices", None, {"why": "not_a_choice", "given": m[1]}
    m = re.fullmatch(r"Object missing required field `([^`]+)`", what)
    if m:
        return "it is required", m[1], {"why": "required"}
    m = re.fullmatch(r"Object contains unknown field `([^`]+)`", what)
    if m:
        return "there is no such field here", m[1], {"why": "unknown_field"}
    m = re.fullmatch(r"Invalid value (.+)", what)
    if m:
        return f"{m[1]} is not allowed", None, {"why": "not_allowed", "given": m[1]}
    return "it is not valid", None, {"why": "invalid"}


def _path(raw: str | None, extra: str | None) -> str | None:
    parts = [p for p in re.split(r"\.|\[(\d+)\]", raw or "") if p]
    if extra:
        parts.append(extra)
    return ".".join(parts) or None


def explained(message: str) -> tuple[str | None, str, dict[str, Any]]:
    """(dotted field path or None, plain reason, the reason as a code) of a msgspec message."""
    m = _AT.match(message.strip())
    what, raw = (m["what"], m["path"]) if m else (message, None)
    reason, extra, why = _reason(what.strip())
    return _path(raw, extra), reason, why


def explain(message: str) -> tuple[str | None, str]:
    """(dotted field path or None, plain reason) of a msgspec message."""
    path, reason, _ = explained(message)
    return path, reason


def refusal(message: str) -> tuple[str, dict[str, Any]]:
    """The error a client gets for a message that failed validation: a
    command body's field is ``bad_input`` {field, reason} (field relative
    to the body, as the forms name it); anything else ``bad_message``.
    The reason also travels as a code (``why`` and its ``limit`` or
    ``given``) where the clients have words for it."""
    path, reason, why = explained(message)
    if path and (path == "body" or path.startswith("body.")):
        field = path.removeprefix("body").lstrip(".") or None
        if field:
            return "bad_input", {"field": field, "reason": reason, **why}
        return "bad_message", {"reason": reason, **why}
    if path:
        return "bad_message", {"reason": f"{path}: {reason}"}
    return "bad_message", {"reason": reason, **why}
