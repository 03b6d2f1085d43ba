"""JSON Patch without a socket: the diff is the shape the clients expect
(object members, lists whole), applying it gives the new document back,
and every malformed patch is refused with PatchError."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.support import json_docs
from tests.support.json_docs import exact

from vigil import jsonpatch
from vigil.jsonpatch import PatchError

# Keys that need escaping in a JSON Pointer.
documents = json_docs.documents(st.text(alphabet="ab~/ ", min_size=1, max_size=3))


@given(old=documents, new=documents)
def test_applying_the_diff_gives_the_new_document(old: dict[str, Any], new: dict[str, Any]) -> None:
    ops = jsonpatch.diff(old, new)
    patched = jsonpatch.apply(copy.deepcopy(old), ops)
    assert exact(patched) == exact(new)


@given(old=documents, new=documents)
def test_the_inverse_takes_the_new_document_back_to_the_old(old: dict[str, Any], new: dict[str, Any]) -> None:
    """``invert`` reads the undo of a diff off the old document: applied
    to the new one it gives the old back, as ``diff(new, old)`` would."""
    ops = jsonpatch.diff(old, new)
    inverse = jsonpatch.invert(ops, old)
    assert exact(jsonpatch.apply(copy.deepcopy(new), inverse)) == exact(old)
    assert sorted(exact(op) for op in inverse) == sorted(exact(op) for op in jsonpatch.diff(new, old))


@given(doc=documents)
def test_a_document_and_itself_differ_by_nothing(doc: dict[str, Any]) -> None:
    assert jsonpatch.diff(doc, copy.deepcopy(doc)) == []
    assert jsonpatch.diff(doc, doc) == []


def test_members_are_replaced_added_and_removed_one_by_one() -> None:
    old = {"a": 1, "b": {"c": 2, "d": 3}, "gone": True}
    new = {"a": 2, "b": {"c": 2, "e": 4}, "new": None}
    assert jsonpatch.diff(old, new) == [
        {"op": "replace", "path": "/a", "value": 2},
        {"op": "remove", "path": "/b/d"},
        {"op": "add", "path": "/b/e", "value": 4},
        {"op": "remove", "path": "/gone"},
        {"op": "add", "path": "/new", "value": None},
    ]


def test_lists_are_replaced_whole() -> None:
    assert jsonpatch.diff({"dice": [1, 2, 3]}, {"dice": [1, 2]}) == [
        {"op": "replace", "path": "/dice", "value": [1, 2]}
    ]


def test_true_and_one_are_different_values() -> None:
    assert jsonpatch.diff({"x": 1}, {"x": True}) == [{"op": "replace", "path": "/x", "value": True}]
    assert jsonpatch.diff({"x": 1}, {"x": 1.0}) == [{"op": "replace", "path": "/x", "value": 1.0}]


def test_keys_with_tilde_and_slash_are_escaped_and_read_back() -> None:
    ops = jsonpatch.diff({}, {"a/b": {"~c": 1}})
    assert ops == [{"op": "add", "path": "/a~1b", "value": {"~c": 1}}]
    doc = jsonpatch.apply({"a/b": {"~c": 1}}, [{"op": "replace", "path": "/a~1b/~0c", "value": 2}])
    assert doc == {"a/b": {"~c": 2}}
    assert jsonpatch.resolve(doc, "/a~1b/~0c") == 2


def test_list_members_are_added_replaced_and_removed_by_index() -> None:
    doc: dict[str, Any] = {"l": [1, 2]}
    doc = jsonpatch.apply(doc, [{"op": "add", "path": "/l/-", "value": 3}])
    doc = jsonpatch.apply(doc, [{"op": "add", "path": "/l/0", "value": 0}])
    doc = jsonpatch.apply(doc, [{"op": "replace", "path": "/l/1", "value": 9}])
    doc = jsonpatch.apply(doc, [{"op": "remove", "path": "/l/2"}])
    assert doc == {"l": [0, 9, 3]}


def test_the_root_may_be_replaced_but_not_removed() -> None:
    assert jsonpatch.apply({"a": 1}, [{"op": "replace", "path": "", "value": [1]}]) == [1]
    with pytest.raises(PatchError):
        jsonpatch.apply({"a": 1}, [{"op": "remove", "path": ""}])


@pytest.mark.parametrize(
    "op",
    [
        {"op": "replace", "path": "/missing", "value": 1},
        {"op": "remove", "path": "/missing"},
        {"op": "add", "path": "/missing/deeper", "value": 1},
        {"op": "add", "path": "/n/x", "value": 1},
        {"op": "move", "path": "/a", "from": "/n"},
        {"op": "copy", "path": "/l/0", "from": "/n"},
        {"op": "add", "path": "/l/x", "value": 1},
        {"op": "replace", "path": "/l/5", "value": 1},
        {"op": "remove", "path": "/l/-"},
    ],
)
def test_a_patch_that_does_not_fit_the_document_is_refused(op: dict[str, Any]) -> None:
    with pytest.raises(PatchError):
        jsonpatch.apply({"a": 1, "n": 5, "l": [1]}, [op])


def test_resolve_finds_a_value_or_says_there_is_none() -> None:
    doc = {"a": {"b": [10, {"c": "x"}]}}
    assert jsonpatch.resolve(doc, "") is doc
    assert jsonpatch.resolve(doc, "/a/b/1/c") == "x"
    for missing in ("/z", "/a/b/5", "/a/b/x", "/a/b/0/c"):
        with pytest.raises(PatchError):
            jsonpatch.resolve(doc, missing)
