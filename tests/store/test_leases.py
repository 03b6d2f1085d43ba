"""Ownership of tables in PostgreSQL (vigil.store.leases): one owner at a
time, takeover only once a lease has expired, and the fence that refuses
every write of a node that lost its table — on a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.store.test_contract import doc0, entry, record

from vigil import tokens
from vigil.store import postgres
from vigil.store.base import Fenced
from vigil.store.leases import Lease, Leases


@pytest.fixture
def two(postgres_url: str) -> Iterator[tuple[postgres.PostgresStore, postgres.PostgresStore]]:
    a, b = postgres.PostgresStore(postgres_url), postgres.PostgresStore(postgres_url)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def expire(store: postgres.PostgresStore, table: str) -> None:
    """The lease of ``table`` runs out now (as if its owner stopped renewing
    a lease ago), without waiting for it."""
    store._run(
        lambda conn: conn.execute(
            "UPDATE owners SET expires = now() - interval '1 second' WHERE table_id = %s", (table,)
        )
    )


def test_the_maker_owns_a_table_and_nobody_else_can_take_it(two: tuple[postgres.PostgresStore, ...]) -> None:
    a, b = two
    la, lb = Leases(a, "a", 30), Leases(b, "b", 30)
    a.create_table(record(), doc0())
    assert a.fences == {"t1": 1}
    assert la.owner("t1") == lb.owner("t1") == Lease("a", 1)
    assert lb.orphans(10) == []
    assert lb.take(["t1"]) == {}
    a.append([entry(1)])  # the owner commits
    with pytest.raises(Fenced) as refused:
        b.append([entry(2)])  # a node that never owned it cannot
    assert refused.value.tables == {"t1"}
    assert a.load("t1").tail == [entry(1)]
    assert la.renew() == set()


def test_a_lost_lease_fences_every_write_of_the_old_owner(two: tuple[postgres.PostgresStore, ...]) -> None:
    a, b = two
    la, lb = Leases(a, "a", 30), Leases(b, "b", 30)
    a.create_table(record(), doc0())
    gm = tokens.new_record("t1", "gm", [], "gm", 30)
    a.add_token(gm)
    a.append([entry(1)])
    expire(a, "t1")
    assert lb.orphans(10) == ["t1"]
    assert lb.take(["t1"]) == {"t1": 2}
    assert lb.owner("t1") == Lease("b", 2)  # a new fence at every take
    # The old owner wakes up believing it still owns the table: nothing of
    # it is written, whichever write it tries.
    writes = [
        lambda: a.append([entry(2)]),
        lambda: a.snapshot("t1", 1, 1, doc0()),
        lambda: a.set_key("t1", "k2"),
        lambda: a.set_archived("t1", True),
        lambda: a.revoke("t1", gm.token_id),
        lambda: a.add_token(tokens.new_record("t1", "gm", [], "x", 30)),
        lambda: a.reset("t1", 2, doc0()),
        lambda: a.delete("t1"),
    ]
    for write in writes:
        with pytest.raises(Fenced):
            write()
    b.append([entry(2)])
    loaded = b.load("t1")
    assert loaded.tail == [entry(1), entry(2)]
    assert loaded.record.key == record().key and not loaded.record.archived
    assert [t.token_id for t in b.tokens("t1")] == [gm.token_id] and not b.tokens("t1")[0].revoked
    # Its next renewal tells it so, and it stops naming the fence.
    assert la.renew() == {"t1"}
    assert "t1" not in a.fences


def test_an_entry_already_committed_before_the_lease_went_is_done(
    two: tuple[postgres.PostgresStore, ...],
) -> None:
    """A commit whose answer was lost, repeated after a takeover: the rows are
    the same, so it was committed (not refused)."""
    a, b = two
    Leases(a, "a", 30)
    lb = Leases(b, "b", 30)
    a.create_table(record(), doc0())
    a.append([entry(1)])
    expire(a, "t1")
    lb.take(["t1"])
    a.append([entry(1)])  # done before: no error
    with pytest.raises(Fenced):
        a.append([entry(1), entry(2)])


def test_a_commit_group_refuses_only_the_tables_lost(two: tuple[postgres.PostgresStore, ...]) -> None:
    a, b = two
    Leases(a, "a", 30)
    lb = Leases(b, "b", 30)
    a.create_table(record(), doc0())
    a.create_table(record("t2"), doc0())
    expire(a, "t1")
    lb.take(["t1"])
    e2 = entry(1, table="t2")
    with pytest.raises(Fenced) as refused:
        a.append([entry(1), e2])
    assert refused.value.tables == {"t1"}
    assert a.load("t2").tail == [e2] and b.load("t1").tail == []


def test_release_lets_another_node_take_at_once_and_share_counts_live_nodes(
    two: tuple[postgres.PostgresStore, ...],
) -> None:
    a, b = two
    la, lb = Leases(a, "a", 30), Leases(b, "b", 30)
    for n in range(4):
        a.create_table(record(f"t{n}"), doc0())
    la.renew()
    assert la.share() == 4  # b has not beaten yet
    lb.beat()
    assert la.share() == 2 and la.live_nodes() == {"a", "b"}
    la.release()
    assert la.live_nodes() == {"b"}
    assert sorted(lb.take(lb.orphans(10))) == ["t0", "t1", "t2", "t3"]


def test_a_node_restarted_with_its_id_takes_its_tables_back_at_once(postgres_url: str) -> None:
    first = postgres.PostgresStore(postgres_url)
    Leases(first, "a", 30)
    first.create_table(record(), doc0())
    first.close()  # killed: its lease is still live for 30 s
    again = postgres.PostgresStore(postgres_url)
    try:
        la = Leases(again, "a", 30)
        assert la.orphans(10) == ["t1"]
        assert la.take(["t1"]) == {"t1": 2}
        again.append([entry(1)])
    finally:
        again.close()
