"""Who watches which table: a connection (this node's or another node's)
admitted where the table has a place for it (making room by letting its
own given-up former connection go), welcomed, added to its audience and
brought up to date; and gone again. A GM's arrival or the last GM leaving
moves a clock paused or running for want of one (vigil.net.presence).

Its own service beside the hub (which composes it and keeps the tables in
memory): nothing here awaits, so no other connection can take a place
between its check and its join.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.net import admission, presence
from vigil.net.errors import Refused
from vigil.net.fanout import FanOut
from vigil.net.host import Peer, TableHost
from vigil.net.writer import Writer

log = structlog.get_logger("vigil")


class Watching:
    """The joining and leaving of a table's connections; ``spawn`` runs
    work on its own, ``mark`` marks tables as having a GM present now
    (the hub's presence marks)."""

    def __init__(
        self,
        config: Config,
        fanout: FanOut,
        writer: Writer,
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        mark: Callable[[list[str]], Coroutine[Any, Any, None]],
    ) -> None:
        self.config = config
        self.fanout = fanout
        self.writer = writer
        self._spawn = spawn
        self._mark = mark

    def admit(self, host: TableHost, conn: Peer) -> None:
        """Refuse ``conn`` if the table has no place for it
        (:func:`vigil.net.admission.no_place`)."""
        config = self.config
        places = admission.Places(
            config.max_connections_per_table, config.max_spectators_per_table, config.max_spectators_per_token
        )
        code = admission.no_place(host.conns(), conn, places)
        if code is not None:
            raise Refused(code)

    def make_room(self, host: TableHost, conn: Peer) -> None:
        """Admit ``conn`` (:meth:`admit`), making room first if its own
        former connection holds the place: a client that reconnects names
        the session it had (its hello's), and a connection of the table with
        the same token and session is one it has given up — dropped by the
        network before keep-alive noticed. That one leaves (closed 1013)
        instead of keeping its client out (``link_full``, ``table_full``)
        until keep-alive notices; with places to spare both stay (the former
        closes by itself)."""
        try:
            self.admit(host, conn)
            return
        except Refused:
            formers = admission.given_up(host.conns(), conn)
            if not formers:
                raise
        for former in formers:
            log.info("replaced", table=host.record.id, token=conn.token_id)
            self.writer.close(host, former, CloseCode.TRY_AGAIN_LATER, "replaced by a reconnect")
        self.admit(host, conn)

    def subscribe(self, host: TableHost, conn: Peer, welcome: bytes, resume: tuple[int, int] | None) -> None:
        """Admit ``conn`` (or refuse it, before it is welcomed), welcome it,
        add it to its audience and bring it up to date: the missed patches
        from the replay buffer when they are all there, else a snapshot (and
        a GM's arrival may run a clock paused without one). Nothing here
        awaits, so no other connection can take the place between the
        check and the join."""
        self.admit(host, conn)
        self.fanout.send(conn, welcome)
        host.join(conn)
        self.fanout.catch_up(host, conn, resume)
        if presence.resumes_for(host.table, conn.role):
            self._spawn(self.writer.resume_with_gm(host))
        elif presence.marks_at_once(host.table, conn.role, host.gm_count()):
            self._spawn(self._mark([host.table.id]))

    def leave(self, host: TableHost, peer: Peer) -> None:
        """``peer`` (this node's connection or another's) is gone; the last
        GM leaving a clock that must not run without one pauses it."""
        host.leave(peer, time.monotonic())
        if not self.writer.closing and presence.pauses_after(host.table, peer.role, host.gm_count()):
            self._spawn(self.writer.pause_without_gm(host))
