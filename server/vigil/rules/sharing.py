"""Copies of a table state that copy only the characters the rules touch.

Every command is applied to a copy of the table state (:mod:`vigil.rules.engine`),
so that one refused half-way leaves the table as it was. Copying every
character for a command about one of them made the work of a command grow
with the table's size; here the table-level fields are copied at once (they
are small) and each character only when the rules first reach it. A
character they never reach is the old state's own object in the new state:
nothing can change it, and the views, the table document and their diffs
skip it by identity (``old is new``) instead of comparing or rendering it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

_MISSING: Any = object()


def deep_copy(value: T) -> T:
    """A deep, independent copy (msgpack round trip: fast and exact)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(value), type=type(value))


class CopyOnAccess(dict[str, Any]):
    """A table's characters, each copied from the old state's the first time
    anything reads it. Every way of reaching a value goes through
    ``__getitem__`` (items, values, get, pop, setdefault, iteration and so
    ``dict(...)`` and ``{**...}``), so rules code cannot reach, and change,
    the old state's objects; only the read-only paths of C code (``==``,
    msgspec encoding) see the old ones, and see what a copy would hold."""

    __slots__ = ("_copied", "_originals")

    def __init__(self, originals: dict[str, Any]) -> None:
        super().__init__(originals)
        self._originals = originals
        self._copied: list[str] = []

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        if self._originals.get(key, _MISSING) is value:
            value = deep_copy(value)
            dict.__setitem__(self, key, value)
            self._copied.append(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (self.get would recurse)

    def __iter__(self) -> Iterator[str]:
        # Defined so that CPython's dict merge (``dict(x)``, ``{**x}``,
        # ``update``) takes its slow path, through ``__getitem__``.
        return iter(list(dict.keys(self)))

    def values(self) -> list[Any]:  # type: ignore[override]
        self.copy_all()
        return list(dict.values(self))

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        self.copy_all()
        return list(dict.items(self))

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        if key in self:
            value = self[key]
            dict.__delitem__(self, key)
            return value
        if default is _MISSING:
            raise KeyError(key)
        return default

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        dict.__setitem__(self, key, default)
        return default

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(list(dict.keys(self))))
        return key, self.pop(key)

    def copy(self) -> dict[str, Any]:
        return dict(self.items())

    def __reduce__(self) -> Any:
        return (dict, (dict(self.items()),))

    def copy_all(self) -> None:
        """Copy every value not reached yet in one msgpack round trip, for
        code about to walk them all (a game's ``validate``, which may also
        normalize any of them): one C call instead of one per value. They
        are kept as copies (:meth:`settled` does not compare them)."""
        originals = self._originals
        left = {k: v for k, v in dict.items(self) if originals.get(k, _MISSING) is v}
        if not left:
            return
        kind = type(next(iter(left.values())))
        if any(type(v) is not kind for v in left.values()):
            for key in left:
                self[key]  # one by one
            return
        dict.update(self, _decoder(kind).decode(msgspec.msgpack.encode(left)))

    def settled(self) -> dict[str, Any]:
        """A plain dict of the values now, in their order: the old state's
        own object for every one not reached, or reached and left equal to
        it (so that it is shared by identity all the same)."""
        out = dict(dict.items(self))
        originals = self._originals
        for key in self._copied:
            old = originals[key]
            if key in out and _same(old, out[key]):
                out[key] = old
        return out


def _same(old: Any, new: Any) -> bool:
    """The same value, strictly: ``1``, ``1.0`` and ``true`` differ (as they
    do in the table document), so equality alone is not enough."""
    if old is new:
        return True
    if type(old) is not type(new) or old != new:
        return False
    return msgspec.msgpack.encode(old) == msgspec.msgpack.encode(new)


def copy_state(state: T) -> T:
    """A copy of ``state`` that nothing done to it changes ``state``: its
    dict fields (the characters; DRYH's open rolls) copied value by value
    as they are reached (:class:`CopyOnAccess`), the other fields at once.
    Call :func:`settle` before keeping it."""
    dicts = {name: value for name in _fields(state) if type(value := getattr(state, name)) is dict}
    shell = msgspec.structs.replace(state, **{name: {} for name in dicts})  # type: ignore[type-var]
    copy: T = deep_copy(shell)
    for name, value in dicts.items():
        setattr(copy, name, CopyOnAccess(value))
    return copy


def settle(state: T) -> T:
    """``state`` (a :func:`copy_state` copy the rules are done with) with
    plain dicts again, their unchanged values the old state's own objects:
    the form a state is kept in."""
    for name in _fields(state):
        value = getattr(state, name)
        if type(value) is CopyOnAccess:
            setattr(state, name, value.settled())
    return state


def as_read(state: T) -> T:
    """A :func:`copy_state` copy as it is now, for code that only reads it
    (``Game.due``): a shallow copy whose dicts are plain, holding the values
    reached so far and the old state's own for the rest, so that reading
    copies nothing. Nothing may change it."""
    plain = {
        name: dict(dict.items(value))
        for name in _fields(state)
        if type(value := getattr(state, name)) is CopyOnAccess
    }
    return msgspec.structs.replace(state, **plain) if plain else state  # type: ignore[type-var]


def peek(values: dict[str, T]) -> list[tuple[str, T]]:
    """The items of ``values`` as they are now, copying none: the old
    state's own object for each one a :class:`CopyOnAccess` has not reached
    yet. For code that reads them all and changes few (Hursagmu's
    ``validate``): it may only read these, and reaches ``values[key]`` (a
    copy) for one it must change."""
    return list(dict.items(values))


_DECODERS: dict[type[Any], msgspec.msgpack.Decoder[dict[str, Any]]] = {}


def _decoder(kind: type[Any]) -> msgspec.msgpack.Decoder[dict[str, Any]]:
    """A decoder of a dict of ``kind`` values, made once per kind (a type
    made anew at each call is inspected anew by msgspec)."""
    decoder = _DECODERS.get(kind)
    if decoder is None:
        decoder = _DECODERS[kind] = msgspec.msgpack.Decoder(dict[str, kind])  # type: ignore[valid-type]
    return decoder


def copy_all(state: Any) -> None:
    """Copy at once everything of a :func:`copy_state` copy not reached yet
    (:meth:`CopyOnAccess.copy_all`), before code that walks it all."""
    for name in _fields(state):
        value = getattr(state, name)
        if type(value) is CopyOnAccess:
            value.copy_all()


def _fields(state: Any) -> tuple[str, ...]:
    fields: tuple[str, ...] = state.__struct_fields__
    return fields
