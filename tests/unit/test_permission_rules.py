"""The permission table without a socket (tests/server/test_permissions.py
walks every command over a real connection): who may send which command,
with which fields, naming which characters."""

from __future__ import annotations

import pytest

from vigil import permissions
from vigil.permissions import allowed, may_target
from vigil.protocol import ALL_COMMANDS

TAGS = [str(c.__struct_config__.tag) for c in ALL_COMMANDS]
OWN = frozenset({"mine"})


def test_the_operator_manages_tables_and_nothing_else() -> None:
    for tag in TAGS:
        expected = tag in permissions.OPERATOR_TAGS or tag in permissions.OPERATOR_ALSO
        assert allowed("operator", frozenset(), tag, {}) is expected, tag
    assert {"table.create", "table.delete", "table.export", "token.mint"} <= {
        t for t in TAGS if allowed("operator", frozenset(), t, {})
    }


def test_a_gm_runs_the_table_but_never_the_operators_commands() -> None:
    for tag in TAGS:
        assert allowed("gm", frozenset(), tag, {}) is (tag not in permissions.OPERATOR_TAGS), tag


@pytest.mark.parametrize("role", ["spectator", "king", ""])
def test_spectators_and_unknown_roles_may_do_nothing(role: str) -> None:
    assert not any(allowed(role, OWN, tag, {"char": "mine"}) for tag in TAGS)


def test_a_player_acts_only_through_its_own_characters() -> None:
    for tag, fields in permissions.PLAYER_OWN.items():
        defaults = permissions.GM_ONLY_FIELDS.get(tag, {})
        mine = {**defaults, **{f: "mine" for f in fields}}
        theirs = {**defaults, **{f: "theirs" for f in fields}}
        assert allowed("player", OWN, tag, mine), tag
        assert not allowed("player", OWN, tag, theirs), tag
        assert not allowed("player", OWN, tag, defaults), f"{tag} without its character"


def test_a_player_may_send_nothing_unlisted() -> None:
    listed = set(permissions.PLAYER_OWN) | permissions.PLAYER_ANY
    for tag in TAGS:
        if tag not in listed:
            assert not allowed("player", OWN, tag, {"char": "mine"}), tag


def test_a_choice_names_its_chooser_or_else_the_rolls_owner() -> None:
    """``dryh.choose``: ``who`` when given, else the roll's own character."""
    assert allowed("player", OWN, "dryh.choose", {"char": "mine"})
    assert allowed("player", OWN, "dryh.choose", {"char": "theirs", "who": "mine"})
    assert not allowed("player", OWN, "dryh.choose", {"char": "mine", "who": "theirs"})


def test_any_player_of_the_table_may_improve_a_roll_with_hope() -> None:
    """DRYH-09: any player, on anyone's roll — but it takes a player."""
    assert allowed("player", OWN, "dryh.hope_improve", {"char": "theirs"})
    assert not allowed("player", frozenset(), "dryh.hope_improve", {"char": "theirs"})


def test_the_gms_own_inputs_stay_the_gms() -> None:
    """MET-02/MET-11: a player's stabilize attempt leaves the TN, the
    modifiers and the lot to the table."""
    for tag, gm_only in permissions.GM_ONLY_FIELDS.items():
        fields = permissions.PLAYER_OWN[tag]
        base = {f: "mine" for f in fields}
        assert allowed("player", OWN, tag, {**base, **gm_only})
        for name, default in gm_only.items():
            changed = 1 if default is None else default + 1
            assert not allowed("player", OWN, tag, {**base, name: changed}), (tag, name)


def test_a_player_names_only_characters_it_may_see() -> None:
    seen = {"mine", "seen"}
    for field in permissions.TARGET_FIELDS:
        assert may_target(OWN, {field: "mine"}, seen)
        assert may_target(OWN, {field: "seen"}, seen)
        assert not may_target(OWN, {field: "ghost"}, seen), field
        assert not may_target(OWN, {field: "nobody"}, seen), field


def test_its_own_character_counts_even_when_hidden_from_its_view() -> None:
    assert may_target(OWN, {"char": "mine"}, set())


def test_only_the_fields_that_name_characters_are_checked() -> None:
    assert may_target(OWN, {"type": "x", "notes": "ghost", "amount": 3, "char": None}, {"mine"})
