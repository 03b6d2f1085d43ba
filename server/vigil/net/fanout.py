"""Fan-out: every message to its connections without waiting on any, the
patches kept for resume, and the watchdog of slow clients.

A patch is encoded once per audience, and framed once: the same frame bytes
are written to every connection of that audience (the server neither masks
nor compresses its frames, so they are the same for all), and every rev a
connection is sent in one publication goes in one write. No sender ever
waits on a socket here: a client past its backlog is marked behind and
skipped (never sent a gap), then gets a snapshot once it has read what it
was sent, or is dropped if it has not within the stall limit.

The fan-out is also this node's :class:`~vigil.net.host.Sockets`: what a
:class:`~vigil.net.host.Conn` is sent goes through it, the one place that
writes and closes this node's WebSocket connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable

import structlog
from websockets.asyncio.connection import broadcast
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.net import metrics
from vigil.net.host import Conn, Peer, RemoteAck, Rendered, TableHost
from vigil.net.relay import LocalRelay, Relay, Reply
from vigil.net.tasks import Tasks
from vigil.protocol import Patch, Snapshot, encoder
from vigil.table import Table
from vigil.table_views import AudiencePatch

log = structlog.get_logger("vigil")

# How long an ended connection's closing handshake may take before its
# socket is simply dropped (a client that stopped reading never answers).
CLOSE_SECONDS = 5.0


async def end(conn: Conn, code: CloseCode, reason: str) -> None:
    """Close ``conn``: the close frame, at most ``CLOSE_SECONDS`` for the
    client's answer, then the socket is aborted whatever it does."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.ws.close(code, reason), CLOSE_SECONDS)
    transport = conn.ws.transport
    if transport is not None:
        transport.abort()  # a no-op once closed; else never waits to flush


def text_frame(message: bytes) -> bytes:
    """``message`` as one unmasked text frame, made by websockets' own
    Sans-I/O frame serializer: the bytes its protocol object writes for
    ``send_text`` on a server connection without extensions (RFC 6455 5.1:
    a server never masks), so one frame serves every connection."""
    return Frame(Opcode.TEXT, message).serialize(mask=False)


def encode(table: Table, patches: list[AudiencePatch]) -> Rendered:
    """The table's current rev and its patches, each encoded once, by
    audience key."""
    messages: dict[str, bytes] = {}
    for patch in patches:
        message = encoder.encode(Patch(rev=table.rev, changes=patch.changes))
        for key in patch.keys:
            messages[key] = message
    return table.rev, messages


class FanOut:
    def __init__(self, config: Config, hosts: dict[str, TableHost]) -> None:
        self.config = config
        self._hosts = hosts  # the hub's tables, to tell who is still subscribed
        # One task per connection past its backlog, until it drains or is dropped.
        self._probes: set[asyncio.Task[None]] = set()
        # This node's connections being closed (vigil.net.host.Sockets.end),
        # each on its own: a caller that must see them closed waits on them.
        self.ending = Tasks("fanout")
        # How other nodes' connections are reached: over the bus for a node
        # of a cluster (set by the composition root, vigil.net.app), to no
        # one for a node alone.
        self.relay: Relay = LocalRelay()

    def start(self) -> None:
        """Nothing runs until a connection goes past its backlog."""

    def stop(self) -> None:
        for task in list(self._probes):
            task.cancel()

    # -- sending --------------------------------------------------------------

    def send(self, conn: Peer, message: bytes, rev: int | None = None, epoch: int | None = None) -> None:
        """Queue one message for one connection, without waiting on it
        (``rev``, ``epoch``: the view it brings a remote connection to)."""
        conn.send([message], rev, epoch)

    def answer(self, reply: Reply) -> None:
        """A request's answer, alone (a repeated command's original ack)."""
        reply.peer.answer(reply.id, reply.data)

    def publish(self, host: TableHost, rendered: list[Rendered], reply: Reply | None = None) -> None:
        """Each rev's patches to every subscriber of each audience, in rev
        order, kept in the replay buffer for clients that resume.

        Every connection gets the revs of one publication in one write
        (several when a timed effect came due before a command): one system
        call, and on loopback one wake-up of the reader, where there were
        as many as revs. Nothing waits for a later rev: a publication is
        written when it is made.

        ``reply`` is the sender's ack: it goes first, and with the sender's
        own patches in the same write, so the sender still reads its ack
        before the patch its command caused."""
        sender: Peer | None = None
        remote: RemoteAck | None = None
        if reply is not None:
            peer = reply.peer
            key = peer.watching.key
            own = [reply.data]
            if peer in host.subs.get(key, ()):
                own += [m for _rev, messages in rendered if (m := messages.get(key)) is not None]
            remote = peer.acked(reply.id, own)
            if remote is None:
                sender = peer
        by_key: dict[str, list[bytes]] = {}
        for rev, messages in rendered:
            for key, message in messages.items():
                by_key.setdefault(key, []).append(message)
            host.replay.append(rev, messages)
        for key, patches in by_key.items():
            group = host.subs.get(key)
            if group:
                self._write_all(group, patches, skip=sender)
        if host.remote or remote is not None:
            self.relay.publish(host, rendered, remote)

    def snapshot(self, host: TableHost, conn: Peer) -> None:
        """The whole view of ``conn``'s audience at the current rev."""
        table = host.table
        view = table.watch(conn.watching)
        message = Snapshot(table=table.id, epoch=table.epoch, rev=table.rev, state=view)
        self.send(conn, encoder.encode(message), table.rev, table.epoch)

    def catch_up(self, host: TableHost, conn: Peer, resume: tuple[int, int] | None) -> bool:
        """Bring a new subscriber up to date: the patches it missed from the
        replay buffer when they are all there (True), else a snapshot."""
        table = host.table
        key = conn.watching.key
        if resume is not None and resume[0] == table.epoch and resume[1] <= table.rev:
            missed = host.replay.missed(key, resume[1], table.rev)
            if missed is not None:
                # They bring its view to the table's rev: a newcomer is
                # caught up under the table's lock, when every rev the
                # table is at has been published (connection.enter).
                conn.send(missed, table.rev, table.epoch)
                return True
        self.snapshot(host, conn)
        return False

    # -- this node's sockets (vigil.net.host.Sockets) ------------------------

    def write(self, conn: Conn, messages: list[bytes]) -> None:
        self._write_all((conn,), messages)

    async def reply(self, conn: Conn, data: bytes) -> None:
        with contextlib.suppress(ConnectionClosed):
            await conn.ws.send(data, text=True)
            metrics.REPLY_BYTES.inc(len(data))

    def end(self, conn: Conn, code: CloseCode, reason: str) -> None:
        self.ending.spawn(end(conn, code, reason))

    def _write_all(self, group: Iterable[Conn], messages: list[bytes], skip: Peer | None = None) -> None:
        """``messages`` to every connection of ``group`` but ``skip``, as
        text frames made once and written in one write per connection.

        A connection that is not open, or is in the middle of a fragmented
        message (which websockets' own ``broadcast`` skips too), or that
        negotiated an extension (frames made once would be wrong for it;
        Vigil serves without compression) is left to ``broadcast``, frame
        by frame; one past its backlog is skipped (``_may_send``)."""
        data = b""
        sent = 0
        for conn in group:
            if conn is skip or not self._may_send(conn):
                continue
            ws = conn.ws
            transport = ws.transport
            if (
                ws.protocol.state is not State.OPEN
                or ws.send_in_progress is not None
                or ws.protocol.extensions
                or transport is None
            ):
                for message in messages:
                    broadcast([ws], message, text=True)
                continue
            if not data:
                data = b"".join(map(text_frame, messages))
            transport.write(data)
            sent += 1
        if sent:
            metrics.FANOUT_BYTES.inc(sum(map(len, messages)) * sent)

    def _may_send(self, conn: Conn) -> bool:
        """Whether ``conn`` is sent to now: not while it is behind. Past the
        backlog a client gets a snapshot once it has read what it was sent
        (or is dropped), never a gap."""
        if conn.behind:
            return False
        transport = conn.ws.transport
        if transport is not None and transport.get_write_buffer_size() > self.config.backlog_bytes:
            conn.behind = True
            conn.behind_since = time.monotonic()
            metrics.BACKLOG_EXCEEDED.inc()
            self._probe(conn)
            return False
        return True

    # -- slow clients ---------------------------------------------------------

    def _probe(self, conn: Conn) -> None:
        task = asyncio.get_running_loop().create_task(self._still_reading(conn))
        self._probes.add(task)
        task.add_done_callback(self._probes.discard)

    async def _still_reading(self, conn: Conn) -> None:
        """Is a connection past its backlog still reading? A ping queued
        behind its backlog is answered only once the client has read all of
        it: a pong within ``stall_seconds`` of going past the backlog means
        it drained (it gets a snapshot); none means it stalled (dropped).
        The size of the write buffer cannot tell: the system's socket
        buffers take bytes (and grow) whether or not the client reads."""
        try:
            async with asyncio.timeout(self.config.stall_seconds):
                pong = await conn.ws.ping()
                await pong
        except TimeoutError:
            log.warning("dropping_stalled", table=conn.table, token=conn.token_id)
            metrics.BACKLOG_DROPS.inc()
            if conn.ws.transport is not None:
                conn.ws.transport.abort()
            return
        except ConnectionClosed:
            return
        conn.behind = False
        host = self._hosts.get(conn.table or "")
        if host is None and conn.ref and conn.table is not None:
            # Another node's table: its view is there; it resumes (1013).
            await conn.ws.close(CloseCode.TRY_AGAIN_LATER, "resync")
            return
        group = host.subs.get(conn.watching.key) if host else None
        if host is not None and group and conn in group:
            self.snapshot(host, conn)
