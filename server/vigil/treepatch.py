"""The patch of a view on the wire: a tree of changes that mirrors the view.

A view's diff only ever changes object members (lists are short and
replaced whole, see :mod:`vigil.jsonpatch`), so the changes of one rev are
at distinct members, none inside another, in no particular order. RFC 6902
spells each one as an op with its whole path (``{"op": "replace", "path":
"/characters/c1/sheet/resting", "value": true}``) and repeats the shared
prefix of every path; the tree names each member once, which is what makes
a patch small: the whole message of a Pain & Mettle rest start goes from
424 bytes to 219.

For each key of a tree:

- a number, string, boolean or null: set the member to that value (added or
  replaced);
- ``[v]``: set the member to ``v``, for a list or an object (so that a set
  list is never read as a removal, nor a set object as a descent);
- ``[]``: remove the member (it must be there);
- an object: descend into the member (an object that must be there) and
  apply that tree to it.

``{}`` changes nothing: the patch of a rev the audience sees nothing of.
The table document's log entries stay RFC 6902 (:mod:`vigil.jsonpatch`);
this form is only for what clients are sent. The same rules are applied by
the clients' ``applyChanges`` (foundry-module/scripts/core/patch.js).
"""

from __future__ import annotations

from typing import Any

from vigil.jsonpatch import PatchError

Tree = dict[str, Any]
# (id(old), id(new)) -> their tree: the tree of a pair of objects is the
# same wherever they sit, so views that share objects share its tree.
Memo = dict[tuple[int, int], Tree]


def diff_tree(old: dict[str, Any], new: dict[str, Any], memo: Memo | None = None) -> Tree:
    """The tree that turns object ``old`` into object ``new`` (plain JSON).

    Set values are ``new``'s own objects, not copies, and with ``memo`` a
    subtree may be shared by several results: they are for encoding, not
    for changing. ``memo`` lets the views of one table for its audiences,
    which share objects, diff each shared pair once; it must not outlive
    those objects (an id may be reused once one is gone)."""
    if old is new:
        return {}
    if memo is None:
        return _diff_objects(old, new, None)
    key = (id(old), id(new))
    done = memo.get(key)
    if done is None:
        done = memo[key] = _diff_objects(old, new, memo)
    return done


def _diff_objects(old: dict[str, Any], new: dict[str, Any], memo: Memo | None) -> Tree:
    tree: Tree = {}
    for key, was in old.items():
        if key not in new:
            tree[key] = []
            continue
        now = new[key]
        if was is now:
            continue
        if type(was) is dict and type(now) is dict:
            sub = diff_tree(was, now, memo)
            if sub:
                tree[key] = sub
        # bool is an int subclass: compare types too so True never equals 1.
        elif type(was) is not type(now) or was != now:
            tree[key] = _set(now)
    for key, now in new.items():
        if key not in old:
            tree[key] = _set(now)
    return tree


def _set(value: Any) -> Any:
    """How a tree sets a member to ``value``: a scalar as itself, a list or
    an object wrapped as ``[value]`` (two bytes a list or object, none for
    the numbers and flags that most changes are)."""
    kind = type(value)
    return [value] if kind is list or kind is dict else value


def apply_tree(doc: dict[str, Any], tree: Tree) -> dict[str, Any]:
    """Apply ``tree`` to object ``doc`` in place and return ``doc``; set
    values go in as they are (not copied). PatchError when the tree does
    not fit the document (a member to descend into is missing or not an
    object, a member to remove is absent) or is not a tree: the client's
    view is then not the one the patch was made from, and it re-syncs."""
    if type(tree) is not dict:
        raise PatchError("changes must be an object")
    for key, change in tree.items():
        if type(change) is list:
            if len(change) == 1:
                doc[key] = change[0]
            elif change:
                raise PatchError(f"a change of {key!r} holds {len(change)} values")
            elif key in doc:
                del doc[key]
            else:
                raise PatchError(f"nothing to remove at {key!r}")
        elif type(change) is dict:
            target = doc.get(key)
            if type(target) is not dict:
                raise PatchError(f"no object to change at {key!r}")
            apply_tree(target, change)
        elif change is None or type(change) in (str, int, float, bool):
            doc[key] = change
        else:
            raise PatchError(f"the change of {key!r} is neither a value, [value], [] nor an object")
    return doc
