"""Plain JSON documents for the diff and patch tests: hypothesis strategies
and a comparison that tells ``1``, ``1.0`` and ``true`` apart."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import strategies as st

scalars = (
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2, allow_nan=False) | st.text(max_size=3)
)


def documents(keys: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects of nested objects, lists and scalars with members named by
    ``keys`` (each test chooses which names are awkward for it)."""
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=12,
    )
    return st.dictionaries(keys, values, max_size=5)


def exact(value: Any) -> bytes:
    """JSON bytes, member order aside (a member set anew goes last): 1,
    1.0 and true stay apart, as they do for the diffs."""
    return msgspec.json.encode(_sorted(value))


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value
