"""The follower of another node's table (vigil.net.follower), as pure code:
the bus's interleavings (lost messages, overtaking ones, an owner that
changed) fed by hand, and what it answers read back. No PostgreSQL, no
Redis, no clock: the time is a number the test gives."""

from __future__ import annotations

from vigil.net.follower import Answered, CheckOwner, Close, Follower, Send

N1, N2, N3 = ("n1", 1), ("n2", 1), ("n3", 1)
TRY_AGAIN = 1013


def following(*refs: int, owner: tuple[str, int] = N2, deadline: float = 10.0) -> Follower:
    """A follower of a table ``owner`` owns, with connections ``refs``
    attaching (due by ``deadline``), heard of at 0."""
    follower = Follower(owner=owner, heard=0.0)
    for ref in refs:
        follower.join(ref, owner, deadline)
    return follower


def viewing(follower: Follower, ref: int, key: str, epoch: int, rev: int) -> None:
    """``ref`` attached to audience ``key`` with its view at ``epoch``/``rev``."""
    follower.attached(ref, key, 0.0)
    follower.deliver(ref, [b"snapshot"], rev, epoch, 0.0)


def patches(rev: int, **by_key: bytes) -> tuple[int, dict[str, bytes]]:
    return rev, dict(by_key)


# -- attaching ----------------------------------------------------------------


def test_an_attach_is_done_only_once_its_audience_and_its_first_view_came() -> None:
    follower = following(1, 2, 3)
    # The owner's answers, one of each lost on the bus (at most once).
    follower.attached(1, "gm", 1.0)
    follower.deliver(2, [], 3, 1, 1.0)
    follower.attached(3, "gm", 1.0)
    follower.deliver(3, [], 3, 1, 1.0)
    assert set(follower.attaching) == {1, 2}
    # At their deadline those left half attached resume; the whole one stays.
    assert follower.tick(10.0, quiet=60.0) == []
    assert follower.tick(10.5, quiet=60.0) == [
        Close(1, TRY_AGAIN, "no answer"),
        Close(2, TRY_AGAIN, "no answer"),
    ]


def test_a_view_that_comes_before_its_audience_completes_the_attach_with_it() -> None:
    follower = following(1)
    assert follower.deliver(1, [b"snap"], 5, 1, 1.0) == [Send(1, b"snap")]
    assert 1 in follower.attaching  # the audience has not come yet
    follower.attached(1, "public", 1.0)
    assert 1 in follower.attaching  # done by the next view-bearing Deliver, or resumed at the deadline
    follower.deliver(1, [b"replay"], 5, 1, 1.0)
    assert follower.attaching == {}


def test_a_delivery_without_a_rev_is_no_view() -> None:
    follower = following(1)
    follower.attached(1, "gm", 1.0)
    assert follower.deliver(1, [b"error"], None, None, 1.0) == [Send(1, b"error")]
    assert follower.seen == {} and 1 in follower.attaching


# -- bundles --------------------------------------------------------------------


def test_a_bundle_sends_each_connection_its_audience_s_patch_after_the_acks() -> None:
    follower = following(1, 2)
    viewing(follower, 1, "gm", 1, 4)
    viewing(follower, 2, "public", 1, 4)
    acks = [("n1", 2, "m7", b"ack"), ("n9", 1, "m8", b"not ours"), ("n1", 99, "m9", b"gone")]
    actions = follower.bundle("n1", 1, [patches(5, gm=b"g5", public=b"p5")], acks, 2.0)
    assert actions == [Send(2, b"ack"), Answered(2, "m7"), Send(1, b"g5"), Send(2, b"p5")]
    assert follower.seen == {1: (1, 5), 2: (1, 5)} and follower.heard == 2.0


def test_revs_already_seen_are_skipped_and_an_audience_without_a_patch_still_advances() -> None:
    follower = following(1)
    viewing(follower, 1, "public", 1, 5)
    actions = follower.bundle(
        "n1", 1, [patches(4, public=b"p4"), patches(5, public=b"p5"), patches(6, gm=b"g6")], [], 1.0
    )
    assert actions == []  # 4 and 5 seen (its snapshot had them); 6 has nothing for the public
    assert follower.seen[1] == (1, 6)


def test_a_bundle_that_skips_a_rev_resumes_the_connection() -> None:
    follower = following(1, 2)
    viewing(follower, 1, "gm", 1, 4)
    viewing(follower, 2, "gm", 1, 6)  # its snapshot came after the lost bundle
    actions = follower.bundle("n1", 1, [patches(7, gm=b"g7")], [], 1.0)
    # 1 missed 5 and 6 (lost on the bus): it resumes rather than show a hole.
    assert actions == [Close(1, TRY_AGAIN, "resync"), Send(2, b"g7")]
    assert follower.seen[1] == (1, 4)  # left for the driver to forget as it closes


def test_a_bundle_of_another_epoch_resumes_every_view_of_the_former() -> None:
    follower = following(1)
    viewing(follower, 1, "gm", 1, 9)
    assert follower.bundle("n1", 2, [patches(1, gm=b"g1")], [], 1.0) == [Close(1, TRY_AGAIN, "resync")]


def test_a_connection_without_a_view_yet_is_sent_no_patch() -> None:
    """Its snapshot (or replay), still on its way, has what the bundle has."""
    follower = following(1)
    follower.attached(1, "gm", 0.0)
    assert follower.bundle("n1", 1, [patches(3, gm=b"g3")], [], 1.0) == []
    assert follower.deliver(1, [b"snap"], 3, 1, 1.0) == [Send(1, b"snap")]
    assert follower.bundle("n1", 1, [patches(4, gm=b"g4")], [], 1.0) == [Send(1, b"g4")]


def test_an_ack_reaches_its_sender_before_the_patch_its_command_caused() -> None:
    follower = following(1)
    viewing(follower, 1, "gm", 1, 1)
    actions = follower.bundle("n1", 1, [patches(2, gm=b"g2")], [("n1", 1, "c1", b"ack")], 1.0)
    assert actions == [Send(1, b"ack"), Answered(1, "c1"), Send(1, b"g2")]


# -- beacons --------------------------------------------------------------------


def test_a_beacon_of_the_owner_resumes_only_the_views_behind_it() -> None:
    follower = following(1, 2, 3)
    viewing(follower, 1, "gm", 1, 10)
    viewing(follower, 2, "gm", 1, 9)  # missed the bundle of 10
    viewing(follower, 3, "gm", 0, 10)  # of a former epoch
    assert follower.beacon(N2, 1, 10, 5.0) == [Close(2, TRY_AGAIN, "resync"), Close(3, TRY_AGAIN, "resync")]
    assert follower.heard == 5.0


def test_a_beacon_behind_a_view_changes_nothing() -> None:
    """A bundle overtook the beacon sent before it (the beacon says how far
    the table was published)."""
    follower = following(1)
    viewing(follower, 1, "gm", 1, 11)
    assert follower.beacon(N2, 1, 10, 1.0) == []


def test_a_beacon_of_the_same_owner_under_a_new_fence_resumes_its_connections() -> None:
    """A node restarted under its own id owns the table under a new fence:
    the name in its beacon is the same, the fence is not."""
    follower = following(1, owner=("n3", 4))
    viewing(follower, 1, "gm", 1, 10)
    assert follower.beacon(("n3", 4), 1, 10, 1.0) == []
    assert follower.beacon(("n3", 5), 1, 10, 1.0) == [Close(1, TRY_AGAIN, "table moved")]


def test_a_beacon_of_another_node_resumes_every_connection_with_a_view_or_not() -> None:
    follower = following(1, 2)
    viewing(follower, 1, "gm", 1, 10)
    assert follower.beacon(N3, 1, 10, 1.0) == [
        Close(1, TRY_AGAIN, "table moved"),
        Close(2, TRY_AGAIN, "table moved"),
    ]


# -- owners and hellos ------------------------------------------------------------


def test_a_hello_that_finds_the_table_moved_sends_the_former_owner_s_connections_elsewhere() -> None:
    follower = following(1, owner=("n3", 1))
    moved = follower.owned_by(N2)
    assert moved == [Close(1, TRY_AGAIN, "table moved")]
    # The driver closes them (each leaves), then the new hello joins n2.
    assert follower.leave(1) and follower.empty
    follower.join(2, N2, 10.0)
    assert follower.owner == N2 and follower.refs == {2}
    assert follower.owned_by(N2) == []


def test_an_owner_read_again_as_nobody_resumes_every_connection() -> None:
    follower = following(1, 2)
    assert follower.owned_by(None) == [Close(1, TRY_AGAIN, "table moved"), Close(2, TRY_AGAIN, "table moved")]
    assert follower.owned_by(N2) == []


def test_a_table_gone_quiet_has_its_owner_read_again_once_per_quiet_spell() -> None:
    follower = following(1, deadline=1e9)
    assert follower.tick(30.0, quiet=30.0) == []
    assert follower.tick(31.0, quiet=30.0) == [CheckOwner()]
    assert follower.tick(32.0, quiet=30.0) == []  # asked already: not again until quiet once more
    follower.beacon(N2, 1, 0, 40.0)  # heard of again
    assert follower.tick(70.0, quiet=30.0) == []
    assert follower.tick(70.5, quiet=30.0) == [CheckOwner()]


def test_every_message_about_the_table_counts_as_hearing_of_it() -> None:
    follower = following(1)
    for step, feed in enumerate(
        [
            lambda now: follower.attached(1, "gm", now),
            lambda now: follower.deliver(1, [], None, None, now),
            lambda now: follower.answer(1, "m", b"a", now),
            lambda now: follower.bundle("n1", 1, [], [], now),
            lambda now: follower.beacon(N2, 1, 0, now),
            lambda now: follower.shut(1, 4001, "bad_token", b"", now),
        ],
        start=1,
    ):
        feed(float(step))
        assert follower.heard == float(step)


# -- the owner's answers and refusals ----------------------------------------------


def test_an_answer_is_written_and_wakes_its_request() -> None:
    assert following(1).answer(1, "m3", b"ok", 1.0) == [Send(1, b"ok"), Answered(1, "m3")]


def test_the_owner_s_refusal_is_written_before_the_close_it_names() -> None:
    follower = following(1)
    assert follower.shut(1, 1008, "archived", b"err", 1.0) == [Send(1, b"err"), Close(1, 1008, "archived")]
    assert follower.shut(1, 1013, "table moved", b"", 1.0) == [Close(1, 1013, "table moved")]


# -- leaving ----------------------------------------------------------------------


def test_a_connection_that_left_is_forgotten_and_sent_nothing_more() -> None:
    follower = following(1, 2)
    viewing(follower, 1, "gm", 1, 1)
    viewing(follower, 2, "gm", 1, 1)
    assert follower.leave(1) and not follower.leave(1)
    assert 1 not in follower.keys and 1 not in follower.seen and 1 not in follower.attaching
    assert follower.bundle("n1", 1, [patches(2, gm=b"g2")], [("n1", 1, "m", b"ack")], 1.0) == [Send(2, b"g2")]
    assert follower.tick(100.0, quiet=1e9) == []
    assert not follower.empty and follower.leave(2) and follower.empty


def test_a_node_silent_past_a_lease_resumes_every_connection() -> None:
    follower = following(3, 1, 2)
    assert follower.resync() == [
        Close(1, TRY_AGAIN, "resync"),
        Close(2, TRY_AGAIN, "resync"),
        Close(3, TRY_AGAIN, "resync"),
    ]
