"""The table without a socket: a command becomes a change that is kept
only on commit; each commit gives every watching audience exactly the
patch from the view it was sent to its new one; a mark and a restore undo
anything not durable; undo compensates a GM change or refuses."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from vigil import jsonpatch, treepatch
from vigil.changes import Change
from vigil.config import Config
from vigil.rules.commands import Command, Correct
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.mettle.commands import Heal, Rattle
from vigil.rules.outcome import RuleError
from vigil.table import DEFAULT_SETTINGS, Table
from vigil.table_commands import CharacterCreate, CharacterMeta, ClockRun, TableOptions
from vigil.table_views import AudiencePatch
from vigil.views import GM_AUDIENCE, PUBLIC_AUDIENCE, Audience

WALL = 1_000_000.0
GM = Actor(id="gm#1", role="gm")
PLAYER = Actor(id="anna#2", role="player")
ANNA = Audience("player", frozenset({"a"}))


def _ctx(actor: Actor = GM) -> Ctx:
    return Ctx(dice=RandomDice(1), actor=actor)


def _table(undo_depth: int = Config().undo_depth) -> Table:
    table = Table.new("t", GAMES["mettle"], "Test", {}, WALL, undo_depth=undo_depth)
    _run(table, CharacterCreate(id="a", name="Anna", sheet={"mettle": 5}))
    _run(table, CharacterCreate(id="b", name="Bran", kind="npc", sheet={"mettle": 3}))
    return table


def _run(table: Table, body: Command, actor: Actor = GM) -> tuple[Change, list[AudiencePatch]]:
    change = table.prepare(body, WALL, _ctx(actor))
    return change, table.commit(change)


def _patched(table: Table, sent: dict[str, dict[str, Any]], patches: list[AudiencePatch]) -> None:
    """Apply each audience's patch to a client-side copy of its view."""
    for patch in patches:
        for key in patch.keys:
            sent[key] = treepatch.apply_tree(sent[key], copy.deepcopy(patch.changes))


def _json(value: Any) -> bytes:
    """As JSON, members sorted: a patch adds a member after the others (a
    move that became legal), where a fresh view has it in its place; JSON
    objects have no order."""
    return msgspec.json.encode(value, order="sorted")


def test_a_new_table_is_empty_at_rev_zero_of_epoch_one() -> None:
    table = Table.new("t", GAMES["dryh"], "Night", {}, WALL, undo_depth=5)
    assert (table.epoch, table.rev, table.name, table.next_undo()) == (1, 0, "Night", None)
    assert table.doc["system"] == "dryh" and table.doc["meta"] == {} and table.doc["undo"] == []
    assert table.settings == DEFAULT_SETTINGS
    assert table.anchor.mode == "paused" and table.anchor.wall == WALL
    assert table.next_wake() is None


def test_a_prepared_change_is_kept_only_on_commit() -> None:
    table = _table()
    doc, state, rev = table.doc, table.state, table.rev
    change = table.prepare(Rattle(char="a", amount=2), WALL, _ctx())
    assert table.doc is doc and table.state is state and table.rev == rev
    assert change.doc["state"]["characters"]["a"]["rattle"] == 2
    table.commit(change)
    assert change.rev == table.rev == rev + 1
    assert table.doc is change.doc and table.state.characters["a"].rattle == 2


def test_a_refused_command_changes_nothing() -> None:
    table = _table()
    before = _json(table.doc)
    with pytest.raises(RuleError) as info:
        table.prepare(Heal(char="nobody", amount=1), WALL, _ctx())
    assert info.value.code == "unknown_character"
    assert _json(table.doc) == before


def test_only_gm_changes_are_undoable_and_only_the_newest_few() -> None:
    table = _table(undo_depth=2)
    _run(table, Rattle(char="a", amount=1))
    _run(table, Rattle(char="a", amount=1))
    _run(table, Rattle(char="a", amount=1))
    assert table.doc["undo"] == [table.rev - 1, table.rev]
    player_change, _ = _run(table, Rattle(char="b", amount=1), actor=PLAYER)
    assert not player_change.undoable and table.next_undo() == table.rev - 1


def test_a_change_no_undo_takes_back_drops_the_gm_changes_it_built_on() -> None:
    """Undo reaches the newest change it can take back: a player's change
    over a GM's takes that one (and the older ones on the same fields) off
    the stack, never leaving a conflicting change on top; GM changes over
    GM changes stay, undone newest first."""
    table = _table()
    on_b, _ = _run(table, Heal(char="b", amount=0))
    first, _ = _run(table, Rattle(char="a", amount=1))
    second, _ = _run(table, Rattle(char="a", amount=1))
    assert table.doc["undo"][-3:] == [on_b.rev, first.rev, second.rev]
    player, _ = _run(table, Rattle(char="a", amount=1), actor=PLAYER)
    assert first.rev not in table.doc["undo"] and second.rev not in table.doc["undo"]
    assert {"op": "add", "path": "/undo", "value": table.doc["undo"]} in player.ops
    # Bran's creation and the change on Bran stay; Anna's creation went with her rattle.
    assert table.next_undo() == on_b.rev
    undo = table.undo(on_b.entry(table.id, table.epoch, WALL), _ctx())
    table.commit(undo)


def test_each_commit_patches_every_watching_audience_to_its_new_view() -> None:
    table = _table()
    audiences = [GM_AUDIENCE, PUBLIC_AUDIENCE, ANNA]
    sent = {a.key: copy.deepcopy(table.watch(a)) for a in audiences}
    for body in (
        Rattle(char="a", amount=2),
        Rattle(char="b", amount=1),
        CharacterMeta(char="b", notes="secret plans"),
        CharacterMeta(char="b", visibility="hidden"),
        CharacterMeta(char="a", name="Anna the Bold"),
    ):
        _change, patches = _run(table, body)
        assert sorted(k for p in patches for k in p.keys) == sorted(a.key for a in audiences)
        _patched(table, sent, patches)
        for audience in audiences:
            assert _json(sent[audience.key]) == _json(table.view(audience)), (body, audience)


def test_a_change_nobody_else_may_see_still_reaches_everyone_as_an_empty_patch() -> None:
    """Revs stay gapless for every audience: a gap always means a lost patch."""
    table = _table()
    table.watch(GM_AUDIENCE)
    table.watch(PUBLIC_AUDIENCE)
    _change, patches = _run(table, CharacterMeta(char="b", notes="only the GM reads this"))
    by_key = {k: p.changes for p in patches for k in p.keys}
    assert by_key["public"] == {} and sorted(by_key) == ["gm", "public"]
    # The GM's: the notes, and what its undo would now take back (this change).
    assert by_key["gm"]["characters"] == {"b": {"notes": "only the GM reads this"}}
    assert set(by_key["gm"]) == {"characters", "undo"}
    assert table.view(GM_AUDIENCE)["undo"]["command"] == "character.meta"


def test_audiences_that_see_alike_share_one_view_and_one_patch() -> None:
    """Once patched, audiences with the same sight (here: the public, a
    player whose character is not at the table, and Anna's player, whose
    sheet holds nothing GM-only) hold one view object, and the next rev's
    patch is one object for them all (encoded once)."""
    table = _table()
    stranger = Audience("player", frozenset({"nobody-here"}))
    for audience in (GM_AUDIENCE, PUBLIC_AUDIENCE, stranger, ANNA):
        table.watch(audience)
    _run(table, Rattle(char="b", amount=1))
    assert table.seen_by(PUBLIC_AUDIENCE) is table.seen_by(stranger) is table.seen_by(ANNA)
    _change, patches = _run(table, Rattle(char="b", amount=1))
    assert sorted(sorted(p.keys) for p in patches) == [["gm"], ["player:a", "player:nobody-here", "public"]]


def test_a_player_whose_sheet_holds_a_kit_gets_a_view_of_its_own() -> None:
    """Kit contents are the GM's and the own player's (docs/design.md "Visibility"): once Anna
    carries a kit her player's view parts from the public one, and the
    public one still lacks the kit."""
    table = _table()
    for audience in (GM_AUDIENCE, PUBLIC_AUDIENCE, ANNA):
        table.watch(audience)
    _run(table, Correct(char="a", field="kits", value={"surgeon": 2}))
    _change, patches = _run(table, Rattle(char="b", amount=1))
    assert sorted(sorted(p.keys) for p in patches) == [["gm"], ["player:a"], ["public"]]
    assert table.seen_by(ANNA)["characters"]["a"]["sheet"]["kits"] == {"surgeon": 2}
    assert "kits" not in table.seen_by(PUBLIC_AUDIENCE)["characters"]["a"]["sheet"]


def test_a_hidden_character_never_reaches_the_public_view() -> None:
    table = _table()
    table.watch(PUBLIC_AUDIENCE)
    _c, patches = _run(
        table, CharacterCreate(id="ghost", name="Ghost", visibility="hidden", sheet={"mettle": 1})
    )
    _c, more = _run(table, Rattle(char="ghost", amount=3))
    public = [p.changes for p in patches + more if "public" in p.keys]
    assert "ghost" not in _json(public).decode()
    assert "ghost" not in table.view(PUBLIC_AUDIENCE)["characters"]
    assert "ghost" in table.view(GM_AUDIENCE)["characters"]


def test_status_only_characters_show_no_numbers_to_others() -> None:
    table = _table()
    public = table.view(PUBLIC_AUDIENCE)["characters"]
    assert "sheet" in public["a"] and "sheet" not in public["b"]  # pc full, npc status by default
    assert "sheet" in table.view(GM_AUDIENCE)["characters"]["b"]


def test_seen_by_is_the_view_sent_while_watching() -> None:
    table = _table()
    sent = table.watch(ANNA)
    _run(table, Rattle(char="a", amount=1))
    assert table.seen_by(ANNA) is not sent  # patched to the new rev
    assert _json(table.seen_by(ANNA)) == _json(table.view(ANNA))
    assert _json(table.seen_by(PUBLIC_AUDIENCE)) == _json(table.view(PUBLIC_AUDIENCE))


def test_a_forgotten_audience_gets_no_more_patches() -> None:
    table = _table()
    table.watch(GM_AUDIENCE)
    table.watch(ANNA)
    table.forget(ANNA.key)
    _change, patches = _run(table, Rattle(char="a", amount=1))
    assert [p.keys for p in patches] == [["gm"]]


def test_restore_takes_the_table_and_its_views_back_to_the_mark() -> None:
    """What a failed commit needs: as if nothing since the mark happened,
    including an audience that started watching meanwhile."""
    table = _table()
    gm_view = table.watch(GM_AUDIENCE)
    doc_bytes, rev, epoch = _json(table.doc), table.rev, table.epoch
    mark = table.mark()
    _run(table, Rattle(char="a", amount=2))
    _run(table, CharacterMeta(char="b", name="Renamed"))
    table.watch(ANNA)
    table.restore(mark)
    assert (_json(table.doc), table.rev, table.epoch) == (doc_bytes, rev, epoch)
    assert table.state.characters["a"].rattle == 0
    assert table.seen_by(GM_AUDIENCE) is gm_view
    assert _json(table.seen_by(ANNA)) == _json(table.view(ANNA))
    # and the next change patches from the restored views
    sent = {GM_AUDIENCE.key: copy.deepcopy(gm_view), ANNA.key: copy.deepcopy(table.seen_by(ANNA))}
    _change, patches = _run(table, Heal(char="a", amount=1))
    _patched(table, sent, patches)
    assert _json(sent["gm"]) == _json(table.view(GM_AUDIENCE))


def test_a_new_epoch_keeps_the_state_and_forgets_the_history() -> None:
    table = _table()
    table.watch(PUBLIC_AUDIENCE)
    _run(table, Rattle(char="a", amount=1))
    state_doc = _json(table.doc["state"])
    table.new_epoch()
    assert (table.epoch, table.rev, table.next_undo()) == (2, 0, None)
    assert _json(table.doc["state"]) == state_doc
    assert _json(table.seen_by(PUBLIC_AUDIENCE)) == _json(table.view(PUBLIC_AUDIENCE))
    change, _ = _run(table, Rattle(char="a", amount=1))
    assert change.rev == 1


def test_undo_compensates_the_newest_gm_change() -> None:
    table = _table()
    before = _json(table.doc["state"])
    change, _ = _run(table, Rattle(char="a", amount=3))
    entry = change.entry(table.id, table.epoch, WALL)
    undo = table.undo(entry, _ctx())
    assert undo.kind == "undo" and undo.result == {"undone": change.rev}
    assert [e.code for e in undo.events] == ["undone"]
    table.commit(undo)
    assert _json(table.doc["state"]) == before
    assert change.rev not in table.doc["undo"]


def test_undo_refuses_a_stale_entry_and_takes_gm_changes_back_newest_first() -> None:
    table = _table()
    first, _ = _run(table, Rattle(char="a", amount=1))
    old_entry = first.entry(table.id, table.epoch, WALL)
    second, _ = _run(table, Rattle(char="a", amount=1))
    with pytest.raises(RuleError) as stale:
        table.undo(old_entry, _ctx())  # not the top of the stack any more
    assert stale.value.code == "undo_conflict"
    with pytest.raises(RuleError):
        table.undo(None, _ctx())
    # Undone in order, newest first, each finds what it wrote.
    table.commit(table.undo(second.entry(table.id, table.epoch, WALL), _ctx()))
    table.commit(table.undo(old_entry, _ctx()))
    assert table.state.characters["a"].rattle == 0


def test_the_clock_wakes_the_table_for_its_next_due_effect() -> None:
    table = _table()
    _run(table, ClockRun(rate=1.0))
    _run(table, Rattle(char="a", amount=2))
    wake = table.next_wake()
    assert wake is not None and wake > WALL
    assert table.advance(wake - 0.5, _ctx(Actor())) is None
    due = table.advance(wake, _ctx(Actor()))
    assert due is not None and due.kind == "clock" and not due.undoable
    assert [e.code for e in due.events] == ["rattle_gone"]


def test_halting_pauses_the_clock_where_the_rules_are() -> None:
    table = _table()
    _run(table, ClockRun(rate=2.0))
    halted = table.halt(WALL + 100, _ctx(Actor()), "clock_halted", {"code": "advance_too_large"})
    table.commit(halted)
    assert table.anchor.mode == "paused" and table.anchor.game == table.state.clock.now
    assert halted.events[0].code == "clock_halted"


def test_only_a_clock_held_for_want_of_a_gm_resumes() -> None:
    """hold() pauses a running clock while no GM is there; resume() runs it
    again at its rate, and only such a clock (not one the GM paused)."""
    table = _table()
    _run(table, ClockRun(rate=2.0))
    table.commit(table.hold(WALL + 10, WALL + 10, _ctx(Actor())))
    assert (table.anchor.mode, table.anchor.awaiting_gm) == ("paused", True)
    table.commit(table.resume(WALL + 20, _ctx(Actor())))
    assert (table.anchor.mode, table.anchor.rate, table.anchor.awaiting_gm) == ("running", 2.0, False)
    with pytest.raises(RuleError) as info:
        table.resume(WALL + 30, _ctx(Actor()))
    assert info.value.code == "not_awaiting_gm"


def test_table_options_set_the_games_and_the_servers_own() -> None:
    table = _table()
    _run(table, TableOptions(options={"pause_without_gm": False, "stabilize_tn": 12}))
    assert table.settings["pause_without_gm"] is False
    assert table.state.options.stabilize_tn == 12
    for options, code in (
        ({"pause_without_gm": 1}, "bad_options"),
        ({"stabilize_tn": "high"}, "bad_options"),
        ({"no_such_option": 1}, "bad_field"),
    ):
        with pytest.raises(RuleError) as info:
            table.prepare(TableOptions(options=options), WALL, _ctx())
        assert info.value.code == code, options


def test_a_committed_change_becomes_a_log_entry_with_its_sentences() -> None:
    table = _table()
    before = copy.deepcopy(table.doc)
    change, _ = _run(table, Rattle(char="a", amount=2))
    entry = change.entry(table.id, table.epoch, WALL + 1)
    assert (entry.table, entry.epoch, entry.rev, entry.wall) == ("t", 1, change.rev, WALL + 1)
    assert entry.actor == "gm#1" and entry.kind == "command"
    assert entry.command == {"type": "mettle.rattle", "char": "a", "amount": 2}
    assert entry.events[0]["code"] == "rattle_received" and entry.events[0]["text"]
    assert "{" not in entry.events[0]["text"]
    # The ops take the rules' state forward (recovery), the inverse back (undo).
    assert _json(jsonpatch.apply(copy.deepcopy(before), entry.ops)["state"]) == _json(table.doc["state"])
    assert _json(jsonpatch.apply(copy.deepcopy(table.doc), entry.inverse)["state"]) == _json(before["state"])


def test_a_table_rebuilt_from_its_log_equals_the_table_undo_stack_included() -> None:
    table = _table()
    start = msgspec.json.decode(_json(table.doc))
    entries = []
    rebuilt = start
    for body in (Rattle(char="a", amount=1), Rattle(char="b", amount=2), Heal(char="a", amount=1), None):
        change = table.undo(entries[-1], _ctx()) if body is None else table.prepare(body, WALL, _ctx())
        table.commit(change)
        entries.append(change.entry(table.id, table.epoch, WALL))
        rebuilt = jsonpatch.apply(rebuilt, msgspec.json.decode(_json(entries[-1].ops)))
        assert _json(rebuilt) == _json(table.doc), f"equal after rev {table.rev}"
    again = Table(id="t", system=GAMES["mettle"], epoch=1, rev=table.rev, doc=rebuilt, undo_depth=20)
    assert again.next_undo() == entries[1].rev, "the next undo takes back the second rattle"
    # What it takes back is known again once the log is recalled: the same
    # as the table that made the changes says (names, sender, game time).
    assert again.undo_next() == {
        "rev": entries[1].rev,
        **dict.fromkeys(["command", "char", "name", "by", "at", "field", "value"]),
    }
    again.recall_undo(entries)
    assert again.undo_next() == table.undo_next() == table.view(GM_AUDIENCE)["undo"]
    assert again.view(GM_AUDIENCE)["undo"]["command"] == "mettle.rattle"


def test_a_failed_commit_restores_what_the_undo_would_take_back() -> None:
    table = _table()
    _run(table, Rattle(char="a", amount=1))
    before = table.undo_next()
    mark = table.mark()
    _run(table, Rattle(char="b", amount=2))
    assert table.undo_next() != before
    table.restore(mark)
    assert table.undo_next() == before == table.view(GM_AUDIENCE)["undo"]


def test_an_old_log_without_the_undo_stack_in_its_ops_still_loads(tmp_path: Any) -> None:
    from vigil.store.base import TableRecord
    from vigil.store.sqlite import SqliteStore

    table = Table.new("old", GAMES["mettle"], "Old", {}, WALL, undo_depth=20)
    store = SqliteStore(tmp_path / "old.sqlite3")
    store.create_table(
        TableRecord(id="old", system="mettle", name="Old", key="k", epoch=1, created=WALL), table.doc
    )
    change = table.prepare(CharacterCreate(id="a", name="Anna", sheet={"mettle": 5}), WALL, _ctx())
    table.commit(change)
    entry = change.entry("old", 1, WALL)
    entry.ops = [op for op in entry.ops if op["path"] != "/undo"]
    entry.v = 1  # as version 1 wrote it
    store.append([entry])
    loaded = store.load("old")
    store.close()
    again = Table(id="old", system=GAMES["mettle"], epoch=1, rev=1, doc=loaded.doc, undo_depth=20)
    assert "a" in again.state.characters and again.next_undo() is None
