"""RFC 6902 JSON Patch: the smallest diff between two JSON documents, and
applying one. These are the ops of the log entries on the table document
(recovery replays them, undo applies their inverse); what clients are sent
of their views is the tree form of :mod:`vigil.treepatch`.

Vigil's state keeps characters and rolls in maps keyed by stable ids, so a
diff of two states is a handful of ``replace``/``add``/``remove`` ops on
object members. Lists are short (injuries, dice) and replaced whole: a
positional list diff would save a few bytes and cost every client a harder
patch to apply. Written here rather than taken from a library because the
diff must be this specific shape (and fast, it runs on every command).
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]


def _escape(key: str) -> str:
    if "~" not in key and "/" not in key:
        return key
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """Ops that turn ``old`` into ``new`` (both plain JSON values)."""
    ops: list[Op] = []
    _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old is new:
        return
    if type(old) is dict and type(new) is dict:
        _diff_dicts(old, new, path, ops)
        return
    # bool is an int subclass: compare types too so True never equals 1.
    if type(old) is type(new) and old == new:
        return
    ops.append({"op": "replace", "path": path, "value": new})


def _diff_dicts(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    # The hot loop of every commit: members equal by identity or by value
    # are passed over without building their path or recursing, and the
    # added members are looked for only when the sizes say there are some.
    removed = 0
    for key, value in old.items():
        if key not in new:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
            removed += 1
            continue
        other = new[key]
        if value is other:
            continue
        kind = type(value)
        if kind is dict and type(other) is dict:
            _diff_dicts(value, other, f"{path}/{_escape(key)}", ops)
        # bool is an int subclass: compare types too so True never equals 1.
        elif kind is not type(other) or value != other:
            ops.append({"op": "replace", "path": f"{path}/{_escape(key)}", "value": other})
    if len(new) != len(old) - removed:
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})


def invert(ops: list[Op], old: Any) -> list[Op]:
    """The ops that take ``diff(old, new)``'s result back to ``old``, given
    that diff's ``ops``: the same as ``diff(new, old)`` (up to order, which
    does not matter: a diff's ops are at distinct object members, none
    inside another), read off the old document path by path instead of a
    second walk of both documents."""
    out: list[Op] = []
    for op in ops:
        path = op["path"]
        if op["op"] == "add":
            out.append({"op": "remove", "path": path})
        elif op["op"] == "remove":
            out.append({"op": "add", "path": path, "value": resolve(old, path)})
        else:
            out.append({"op": "replace", "path": path, "value": resolve(old, path)})
    return out


class PatchError(ValueError):
    pass


def apply(doc: Any, ops: list[Op]) -> Any:
    """Apply ``ops`` in place where possible; returns the new root."""
    for op in ops:
        doc = _apply_one(doc, op)
    return doc


def _apply_one(doc: Any, op: Op) -> Any:
    path: str = op["path"]
    kind = op["op"]
    if path == "":
        if kind in ("add", "replace"):
            return op["value"]
        raise PatchError(f"cannot {kind} the root")
    parent_path, _, last = path.rpartition("/")
    parent = resolve(doc, parent_path)
    key = _unescape(last)
    if isinstance(parent, list):
        if kind not in ("add", "replace", "remove"):
            raise PatchError(f"unsupported op {kind}")
        try:
            index = len(parent) if key == "-" else int(key)
            if kind == "add":
                parent.insert(index, op["value"])
            elif kind == "replace":
                parent[index] = op["value"]
            else:
                del parent[index]
        except (ValueError, IndexError):
            raise PatchError(f"no list member at {path!r}") from None
        return doc
    if not isinstance(parent, dict):
        raise PatchError(f"no object at {parent_path!r}")
    if kind in ("add", "replace"):
        if kind == "replace" and key not in parent:
            raise PatchError(f"nothing to replace at {path!r}")
        parent[key] = op["value"]
    elif kind == "remove":
        if key not in parent:
            raise PatchError(f"nothing to remove at {path!r}")
        del parent[key]
    else:
        raise PatchError(f"unsupported op {kind}")
    return doc


def resolve(doc: Any, path: str) -> Any:
    """The value at JSON Pointer ``path`` in ``doc``; PatchError if none."""
    node = doc
    if path == "":
        return node
    for token in path.split("/")[1:]:
        key = _unescape(token)
        try:
            node = node[int(key)] if isinstance(node, list) else node[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise PatchError(f"no value at {path!r}") from None
    return node
