"""The replay buffer without a socket: bounded in revs and in bytes, each
shared message counted once, and a resume served only when every patch it
needs is still kept."""

from __future__ import annotations

from vigil.net.replay import Replay, size_of


def _rev(size: int, keys: tuple[str, ...] = ("gm", "public")) -> dict[str, bytes]:
    shared = b"x" * size  # equal audiences share one encoded message
    return {k: shared for k in keys}


def test_a_message_shared_by_audiences_is_counted_once() -> None:
    shared = b"x" * 100
    assert size_of({"gm": b"y" * 40, "public": shared, "player:a": shared}) == 140


def test_the_oldest_revs_go_past_the_entry_bound() -> None:
    replay = Replay(max_entries=3, max_bytes=10_000)
    for rev in range(1, 6):
        replay.append(rev, _rev(10))
    assert len(replay) == 3
    assert replay.bytes == 30
    assert replay.missed("gm", 1, 5) is None  # rev 2 is gone: a snapshot
    assert replay.missed("gm", 2, 5) == [b"x" * 10] * 3


def test_the_oldest_revs_go_past_the_byte_bound_but_the_newest_stays() -> None:
    replay = Replay(max_entries=1000, max_bytes=250)
    for rev in range(1, 6):
        replay.append(rev, _rev(100))
    assert len(replay) == 2 and replay.bytes == 200
    replay.append(6, _rev(1_000))  # larger than the bound on its own
    assert len(replay) == 1 and replay.bytes == 1_000
    assert replay.missed("public", 5, 6) == [b"x" * 1_000]


def test_a_rev_never_rendered_for_an_audience_needs_a_snapshot() -> None:
    replay = Replay(max_entries=10, max_bytes=10_000)
    replay.append(1, _rev(10, ("gm",)))
    replay.append(2, _rev(10))
    assert replay.missed("public", 0, 2) is None
    assert replay.missed("public", 1, 2) == [b"x" * 10]
    assert replay.missed("public", 2, 2) == []


def test_clear_forgets_everything() -> None:
    replay = Replay(max_entries=10, max_bytes=10_000)
    replay.append(1, _rev(10))
    replay.clear()
    assert len(replay) == 0 and replay.bytes == 0
    assert replay.missed("gm", 0, 1) is None


def test_a_resume_reaches_the_last_rev_kept_not_the_tables() -> None:
    """The table's rev runs ahead of the buffer while a commit is awaited:
    a resume then gets what is kept, and its view is at the buffer's head
    (another node's connection is told so, and gets the next rev's patch
    from the edit's bundle)."""
    replay = Replay(max_entries=10, max_bytes=10_000)
    assert replay.head is None
    replay.append(1, _rev(10))
    replay.append(2, _rev(10))
    assert replay.missed("gm", 2, 3) == [] and replay.head == 2
    assert replay.missed("gm", 1, 3) == [b"x" * 10]
