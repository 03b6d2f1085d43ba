"""The single writer's stages in their order (vigil.net.writer), with a fake
commit group, fan-out and store recording every call: what each stage may
only do once the one before it is done — the log durable before anything
is sent, the ack with the patches it caused, nothing kept or sent of an
edit that failed, connections closed once the table's lock is released.
No socket and no database; the order is read from the record, never from
the time."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from vigil.changes import LogEntry
from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.net.host import Peer, RemoteConn, Rendered, TableHost
from vigil.net.relay import Reply
from vigil.net.storage import Storage
from vigil.net.writer import Closing, Conflicted, Edit, GivenUp, OutcomeUnknown, TableMoved, Writer
from vigil.rules.dice import SecureDice
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError
from vigil.store.base import Conflict, Fenced, TableRecord
from vigil.table import Table
from vigil.table_commands import CharacterCreate

pytestmark = pytest.mark.asyncio


class Record:
    """Every call the writer makes of its collaborators, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def add(self, name: str, detail: Any = None) -> None:
        self.calls.append((name, detail))


class FakeCommitter:
    """A commit group that commits when the test says (``gate``), or fails."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.gate: asyncio.Event | None = None
        self.fails: Exception | None = None

    async def commit(self, entries: list[LogEntry]) -> None:
        self.record.add("commit", [e.rev for e in entries])
        if self.gate is not None:
            await self.gate.wait()
        if self.fails is not None:
            raise self.fails
        self.record.add("durable")

    def committed(self, host: TableHost, count: int) -> None:
        self.record.add("committed", count)


class FakeRelay:
    """The link to the remote connections of the tests (vigil.net.host.Link)."""

    def __init__(self, record: Record, host: TableHost) -> None:
        self.record, self.host = record, host

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        self.record.add("send", (peer.ref, rev))

    def answer(self, peer: RemoteConn, id: str, data: bytes) -> None:
        self.record.add("answer", data)

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        self.record.add("close", (peer.ref, int(code), reason, self.host.lock.locked()))


class FakeFanOut:
    def __init__(self, record: Record, host: TableHost) -> None:
        self.record = record
        self.relay = FakeRelay(record, host)

    def answer(self, reply: Reply) -> None:
        reply.peer.answer(reply.id, reply.data)

    def publish(self, host: TableHost, rendered: list[Rendered], reply: Reply | None = None) -> None:
        self.record.add("publish", ([rev for rev, _ in rendered], reply.data if reply else None))

    def snapshot(self, host: TableHost, conn: Peer) -> None:
        self.record.add("snapshot", conn.watching.key)


class Harness:
    def __init__(self) -> None:
        wall = time.time()
        table = Table.new("t1", GAMES["mettle"], "Friday", {}, wall, undo_depth=20)
        record = TableRecord(id="t1", system="mettle", name="Friday", key="k", epoch=1, created=wall)
        self.host = TableHost(table=table, record=record)
        self.record = Record()
        self.committer = FakeCommitter(self.record)
        self.fanout = FakeFanOut(self.record, self.host)
        self.writer = Writer(Config(demo=False), Storage(object()), self.committer, self.fanout, SecureDice())  # type: ignore[arg-type]
        self.writer.on_give_up = lambda host: self.record.add("given_up", host.record.id)

    def edit(self, char: str = "brannoc", **kw: Any) -> Edit:
        body = CharacterCreate(id=char, name=char.title(), kind="pc", sheet={"mettle": 5})
        return Edit(make=lambda t, w, c: t.prepare(body, w, c), **kw)

    def ack(self, rev: int, result: Any) -> Reply:
        return Reply(RemoteConn(node="n2", ref=1, link=self.fanout.relay), "m1", b"ack@%d" % rev)


@pytest.fixture
def h() -> Harness:
    return Harness()


async def test_a_command_is_durable_before_its_ack_and_patches_are_sent(h: Harness) -> None:
    write = lambda store: h.record.add("write")  # noqa: E731 - a durable write beyond the log
    await h.writer.run(h.host, h.edit(write=write, keep=lambda: h.record.add("keep"), request="r1"), h.ack)
    rev = h.host.table.rev
    assert h.record.names() == ["commit", "durable", "write", "keep", "publish", "committed"]
    # The ack travels with the patches it caused, in one publish (FanOut
    # writes it first); the log entry is the one of the rev acknowledged.
    assert h.record.calls[0] == ("commit", [rev])
    assert h.record.calls[4] == ("publish", ([rev], b"ack@%d" % rev))
    assert h.host.applied.get("r1") is not None
    h.writer.closing = True  # no timer left armed past the test


async def test_nothing_is_sent_or_kept_while_the_log_is_not_durable(h: Harness) -> None:
    h.committer.gate = asyncio.Event()
    run = asyncio.create_task(h.writer.run(h.host, h.edit(keep=lambda: h.record.add("keep")), h.ack))
    while "commit" not in h.record.names():
        await asyncio.sleep(0)
    for _ in range(10):  # whatever else runs meanwhile
        await asyncio.sleep(0)
    assert h.record.names() == ["commit"]
    # The next edit of the table waits for the lock: changes apply in order.
    second = asyncio.create_task(h.writer.run(h.host, h.edit("ysolde"), h.ack))
    await asyncio.sleep(0)
    assert h.record.names() == ["commit"]
    h.committer.gate.set()
    await run
    await second
    first_rev, second_rev = h.host.table.rev - 1, h.host.table.rev
    assert h.record.calls == [
        ("commit", [first_rev]),
        ("durable", None),
        ("keep", None),
        ("publish", ([first_rev], b"ack@%d" % first_rev)),
        ("committed", 1),
        ("commit", [second_rev]),
        ("durable", None),
        ("publish", ([second_rev], b"ack@%d" % second_rev)),
        ("committed", 1),
    ]
    h.writer.closing = True


@pytest.mark.parametrize(
    ("failing", "raised", "kind"),
    [
        ("commit", OSError("disk gone"), OutcomeUnknown),
        ("commit", Fenced({"t1"}), TableMoved),
        ("commit", Conflict("rev 3 is another entry"), Conflicted),
        ("write", OSError("disk gone"), OutcomeUnknown),
    ],
)
async def test_an_edit_whose_durability_fails_is_undone_and_sends_nothing(
    h: Harness, failing: str, raised: Exception, kind: type[GivenUp]
) -> None:
    """Given up, under the name of what the store said: another node owns
    the table, the store's copy is ahead, or the outcome is unknown."""
    rev, doc = h.host.table.rev, h.host.table.doc
    if failing == "commit":
        h.committer.fails = raised

    def write(store: object) -> None:
        raise raised

    edit = h.edit(
        keep=lambda: h.record.add("keep"), write=write if failing == "write" else None, request="r1"
    )
    with pytest.raises(kind):
        await h.writer.run(h.host, edit, h.ack)
    # Given up (its connections resume where the store's truth is served);
    # nothing kept, published or remembered; the table as it was.
    assert "publish" not in h.record.names() and "keep" not in h.record.names()
    assert h.record.names()[-1] == "given_up"
    assert h.host.table.rev == rev and h.host.table.doc is doc
    assert h.host.applied.get("r1") is None


async def test_a_rule_refusal_commits_nothing_and_leaves_the_table_as_it_was(h: Harness) -> None:
    doc = h.host.table.doc

    def refuse(table: Table, wall: float, ctx: Any) -> Any:
        raise RuleError("unknown_character", char="nobody")

    with pytest.raises(RuleError):
        await h.writer.run(h.host, Edit(make=refuse), h.ack)
    assert h.record.calls == [] and h.host.table.doc is doc


async def test_a_request_sent_again_is_answered_with_its_first_ack_and_applied_once(h: Harness) -> None:
    await h.writer.run(h.host, h.edit(request="r1"), h.ack)
    rev = h.host.table.rev
    h.record.calls.clear()
    await h.writer.run(h.host, h.edit(request="r1"), h.ack)
    assert h.record.calls == [("answer", b"ack@%d" % rev)] and h.host.table.rev == rev
    h.writer.closing = True


async def test_a_new_epoch_sends_its_snapshots_after_what_is_kept_and_before_the_patches(h: Harness) -> None:
    h.host.join(RemoteConn(node="n2", ref=5, link=h.fanout.relay, role="spectator"))
    await h.writer.run(h.host, Edit(new_epoch=True, keep=lambda: h.record.add("keep")))
    assert h.record.names() == ["keep", "snapshot", "publish"]
    assert h.host.record.epoch == h.host.table.epoch == 2
    h.writer.closing = True


async def test_the_connections_an_edit_ends_are_closed_after_it_is_sent_and_the_lock_released(
    h: Harness,
) -> None:
    h.host.join(RemoteConn(node="n2", ref=5, link=h.fanout.relay, role="spectator"))
    h.host.join(RemoteConn(node="n2", ref=6, link=h.fanout.relay, role="gm"))
    closing = Closing(CloseCode.TOKEN_REVOKED, "revoked", lambda c: c.role == "spectator")
    await h.writer.run(h.host, h.edit(close=closing), h.ack)
    assert h.record.names() == ["commit", "durable", "publish", "committed", "close"]
    assert h.record.calls[-1] == ("close", (5, int(CloseCode.TOKEN_REVOKED), "revoked", False))
    assert [c.role for c in h.host.conns()] == ["gm"]
    h.writer.closing = True


async def test_a_deleted_or_given_up_table_takes_no_edit(h: Harness) -> None:
    h.host.given_up = True
    with pytest.raises(GivenUp):
        await h.writer.run(h.host, h.edit(), h.ack)
    h.host.deleted = True
    with pytest.raises(Exception, match="unknown_table"):
        await h.writer.run(h.host, h.edit(), h.ack)
    assert h.record.calls == []
