"""A table as the server hosts it, and a connection as the server knows it.

:class:`TableHost` is one loaded table with what the edge keeps beside it:
its store record, its lock (the single writer), its subscribers grouped by
audience, the encoded patches kept for resume, its timer and its tokens.
:class:`Conn` is one WebSocket connection after its hello: who it is and
how far behind its socket is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field

from websockets.asyncio.server import ServerConnection

from vigil import tokens
from vigil.net.replay import Rendered as Rendered
from vigil.net.replay import Replay
from vigil.rules.game import Actor
from vigil.store.base import TableRecord, TokenRecord
from vigil.table import Table
from vigil.views import PUBLIC_AUDIENCE, Audience, Viewer

# An audience nobody watches keeps its view this long (seconds), so that a
# quick reconnect can still be replayed.
IDLE_AUDIENCE_SECONDS = 60.0


@dataclass(eq=False)
class Conn:
    ws: ServerConnection
    role: str = ""
    table: str | None = None
    # The characters it controls now (:func:`vigil.tokens.owned` of its
    # token's ``record``), kept current by the writer.
    chars: frozenset[str] = frozenset()
    record: TokenRecord | None = None
    token_id: str = ""
    label: str = ""
    audience: Audience | None = None
    tokens: float = 0.0
    refilled: float = 0.0
    behind: bool = False
    behind_since: float = 0.0
    expires: float | None = None

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

    def conns(self) -> Iterator[Conn]:
        for group in self.subs.values():
            yield from group

    def count(self) -> int:
        return sum(len(group) for group in self.subs.values())

    def rebind(self, now: float) -> list[Conn]:
        """After the table's characters changed: each player connection whose
        characters are not the ones it controlled (one removed, or brought
        back by an undo) moves to the audience of those it controls now.
        Returns the moved ones (they need a snapshot of their new view)."""
        incarnations = self.table.incarnations()
        moved = []
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

    def join(self, conn: Conn) -> None:
        """Add ``conn`` to its audience; the table keeps that audience's view."""
        audience = conn.watching
        self.table.watch(audience)
        self.subs.setdefault(audience.key, set()).add(conn)
        self.idle_since.pop(audience.key, None)

    def leave(self, conn: Conn, now: float) -> None:
        """Remove ``conn``; an audience left empty starts idling at ``now``."""
        key = conn.watching.key
        group = self.subs.get(key)
        if group is not None:
            group.discard(conn)
            if not group:
                self.idle_since[key] = now

    def forget_idle(self, now: float) -> None:
        """Forget the views of audiences nobody has watched for a while."""
        for key, idle in list(self.idle_since.items()):
            if not self.subs.get(key) and now - idle > IDLE_AUDIENCE_SECONDS:
                self.table.forget(key)
                del self.idle_since[key]
