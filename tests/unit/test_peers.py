"""A peer is the port it is sent through (vigil.net.host.Peer): the
fan-out and the table call it, and each kind carries what differs — a
connection of this node is written through its Sockets (the fan-out's),
one another node holds through its Link (the relay). No socket and no bus:
both are fakes recording what they are asked."""

from __future__ import annotations

import time
from typing import Any

from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.net.fanout import FanOut
from vigil.net.host import Conn, RemoteAck, RemoteConn, Rendered, TableHost
from vigil.net.relay import Reply
from vigil.rules.games import GAMES
from vigil.store.base import TableRecord
from vigil.table import Table
from vigil.views import GM_AUDIENCE


class Sockets:
    """This node's sockets, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def write(self, conn: Conn, messages: list[bytes]) -> None:
        self.calls.append(("write", messages))

    async def reply(self, conn: Conn, data: bytes) -> None:
        self.calls.append(("reply", data))

    def end(self, conn: Conn, code: CloseCode, reason: str) -> None:
        self.calls.append(("end", (int(code), reason)))


class Relay:
    """The other nodes, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        self.calls.append(("send", (peer.key, messages, rev, epoch)))

    def answer(self, peer: RemoteConn, id: str, data: bytes) -> None:
        self.calls.append(("answer", (peer.key, id, data)))

    def publish(self, host: TableHost, rendered: list[Rendered], ack: RemoteAck | None) -> None:
        self.calls.append(("publish", ([rev for rev, _ in rendered], ack)))

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        self.calls.append(("close", (peer.key, int(code), reason)))


class Socket:
    """A socket never open: the fan-out's own group writes skip it."""

    transport = None


def host() -> TableHost:
    wall = time.time()
    table = Table.new("t1", GAMES["mettle"], "Friday", {}, wall, undo_depth=20)
    record = TableRecord(id="t1", system="mettle", name="Friday", key="k", epoch=1, created=wall)
    return TableHost(table=table, record=record)


def parts() -> tuple[FanOut, Sockets, Relay]:
    relay = Relay()
    fanout = FanOut(Config(demo=False), {})
    fanout.relay = relay
    return fanout, Sockets(), relay


def test_each_kind_takes_its_own_place_among_the_tables_connections() -> None:
    table, sockets, relay = host(), Sockets(), Relay()
    mine = Conn(ws=Socket(), sockets=sockets, role="gm", audience=GM_AUDIENCE)  # type: ignore[arg-type]
    theirs = RemoteConn(node="n2", ref=3, link=relay, role="spectator")
    table.join(mine)
    table.join(theirs)
    assert table.subs == {"gm": {mine}} and table.remote == {("n2", 3): theirs}
    assert table.remote_keys == {"public": 1} and table.count() == 2
    table.leave(theirs, 100.0)
    table.leave(theirs, 101.0)  # gone already: nothing changes
    assert table.remote == {} and table.remote_keys == {} and table.idle_since == {"public": 100.0}
    table.leave(mine, 102.0)
    assert list(table.conns()) == [] and table.idle_since == {"public": 100.0, "gm": 102.0}


def test_a_local_senders_ack_is_written_with_its_own_patches_and_nothing_is_relayed() -> None:
    fanout, sockets, relay = parts()
    table = host()
    sender = Conn(ws=Socket(), sockets=sockets, role="gm", audience=GM_AUDIENCE)  # type: ignore[arg-type]
    table.join(sender)
    rendered: list[Rendered] = [(1, {"gm": b"p1", "public": b"q1"}), (2, {"gm": b"p2"})]
    fanout.publish(table, rendered, Reply(sender, "m1", b"ack"))
    assert sockets.calls == [("write", [b"ack", b"p1", b"p2"])]
    assert relay.calls == []  # no other node watches, and the sender is here
    assert table.replay.missed("gm", 0, 2) == [b"p1", b"p2"]


def test_a_remote_senders_ack_goes_with_the_publication_before_the_patches() -> None:
    fanout, sockets, relay = parts()
    table = host()
    sender = RemoteConn(node="n2", ref=7, link=relay, role="gm", audience=GM_AUDIENCE)
    fanout.publish(table, [(1, {"gm": b"p1"})], Reply(sender, "m1", b"ack"))
    assert relay.calls == [("publish", ([1], RemoteAck("n2", 7, "m1", b"ack")))]
    assert sockets.calls == []


def test_answers_views_and_closes_go_where_each_peer_is() -> None:
    fanout, sockets, relay = parts()
    table = host()
    mine = Conn(ws=Socket(), sockets=sockets, role="gm", audience=GM_AUDIENCE)  # type: ignore[arg-type]
    theirs = RemoteConn(node="n2", ref=3, link=relay, role="gm", audience=GM_AUDIENCE)
    for peer in (mine, theirs):
        fanout.answer(Reply(peer, "m1", b"answer"))
        fanout.snapshot(table, peer)
        peer.close(CloseCode.TRY_AGAIN_LATER, "table moved")
    assert [name for name, _ in sockets.calls] == ["write", "write", "end"]
    assert sockets.calls[0] == ("write", [b"answer"])
    assert sockets.calls[2] == ("end", (1013, "table moved"))
    assert [name for name, _ in relay.calls] == ["answer", "send", "close"]
    assert relay.calls[0] == ("answer", (("n2", 3), "m1", b"answer"))
    # A remote connection's snapshot says the view it brings it to.
    assert relay.calls[1][1][2:] == (table.table.rev, table.table.epoch)
    assert relay.calls[2] == ("close", (("n2", 3), 1013, "table moved"))


def test_only_a_connection_of_this_node_follows_new_characters_where_it_is() -> None:
    """Its node learns a remote connection's characters from a hello only:
    the writer closes it (1013) to say it again."""
    assert Conn.rebinds_in_place and not RemoteConn.rebinds_in_place
