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

    __slots__ = ("_originals",)

    def __init__(self, originals: dict[str, Any]) -> None:
        super().__init__(originals)
        self._originals = originals

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        if self._originals.get(key, _MISSING) is value:
            value = deep_copy(value)
            dict.__setitem__(self, key, value)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __iter__(self) -> Iterator[str]:
        # Defined so that CPython's dict merge (``dict(x)``, ``{**x}``,
        # ``update``) takes its slow path, through ``__getitem__``.
        return iter(list(dict.keys(self)))

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[key] for key in list(dict.keys(self))]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(key, self[key]) for key in list(dict.keys(self))]

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

    def settled(self) -> dict[str, Any]:
        """A plain dict of the characters now, in their order: the old
        state's own object for every character not reached, or reached and
        left equal to it (so that it is shared by identity all the same)."""
        out: dict[str, Any] = {}
        originals = self._originals
        for key in dict.keys(self):
            value = dict.__getitem__(self, key)
            old = originals.get(key, _MISSING)
            out[key] = old if old is not _MISSING and _same(old, value) else value
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
    table-level fields copied, its characters copied as they are reached
    (:class:`CopyOnAccess`). Call :func:`settle` before keeping it."""
    chars = state.characters  # type: ignore[attr-defined]
    shell = msgspec.structs.replace(state, characters={})  # type: ignore[type-var]
    copy = deep_copy(shell)
    copy.characters = CopyOnAccess(chars)  # type: ignore[attr-defined]
    return copy  # type: ignore[no-any-return]


def settle(state: T) -> T:
    """``state`` (a :func:`copy_state` copy the rules are done with) with
    its characters as a plain dict, the unchanged ones the old state's own
    objects: the form a state is kept in."""
    chars = state.characters  # type: ignore[attr-defined]
    if isinstance(chars, CopyOnAccess):
        state.characters = chars.settled()  # type: ignore[attr-defined]
    return state
