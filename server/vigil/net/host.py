"""A table as the server hosts it, and a connection as the server knows it.

:class:`TableHost` is one loaded table with what the edge keeps beside it:
its store record, its lock (the single writer), its subscribers grouped by
audience, the encoded patches kept for resume, its timer and its tokens.
:class:`Conn` is one WebSocket connection after its hello: who it is and
how far behind its socket is; :class:`RemoteConn` one that another node of
a cluster holds for a table this node owns. Both are a :class:`Peer`, the
port the services send to: each carries what differs (this node's socket,
reached through :class:`Sockets`; another node, through :class:`Link`), so
that no service asks which one it has.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple, Protocol

from websockets.asyncio.server import ServerConnection

from vigil import tokens
from vigil.close_codes import CloseCode
from vigil.net.applied import Applied
from vigil.net.rate import Bucket
from vigil.net.replay import Rendered as Rendered
from vigil.net.replay import Replay
from vigil.rules.game import Actor
from vigil.store.base import TableRecord, TokenRecord
from vigil.table import Table
from vigil.views import PUBLIC_AUDIENCE, Audience, Viewer

# An audience nobody watches keeps its view this long (seconds), so that a
# quick reconnect can still be replayed.
IDLE_AUDIENCE_SECONDS = 60.0


class RemoteAck(NamedTuple):
    """A command's ack to a connection another node holds: it travels in
    the publication of the patches it caused, before them
    (vigil.net.cluster_wire.Bundle)."""

    node: str
    ref: int
    id: str
    data: bytes


class Sockets(Protocol):
    """This node's WebSocket connections as they are written: the fan-out's
    (vigil.net.fanout), which alone touches their sockets."""

    def write(self, conn: Conn, messages: list[bytes]) -> None:
        """The messages queued on ``conn`` in one write, without waiting on it."""

    async def reply(self, conn: Conn, data: bytes) -> None:
        """An answer, awaited: the connection's own requests wait on it."""

    def end(self, conn: Conn, code: CloseCode, reason: str) -> None:
        """Close ``conn`` on its own (the caller does not wait)."""


class Link(Protocol):
    """How the owner of a table reaches a connection another node holds:
    the relay (vigil.net.relay; over the bus for a node of a cluster)."""

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        """Messages to one remote connection, in order (``rev``/``epoch``:
        they bring its view to that rev: a snapshot, or a replay)."""

    def answer(self, peer: RemoteConn, id: str, data: bytes) -> None:
        """A request's answer to a remote connection."""

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        """Have the remote connection's node close it."""


@dataclass(eq=False, kw_only=True)
class Peer(ABC):
    """Whoever a table serves: who it is, what it controls, which view it
    is sent — and the port it is sent through. A :class:`Conn` on this
    node's socket, or a :class:`RemoteConn` held by another node of a
    cluster; each carries how it is reached, so the services that send to
    it never ask which it is."""

    # Whether a change of the characters it controls is followed where it
    # is (it is sent a snapshot of its new view): a remote connection's node
    # learns its characters only from a hello, so it is closed (1013) to
    # say it again.
    rebinds_in_place: ClassVar[bool]

    role: str = ""
    table: str | None = None
    # The characters it controls now (:func:`vigil.tokens.owned` of its
    # token's ``record``), kept current by the writer.
    chars: frozenset[str] = frozenset()
    record: TokenRecord | None = None
    token_id: str = ""
    label: str = ""
    audience: Audience | None = None
    expires: float | None = None
    # The client's session (its hello's): what names its commands across
    # reconnects and nodes, with its token and their ids.
    session: str = ""
    # The table it joined, as this node served it then: a request read
    # after that table was given up here (moved, in doubt) is dropped for
    # its client to send again, never refused as if the table did not exist.
    host: TableHost | None = None

    @property
    def viewer(self) -> Viewer:
        return Viewer(self.role, self.chars)

    @property
    def watching(self) -> Audience:
        """The audience whose view this connection is sent."""
        return self.audience or PUBLIC_AUDIENCE

    @property
    def actor(self) -> Actor:
        role = "gm" if self.role in ("gm", "operator") else "player"
        return Actor(id=f"{self.label or self.role}#{self.token_id}", role=role)  # type: ignore[arg-type]

    @abstractmethod
    def send(self, messages: list[bytes], rev: int | None = None, epoch: int | None = None) -> None:
        """Messages to it in order, without waiting on it (``rev``,
        ``epoch``: the view they bring it to — a snapshot, or a replay)."""

    @abstractmethod
    def answer(self, id: str, data: bytes) -> None:
        """The answer ``data`` to its request ``id``, without waiting."""

    @abstractmethod
    async def respond(self, id: str, data: bytes) -> None:
        """The answer to its request ``id``, as its requests are handled:
        one after the other, each answer awaited on this node's socket."""

    @abstractmethod
    def acked(self, id: str, messages: list[bytes]) -> RemoteAck | None:
        """Its command's ack (``messages[0]``) with the patches of its own
        audience after it: written now in one write (None), or what goes in
        the publication to its node, before the patches (a remote one)."""

    @abstractmethod
    def close(self, code: CloseCode, reason: str) -> None:
        """Closed on its own, by its node (the caller does not wait)."""

    @abstractmethod
    def _add_to(self, host: TableHost) -> None:
        """Among ``host``'s connections, in its audience."""

    @abstractmethod
    def _remove_from(self, host: TableHost) -> bool:
        """No longer among ``host``'s connections; whether it was."""


@dataclass(eq=False, kw_only=True)
class Conn(Peer):
    """A WebSocket connection of this node, after its hello. ``ref`` is its
    name on the bus, given once it first speaks to another node: attached
    to a table another node owns (``attached``: its requests go there,
    vigil.net.routing), or an operator's request forwarded to one."""

    rebinds_in_place: ClassVar[bool] = True

    ws: ServerConnection
    sockets: Sockets
    ref: int = 0
    attached: bool = False
    # Its rate limit (vigil.net.rate): what it may still send, as of when.
    bucket: Bucket = field(default_factory=lambda: Bucket(0.0, 0.0))
    behind: bool = False
    behind_since: float = 0.0

    def send(self, messages: list[bytes], rev: int | None = None, epoch: int | None = None) -> None:
        self.sockets.write(self, messages)

    def answer(self, id: str, data: bytes) -> None:
        self.sockets.write(self, [data])

    async def respond(self, id: str, data: bytes) -> None:
        await self.sockets.reply(self, data)

    def acked(self, id: str, messages: list[bytes]) -> RemoteAck | None:
        self.sockets.write(self, messages)
        return None

    def close(self, code: CloseCode, reason: str) -> None:
        self.sockets.end(self, code, reason)

    def _add_to(self, host: TableHost) -> None:
        host.subs.setdefault(self.watching.key, set()).add(self)

    def _remove_from(self, host: TableHost) -> bool:
        group = host.subs.get(self.watching.key)
        if group is None:
            return False
        group.discard(self)
        return True


@dataclass(eq=False, kw_only=True)
class RemoteConn(Peer):
    """A connection another node (``node``) holds for a table this node
    owns: what this node sends it goes over the bus (vigil.net.bus), to be
    written by that node to its socket ``ref``."""

    rebinds_in_place: ClassVar[bool] = False

    node: str
    ref: int
    link: Link

    @property
    def key(self) -> tuple[str, int]:
        return self.node, self.ref

    def send(self, messages: list[bytes], rev: int | None = None, epoch: int | None = None) -> None:
        self.link.send(self, messages, rev, epoch)

    def answer(self, id: str, data: bytes) -> None:
        self.link.answer(self, id, data)

    async def respond(self, id: str, data: bytes) -> None:
        self.link.answer(self, id, data)

    def acked(self, id: str, messages: list[bytes]) -> RemoteAck | None:
        return RemoteAck(self.node, self.ref, id, messages[0])

    def close(self, code: CloseCode, reason: str) -> None:
        self.link.close(self, code, reason)

    def _add_to(self, host: TableHost) -> None:
        key = self.watching.key
        host.remote[self.key] = self
        host.remote_keys[key] = host.remote_keys.get(key, 0) + 1

    def _remove_from(self, host: TableHost) -> bool:
        if host.remote.pop(self.key, None) is None:
            return False
        key = self.watching.key
        host.remote_keys[key] -= 1
        if not host.remote_keys[key]:
            del host.remote_keys[key]
        return True


@dataclass(eq=False)
class TableHost:
    table: Table
    record: TableRecord
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subs: dict[str, set[Conn]] = field(default_factory=dict)
    idle_since: dict[str, float] = field(default_factory=dict)
    # Patches kept for resume (bounded by the hub's configuration).
    replay: Replay = field(default_factory=lambda: Replay(1000, 1 << 20))
    timer: asyncio.TimerHandle | None = None
    tokens: dict[str, TokenRecord] = field(default_factory=dict)
    since_snapshot: int = 0
    # Deleted while a command waited for the lock: it must find no table.
    deleted: bool = False
    # Given up (vigil.net.writer.GivenUp): a command that waited must not apply.
    given_up: bool = False
    # The connections other nodes hold for this table, and how many of them
    # watch each audience (their views are kept and sent over the bus).
    remote: dict[tuple[str, int], RemoteConn] = field(default_factory=dict)
    remote_keys: dict[str, int] = field(default_factory=dict)
    # The commands applied lately, by request (token, session and message
    # id): their rev and result, so that a command sent again with its id
    # (its ack was lost with a connection or a node) is answered, not
    # applied twice. Filled from the log when the table is loaded.
    applied: Applied = field(default_factory=Applied)

    def conns(self) -> Iterator[Peer]:
        """Every connection of the table, this node's and the others'."""
        for group in self.subs.values():
            yield from group
        yield from self.remote.values()

    def count(self) -> int:
        return sum(len(group) for group in self.subs.values()) + len(self.remote)

    def rebind(self, now: float) -> list[Peer]:
        """After the table's characters changed: each player connection whose
        characters are not the ones it controlled (one removed, or brought
        back by an undo) moves to the audience of those it controls now.
        Returns the moved ones (they need a snapshot of their new view)."""
        incarnations = self.table.incarnations()
        moved: list[Peer] = []
        for conn in [c for c in self.conns() if c.role == "player" and c.record is not None]:
            assert conn.record is not None
            chars = tokens.owned(conn.record, incarnations)
            if chars != conn.chars:
                self.leave(conn, now)
                conn.chars = chars
                conn.audience = conn.viewer.audience
                self.join(conn)
                moved.append(conn)
        return moved

    def gm_count(self) -> int:
        return sum(1 for c in self.conns() if c.role == "gm")

    def join(self, conn: Peer) -> None:
        """Add ``conn`` to its audience; the table keeps that audience's view."""
        audience = conn.watching
        self.table.watch(audience)
        conn._add_to(self)
        self.idle_since.pop(audience.key, None)

    def leave(self, conn: Peer, now: float) -> None:
        """Remove ``conn``; an audience left empty starts idling at ``now``."""
        key = conn.watching.key
        if not conn._remove_from(self):
            return
        if not self.subs.get(key) and not self.remote_keys.get(key):
            self.idle_since[key] = now

    def forget_idle(self, now: float) -> None:
        """Forget the views of audiences nobody has watched for a while."""
        for key, idle in list(self.idle_since.items()):
            if (
                not self.subs.get(key)
                and not self.remote_keys.get(key)
                and now - idle > IDLE_AUDIENCE_SECONDS
            ):
                self.table.forget(key)
                del self.idle_since[key]
