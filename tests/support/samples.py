"""A minimal valid body for every command, built from its msgspec type, so
that tests can walk the whole command union without hand-listing it."""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi

CHAR_FIELDS = {"char", "helper", "who", "patient", "healer", "target"}


def sample(cls: type[Any], char: str) -> dict[str, Any]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    body: dict[str, Any] = {"type": info.tag}
    for f in info.fields:
        if not f.required:
            continue
        body[f.encode_name] = _value(f.type, f.name, char)
    return body


def _value(t: mi.Type, name: str, char: str) -> Any:
    if isinstance(t, mi.Metadata):  # markers for the command catalogue
        return _value(t.type, name, char)
    if isinstance(t, mi.UnionType):
        options = [x for x in t.types if not isinstance(x, mi.NoneType)]
        return _value(options[0], name, char)
    if isinstance(t, mi.StrType):
        if name in CHAR_FIELDS:
            return char
        return "x" * max(1, t.min_length or 1)
    if isinstance(t, mi.BoolType):
        return False
    if isinstance(t, mi.IntType):
        low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else 0)
        return max(low, 1) if t.le is None or t.le >= 1 else low
    if isinstance(t, mi.FloatType):
        low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else 0.0)
        return float(max(low, 1.0))
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.ListType):
        return []
    if isinstance(t, mi.DictType):
        return {}
    if isinstance(t, mi.AnyType):
        return 0
    if isinstance(t, mi.StructType):
        return {f.encode_name: _value(f.type, f.name, char) for f in t.fields if f.required}
    raise TypeError(f"no sample for {t!r}")


def tag_of(cls: type[Any]) -> str:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return str(info.tag)


def is_valid(cls: type[Any], body: dict[str, Any]) -> bool:
    try:
        msgspec.convert(body, cls)
    except msgspec.ValidationError:
        return False
    return True
