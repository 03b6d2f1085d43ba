"""The history filter without a socket: what a viewer (a role and its
characters) reads of each log entry follows what its view shows."""

from __future__ import annotations

from typing import Any

from vigil.changes import LogEntry
from vigil.config import Config
from vigil.history_view import KIT_PARAMS, PUBLIC_TABLE_EVENTS, history_page
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.table import Table
from vigil.table_commands import CharacterCreate
from vigil.views import Viewer

WALL = 1_000_000.0
GM = Viewer("gm")
ANNA = Viewer("player", frozenset({"anna"}))
SPECTATOR = Viewer("spectator")


def _table() -> Table:
    """Anna and Bran in full view, an NPC by status, a hidden ghost."""
    table = Table.new("t", GAMES["mettle"], "T", {}, WALL, undo_depth=Config().undo_depth)
    ctx = Ctx(dice=RandomDice(1), actor=Actor(id="gm#1", role="gm"))
    for cid, kind, visibility in (
        ("anna", "pc", "full"),
        ("bran", "pc", "full"),
        ("npc", "npc", "status"),
        ("ghost", "npc", "hidden"),
    ):
        body = CharacterCreate(
            id=cid, name=cid.title(), kind=kind, visibility=visibility, sheet={"mettle": 3}
        )
        table.commit(table.prepare(body, WALL, ctx))
    return table


def _event(code: str, char: str | None = None, **params: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"code": code, "at": 5.0, "params": params, "text": f"{code} happened"}
    if char is not None:
        event["char"] = char
    return event


def _entry(rev: int, *events: dict[str, Any], kind: str = "command") -> LogEntry:
    return LogEntry(
        table="t",
        epoch=1,
        rev=rev,
        wall=WALL,
        game=5.0,
        actor="Mara#tok123",
        kind=kind,
        command={"type": "x"},
        events=list(events),
        ops=[],
        inverse=[],
    )


def _events(viewer: Viewer, *events: dict[str, Any]) -> list[dict[str, Any]]:
    (entry,) = history_page([_entry(1, *events)], _table(), viewer)
    return entry.events


def test_the_gm_reads_everything_with_who_and_what() -> None:
    events = [_event("pain_taken", "ghost", amount=2), _event("options_changed", options={"x": 1})]
    (entry,) = history_page([_entry(1, *events)], _table(), GM)
    assert entry.events == events
    assert entry.actor == "Mara#tok123" and entry.command == {"type": "x"}


def test_others_read_no_command_and_no_token_id() -> None:
    for viewer in (ANNA, SPECTATOR):
        (entry,) = history_page([_entry(1, _event("combat_started"))], _table(), viewer)
        assert entry.actor == "Mara" and entry.command is None


def test_a_hidden_characters_events_are_dropped() -> None:
    seen = _event("pain_taken", "anna", amount=1)
    assert _events(ANNA, _event("pain_taken", "ghost", amount=2), seen) == [seen]
    assert _events(SPECTATOR, seen, _event("pain_taken", "ghost", amount=2)) == [seen]


def test_a_status_only_characters_events_lose_their_numbers() -> None:
    (bare,) = _events(ANNA, {**_event("pain_taken", "npc", amount=2), "rule": "MET-05"})
    assert bare == {"code": "pain_taken", "at": 5.0, "char": "npc", "rule": "MET-05"}


def test_own_and_fully_seen_characters_events_are_read_whole() -> None:
    own, other = _event("pain_taken", "anna", amount=2), _event("pain_taken", "bran", amount=1)
    assert _events(ANNA, own, other) == [own, other]


def test_an_event_naming_a_hidden_character_loses_its_parameters() -> None:
    """A helper or healer who is hidden must not leak through a visible
    character's event, however deep the name sits."""
    for params in ({"helper": "ghost"}, {"by": ["x", "ghost"]}, {"ghost": 1}, {"deep": {"a": "ghost"}}):
        (bare,) = _events(ANNA, _event("helped", "anna", **params))
        assert bare == {"code": "helped", "at": 5.0, "char": "anna"}, params


def test_kit_contents_are_for_the_characters_own_player() -> None:
    kit = _event("kit_used", "bran", kit="Rope", kit_uses=2)
    assert _events(Viewer("player", frozenset({"bran"})), kit) == [kit]
    (bare,) = _events(ANNA, kit)
    assert set(bare) == {"code", "at", "char"}
    assert set(kit["params"]) >= KIT_PARAMS


def test_table_events_are_public_only_when_listed() -> None:
    public = [_event(code) for code in sorted(PUBLIC_TABLE_EVENTS)]
    gm_only = [_event("options_changed", options={}), _event("corrected", field="x")]
    assert _events(SPECTATOR, *public, *gm_only) == public


def test_an_entry_taken_back_by_an_undo_is_marked() -> None:
    entries = [_entry(3, _event("undone", rev=2), kind="undo"), _entry(2, _event("combat_started"))]
    page = history_page(entries, _table(), GM)
    assert [(e.rev, e.undone) for e in page] == [(3, False), (2, True)]
    # Others read the mark on what was undone (the undo itself is the GM's).
    page = history_page(entries, _table(), SPECTATOR)
    assert [(e.rev, e.undone) for e in page] == [(2, True)]


def test_a_viewer_reads_what_its_view_shows_not_more() -> None:
    """The filter reads the view: a player's own hidden character is its own."""
    own_ghost = Viewer("player", frozenset({"ghost"}))
    event = _event("pain_taken", "ghost", amount=2)
    assert _events(own_ghost, event) == [event]


def test_an_entry_with_nothing_visible_is_left_out_for_all_but_the_gm() -> None:
    entries = [_entry(2, _event("pain_taken", "ghost", amount=2)), _entry(1, _event("combat_started"))]
    for viewer in (ANNA, SPECTATOR):
        assert [e.rev for e in history_page(entries, _table(), viewer)] == [1]
    assert [e.rev for e in history_page(entries, _table(), GM)] == [2, 1]
