"""A table as the server hosts it, and a connection as the server knows it.

:class:`TableHost` is one loaded table with what the edge keeps beside it:
its store record, its lock (the single writer), its subscribers grouped by
audience, the encoded patches kept for resume, its timer and its tokens.
:class:`Conn` is one WebSocket connection after its hello: who it is and
how far behind its socket is; :class:`RemoteConn` one that another node of
a cluster holds for a table this node owns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field

from websockets.asyncio.server import ServerConnection

from vigil import tokens
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


@dataclass(eq=False, kw_only=True)
class Peer:
    """Whoever a table serves: who it is, what it controls, which view it
    is sent. A :class:`Conn` on this node's socket, or a
    :class:`RemoteConn` held by another node of a cluster."""

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


@dataclass(eq=False, kw_only=True)
class Conn(Peer):
    """A WebSocket connection of this node, after its hello. ``ref`` names
    it to the owner of its table when that is another node."""

    ws: ServerConnection
    ref: int = 0
    # Its rate limit (vigil.net.rate): what it may still send, as of when.
    bucket: Bucket = field(default_factory=lambda: Bucket(0.0, 0.0))
    behind: bool = False
    behind_since: float = 0.0


@dataclass(eq=False, kw_only=True)
class RemoteConn(Peer):
    """A connection another node (``node``) holds for a table this node
    owns: what this node sends it goes over the bus (vigil.net.bus), to be
    written by that node to its socket ``ref``."""

    node: str
    ref: int

    @property
    def key(self) -> tuple[str, int]:
        return self.node, self.ref


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
        if isinstance(conn, RemoteConn):
            self.remote[conn.key] = conn
            self.remote_keys[audience.key] = self.remote_keys.get(audience.key, 0) + 1
        else:
            assert isinstance(conn, Conn)
            self.subs.setdefault(audience.key, set()).add(conn)
        self.idle_since.pop(audience.key, None)

    def leave(self, conn: Peer, now: float) -> None:
        """Remove ``conn``; an audience left empty starts idling at ``now``."""
        key = conn.watching.key
        if isinstance(conn, RemoteConn):
            if self.remote.pop(conn.key, None) is None:
                return
            self.remote_keys[key] -= 1
            if not self.remote_keys[key]:
                del self.remote_keys[key]
        else:
            assert isinstance(conn, Conn)
            group = self.subs.get(key)
            if group is None:
                return
            group.discard(conn)
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
