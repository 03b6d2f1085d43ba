"""Who may send which command (docs/design.md "Permissions"), in one table.

The server checks every command against the connection's role before the
rules see it. A player may act only through its own characters: the fields
named here must each name one of the characters its token is bound to.
Anything not listed is GM-only; operator commands need the operator token.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from msgspec import inspect as mi

from vigil.protocol import ALL_COMMANDS
from vigil.table_commands import OPERATOR_COMMANDS

# command tag -> fields that must name one of the player's own characters
PLAYER_OWN: dict[str, tuple[str, ...]] = {
    # DRYH: declarations and rolls in own rolls, pending choices, help with own
    # discipline, hope spends and discipline recovery (DRYH-02, 03, 14/16, 22, 23)
    "dryh.declare": ("char",),
    "dryh.roll": ("char",),
    "dryh.choose": ("who",),
    "dryh.help": ("helper",),
    "dryh.hope_spend": ("char",),
    "dryh.recover_discipline": ("char",),
    # Pain & Mettle: shake off / other effort (MET-13), rest (MET-17), a
    # stabilize attempt as the helper (MET-11), reporting strenuous activity
    "mettle.shake_off": ("char",),
    "mettle.effort": ("char",),
    "mettle.rest_start": ("char",),
    "mettle.rest_stop": ("char",),
    "mettle.strenuous": ("char",),
    "mettle.stabilize": ("helper",),
    # Hursagmu: giving up an action to rest off stuns (HUR-07); the choice a
    # fall the GM declared leaves pending: break it with athlete, or take it
    # (HUR-14; the declaration, which carries the harm, stays the GM's).
    "hursagmu.rest": ("char",),
    "hursagmu.break_fall": ("char",),
    "hursagmu.take_fall": ("char",),
}

# Fields that are the GM's input even in a command a player may send: a
# player sending them is refused (MET-02/MET-11: the GM submits the lot and
# the TN; a player's stabilize attempt takes the table's stabilize_tn).
# Each maps to its default: a player's command must leave it there.
GM_ONLY_FIELDS: dict[str, dict[str, Any]] = {
    "mettle.stabilize": {"tn": None, "modifiers": 0, "lot": None},
}


# Fields naming characters a command acts on; for a player each must be
# its own or one it may see (docs/design.md "Visibility"), so that a hidden
# character can be neither probed nor touched.
# Read from the commands' types, where ``CharId`` marks each such field
# (vigil.rules.commands), so that a new command's field is checked the day
# it is typed, not the day someone remembers a list.
def _naming_a_character(commands: Iterable[type[Any]]) -> tuple[str, ...]:
    """The fields of ``commands`` typed ``CharId`` (or ``CharId | None``):
    each names one character (a list of them, as a token's, is no target)."""
    names: set[str] = set()
    for command in commands:
        info = mi.type_info(command)
        assert isinstance(info, mi.StructType)
        for field in info.fields:
            typ = field.type
            if isinstance(typ, mi.UnionType):
                named = [t for t in typ.types if not isinstance(t, mi.NoneType)]
                typ = named[0] if len(named) == 1 else typ
            if isinstance(typ, mi.Metadata) and (typ.extra or {}).get("ref") == "character":
                names.add(field.name)
    return tuple(sorted(names))


TARGET_FIELDS: tuple[str, ...] = _naming_a_character(ALL_COMMANDS)

# Any player of the table (DRYH-09: "any player may spend 1 hope" to improve
# the protagonist's roll).
PLAYER_ANY: frozenset[str] = frozenset({"dryh.hope_improve"})

OPERATOR_TAGS: frozenset[str] = frozenset(c.__struct_config__.tag for c in OPERATOR_COMMANDS)  # type: ignore[misc]
# Operator may also manage an existing table as its GM would.
OPERATOR_ALSO: frozenset[str] = frozenset(
    {
        "table.export",
        "table.archive",
        "token.mint",
        "token.list",
        "token.revoke",
        "table.rotate_key",
    }
)


def allowed(role: str, own: frozenset[str], tag: str, body: dict[str, Any]) -> bool:
    if role == "operator":
        return tag in OPERATOR_TAGS or tag in OPERATOR_ALSO
    if tag in OPERATOR_TAGS:
        return False
    if role == "gm":
        return True
    if role != "player":
        return False  # spectators can do nothing
    if tag in PLAYER_ANY:
        return bool(own)
    fields = PLAYER_OWN.get(tag)
    if fields is None:
        return False
    gm_only = GM_ONLY_FIELDS.get(tag, {})
    if any(body.get(name, default) != default for name, default in gm_only.items()):
        return False
    for name in fields:
        value = body.get(name)
        if value is None and name == "who":
            value = body.get("char")
        if value not in own:
            return False
    return True


def may_target(own: frozenset[str], body: dict[str, Any], seen: Collection[str]) -> bool:
    """Whether a player (bound to ``own``) may name the characters ``body``
    names: only its own, or ones ``seen`` in its view (in full or by
    status). A hidden or unknown id is refused alike, so a player can
    neither probe nor touch what it cannot see (docs/design.md "Visibility"); the
    GM and the operator name any."""
    for name in TARGET_FIELDS:
        value = body.get(name)
        if isinstance(value, str) and value not in own and value not in seen:
            return False
    return True
