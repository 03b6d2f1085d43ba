"""Presence (vigil.net.presence) as pure decisions: what a table's clock
does as GMs come and go, and when a GM's presence is marked. No socket and
no clock: who is here is a count, the time a number the test gives."""

from __future__ import annotations

from vigil.net import presence
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.table import Table
from vigil.table_commands import ClockRun, TableOptions

WALL = 1_000_000.0
CTX = Ctx(dice=RandomDice(1), actor=Actor(id="gm#1", role="gm"))


def table(running: bool = True, pause_without_gm: bool = True) -> Table:
    made = Table.new("t", GAMES["mettle"], "Friday", {}, WALL, undo_depth=20)
    if not pause_without_gm:
        made.commit(made.prepare(TableOptions(options={"pause_without_gm": False}), WALL, CTX))
    if running:
        made.commit(made.prepare(ClockRun(rate=1.0), WALL, CTX))
    return made


def test_the_last_gm_leaving_a_running_clock_pauses_it() -> None:
    assert presence.pauses_after(table(), "gm", gms=0)
    assert not presence.pauses_after(table(), "gm", gms=1)  # another GM is still here
    assert not presence.pauses_after(table(), "player", gms=0)  # not a GM leaving
    assert not presence.pauses_after(table(running=False), "gm", gms=0)
    assert not presence.pauses_after(table(pause_without_gm=False), "gm", gms=0)


def test_a_table_taken_with_no_gm_pauses_a_clock_that_holds() -> None:
    assert presence.unattended(table(), 0) and not presence.unattended(table(), 1)
    assert not presence.unattended(table(pause_without_gm=False), 0)


def test_a_gm_coming_back_resumes_only_a_clock_paused_for_want_of_one() -> None:
    held = table()
    held.commit(presence.auto_pause(held, WALL + 10, CTX))
    assert held.anchor.awaiting_gm
    assert presence.resumes_for(held, "gm") and not presence.resumes_for(held, "player")
    assert not presence.resumes_for(table(), "gm")  # running already
    paused_by_gm = table(running=False)
    assert not presence.resumes_for(paused_by_gm, "gm")
    held.commit(presence.auto_resume(held, WALL + 20, CTX))
    assert held.anchor.mode == "running"


def test_the_first_gm_of_a_running_clock_is_marked_present_at_once() -> None:
    assert presence.marks_at_once(table(), "gm", gms=1)
    assert not presence.marks_at_once(table(), "gm", gms=2)  # marked with the one before
    assert not presence.marks_at_once(table(), "spectator", gms=1)
    assert not presence.marks_at_once(table(running=False), "gm", gms=1)


def test_marks_are_written_for_the_running_clocks_a_gm_keeps_running() -> None:
    running, stopped = table(), table(running=False)
    alone = Table.new("u", GAMES["mettle"], "Saturday", {}, WALL, undo_depth=20)
    alone.commit(alone.prepare(ClockRun(rate=1.0), WALL, CTX))
    assert presence.present([(running, 1), (stopped, 2), (alone, 0)]) == ["t"]


def test_a_table_taken_runs_on_only_after_a_recent_mark() -> None:
    mark_seconds, lease = 10.0, 5.0
    window = mark_seconds + presence.MARK_LEASES * lease
    assert presence.runs_on(WALL, WALL + window - 1, mark_seconds, lease)
    assert not presence.runs_on(WALL, WALL + window, mark_seconds, lease)
    assert not presence.runs_on(None, WALL, mark_seconds, lease)


def test_on_a_start_a_running_clock_stops_where_a_gm_was_last_known_present() -> None:
    running = table()
    since = running.anchor.wall
    assert presence.held_since(running, since + 50) == since + 50  # the mark
    assert presence.held_since(running, since - 50) == since  # its own later change
    assert presence.held_since(running, None) == since
    assert presence.held_since(table(running=False), since + 50) is None
    held = table()
    game, rate = held.anchor.game, held.anchor.rate
    held.commit(presence.pause_at(since + 30)(held, since + 60, CTX))
    # The game time stands where it was 30 s after the mark, not at 60.
    assert (held.anchor.mode, held.anchor.game) == ("paused", game + 30 * rate)
