"""The wire patch of views without a socket: the tree names each changed
member once (set, removed, or descended into; lists whole), applying it
gives the new document back, views that share objects share their trees,
and a tree that does not fit the document is refused with PatchError."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.support import json_docs
from tests.support.json_docs import exact

from vigil import treepatch
from vigil.jsonpatch import PatchError

# Keys that would need escaping in a JSON Pointer need nothing here.
documents = json_docs.documents(st.text(alphabet="ab~/. ", max_size=3))


@given(old=documents, new=documents)
def test_applying_the_tree_gives_the_new_document(old: dict[str, Any], new: dict[str, Any]) -> None:
    tree = treepatch.diff_tree(old, new)
    patched = treepatch.apply_tree(copy.deepcopy(old), msgspec.json.decode(msgspec.json.encode(tree)))
    assert exact(patched) == exact(new)


@given(doc=documents)
def test_a_document_and_itself_differ_by_nothing(doc: dict[str, Any]) -> None:
    assert treepatch.diff_tree(doc, copy.deepcopy(doc)) == {}
    assert treepatch.diff_tree(doc, doc) == {}


def test_each_changed_member_is_named_once_under_the_objects_that_hold_it() -> None:
    old = {"a": 1, "b": {"c": 2, "d": 3, "same": {"x": 1}}, "gone": True, "kept": [1]}
    new = {"a": 2, "b": {"c": 2, "e": {"f": 4}, "same": {"x": 1}}, "new": None, "kept": [1]}
    assert treepatch.diff_tree(old, new) == {
        "a": 2,
        "b": {"d": [], "e": [{"f": 4}]},
        "gone": [],
        "new": None,
    }


def test_lists_are_replaced_whole_and_an_object_replacing_a_scalar_is_set() -> None:
    assert treepatch.diff_tree({"dice": [1, 2, 3]}, {"dice": [1, 2]}) == {"dice": [[1, 2]]}
    assert treepatch.diff_tree({"v": 1}, {"v": {"w": 2}}) == {"v": [{"w": 2}]}
    assert treepatch.diff_tree({"v": {"w": 2}}, {"v": [2]}) == {"v": [[2]]}


def test_true_one_and_one_point_zero_are_different_values() -> None:
    for value in (True, 1.0):
        tree = treepatch.diff_tree({"x": 1}, {"x": value})
        assert tree == {"x": value} and type(tree["x"]) is type(value)


def test_the_memo_diffs_shared_objects_once_and_the_views_share_the_tree() -> None:
    """Views of one table share objects: with a memo each shared pair is
    diffed once, wherever it sits, and every tree is what it would be
    without one."""
    shared_old, shared_new = {"hp": 1, "name": "A"}, {"hp": 2, "name": "A"}
    views_old = [{"chars": {"a": shared_old}, "who": i} for i in range(3)]
    views_new = [{"chars": {"a": shared_new}, "who": i} for i in range(3)]
    views_old.append({"elsewhere": shared_old})
    views_new.append({"elsewhere": shared_new})
    memo: treepatch.Memo = {}
    with_memo = [treepatch.diff_tree(o, n, memo) for o, n in zip(views_old, views_new, strict=True)]
    without = [treepatch.diff_tree(o, n) for o, n in zip(views_old, views_new, strict=True)]
    assert with_memo == without == [{"chars": {"a": {"hp": 2}}}] * 3 + [{"elsewhere": {"hp": 2}}]
    assert with_memo[0]["chars"]["a"] is with_memo[1]["chars"]["a"] is with_memo[3]["elsewhere"]


def test_a_scalar_is_set_as_itself_and_a_list_or_object_wrapped() -> None:
    """Two bytes less for each number or flag set, most of what changes;
    a set list or object stays wrapped so it is never read as a removal
    or a descent."""
    assert treepatch.diff_tree({"a": 1, "b": "x"}, {"a": None, "b": "y", "c": False}) == {
        "a": None,
        "b": "y",
        "c": False,
    }
    doc = {"a": 1, "l": [1], "o": {"p": 1}}
    tree = {"a": None, "b": "x", "c": 2.5, "l": [[2, 3]], "o": [{"q": 2}], "n": [{}]}
    assert treepatch.apply_tree(doc, tree) == {
        "a": None,
        "b": "x",
        "c": 2.5,
        "l": [2, 3],
        "o": {"q": 2},
        "n": {},
    }


def test_an_empty_tree_changes_nothing() -> None:
    doc = {"a": {"b": 1}}
    assert treepatch.apply_tree(doc, {}) == {"a": {"b": 1}}
    assert treepatch.apply_tree(doc, {"a": {}}) == {"a": {"b": 1}}


@pytest.mark.parametrize(
    "tree",
    [
        {"missing": []},
        {"missing": {"b": [1]}},
        {"n": {"b": [1]}},
        {"l": {"0": [1]}},
        {"o": {"gone": []}},
        {"a": [1, 2]},
        {"a": {1, 2}},
        [["a", 1]],
    ],
)
def test_a_tree_that_does_not_fit_the_document_is_refused(tree: Any) -> None:
    with pytest.raises(PatchError):
        treepatch.apply_tree({"a": 1, "n": 5, "l": [1], "o": {}}, tree)
