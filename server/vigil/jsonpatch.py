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
    for key, value in old.items():
        sub = f"{path}/{_escape(key)}"
        if key not in new:
            ops.append({"op": "remove", "path": sub})
        else:
            _diff(value, new[key], sub, ops)
    for key, value in new.items():
        if key not in old:
            ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})


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
