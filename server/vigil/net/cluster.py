"""One node of a cluster: the tables it owns, and the connections it holds
for tables other nodes own.

**Ownership** (:mod:`~vigil.net.ownership`, over
:class:`~vigil.store.leases.Leases`): a node owns the tables
it holds a lease on in PostgreSQL, renews them every third of a lease, and
takes orphans (a dead node's, or never owned) up to its fair share; an
owner loads its tables from the store, runs their timers and is their
single writer. A node that loses a lease (it was paused or cut off past it)
learns so at its next renewal, and its fence stops every write it might
still try before that (vigil.store.postgres).

**Serving other nodes' tables**: any node takes any connection. A hello
for a table owned elsewhere is checked here (the token's signature, with
the table's key from the store) and *attached* to the owner over the bus
(vigil.net.bus): the owner checks it again (revocation, archiving, places:
its to know, and global), welcomes it and keeps it among the table's
connections as a :class:`~vigil.net.host.RemoteConn`, sending it its view's
snapshot or replay. Every edit's patches of the audiences other nodes
watch go out once per edit in a :class:`~vigil.net.cluster_wire.Bundle`,
each encoded once by the owner, and each node writes them to its sockets
of those audiences. A request is forwarded to the owner, which runs it as
its own connections' (the same code: vigil.net.connection) and answers;
the ack of a change travels in the bundle, before its patches. The
owner's side of this (letting other nodes' connections in, reaching them,
running their requests) is :mod:`~vigil.net.remote_peers`, the relay of a
node of a cluster; this module composes it with ownership and with the
following of other nodes' tables for this node's connections.

**When it goes wrong**, a connection is closed with 1013 ("try again
later") rather than left wrong: the client reconnects to any node, resumes
from its ``{epoch, rev}`` and sends its unanswered commands again with the
same ids (the owner answers a repeated id with its first ack: vigil.net.
writer). That covers a node that missed a bundle (pub/sub is at most once:
each owner's beacon says how far a table is), an owner that went away, a
table that moved. A forwarded request with no answer within
``forward_seconds`` is answered ``outcome_unknown`` — never "refused" for
something that may have been applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec
import structlog

from vigil import auth
from vigil.close_codes import CloseCode
from vigil.net import bus as busmod
from vigil.net import cluster_wire as wire
from vigil.net.errors import error_message
from vigil.net.follower import Action, Answered, CheckOwner, Close, Follower, Send
from vigil.net.forwarding import Forwarding
from vigil.net.host import Conn
from vigil.net.hub import Hub
from vigil.net.ownership import Ownership
from vigil.net.remote_peers import HELLO_STORE_SECONDS, RemotePeers
from vigil.net.tasks import Tasks
from vigil.protocol import Hello
from vigil.store.base import TableRecord, Unavailable
from vigil.store.leases import Leases
from vigil.store.postgres import PostgresStore

log = structlog.get_logger("vigil")

# How long a table's signing key read from the store is trusted for a
# hello on this node (a rotation closes the table's connections at once on
# every node; a hello in that window is checked again by the owner).
KEY_SECONDS = 5.0


class Cluster:
    # A node that stops hands its tables to the others, clocks running.
    hands_over = True

    def __init__(self, hub: Hub, store: PostgresStore) -> None:
        config = hub.config
        self.hub = hub
        self.node = config.node
        # The clock this node measures its leases, beacons and cached keys
        # by (monotonic seconds): a port, so that a test makes a lease stale
        # by moving the clock on, as a pause of the process would.
        self.clock: Callable[[], float] = time.monotonic
        self.leases = Leases(store, self.node, config.lease_seconds)
        self.bus = busmod.Bus(config.bus, self.node, self.receive)
        # The tables other nodes own that this node's connections watch,
        # each followed by its pure state machine (vigil.net.follower).
        self.followed: dict[str, Follower] = {}
        self.conns: dict[int, Conn] = {}  # this node's connections to other nodes' tables
        self._refs = itertools.count(1)
        self._keys: dict[str, tuple[str, float]] = {}
        # The work it runs on its own (a bus message handled, a close): a
        # test feeding it messages waits on them.
        self.tasks = Tasks("cluster")
        self._loops: list[asyncio.Task[None]] = []
        # The owner's side: other nodes' connections to this node's tables
        # (the relay the fan-out publishes through: vigil.net.app).
        self.peers = RemotePeers(hub, self.bus, store, self._spawn)
        # This node's requests forwarded to other nodes' tables, until answered.
        self.forwarding = Forwarding(self.node, self.bus, hub.fanout, config.forward_seconds)
        # The tables it owns: leases, sweeps, beacons.
        self.ownership = Ownership(hub, self.leases, self.bus, lambda: self.clock(), self._resync)

    # -- lifecycle ------------------------------------------------------------

    async def start(self) -> None:
        """Join: the bus first (a node that cannot reach it does not start),
        then a heartbeat and this node's share of the tables nobody owns."""
        await self.bus.start()
        await self.hub.storage.slow(self.leases.beat)
        await self.sweep()
        self._loops = [asyncio.create_task(self.ownership.run()), asyncio.create_task(self._watch())]

    def halt(self) -> None:
        """Stop renewing, sweeping and beaconing (the first step of a stop)."""
        for task in self._loops:
            task.cancel()

    async def stop(self) -> None:
        """Leave: the other nodes' connections to this node's tables are
        told to resume elsewhere, and every lease ends now (the others take
        the tables at once)."""
        self.halt()
        self.peers.close_all(CloseCode.TRY_AGAIN_LATER, "node stopping")
        with contextlib.suppress(Exception):
            await self.hub.storage.slow(self.leases.release)
        await self.bus.stop()

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        self.tasks.spawn(work)

    # -- ownership (vigil.net.ownership) ---------------------------------------

    async def sweep(self) -> None:
        """One round of ownership (:meth:`vigil.net.ownership.Ownership.sweep`)."""
        await self.ownership.sweep()

    def beacons(self) -> None:
        """This node's beacons (:meth:`vigil.net.ownership.Ownership.beacons`)."""
        self.ownership.beacons()

    async def claim(self, table_id: str) -> bool:
        """Take ``table_id`` now if nobody owns it (a hello found it orphaned)."""
        return await self.ownership.claim(table_id)

    def holding(self) -> bool:
        return self.ownership.holding()

    def forget(self, table_id: str) -> None:
        self.ownership.forget(table_id)

    def given_up(self, record: TableRecord) -> None:
        self.ownership.given_up(record)

    def _resync(self) -> None:
        """This node looked dead to the others (its renewal late by a
        lease): their sweeps let its connections go, and each resumes, to
        be attached again."""
        for table_id, follower in list(self.followed.items()):
            self._perform(table_id, follower, follower.resync())

    def serves(self, table_id: str) -> bool:
        return table_id in self.hub.hosts

    async def others(self) -> list[TableRecord]:
        records = await self.hub.storage.slow(self.leases.store.tables)
        return [r for r in records if r.id not in self.hub.hosts]

    def health(self) -> dict[str, Any]:
        return {
            "owned": len(self.hub.hosts),
            "node": self.node,
            "bus": self.bus.location,
            "bus_connected": self.bus.connected,
            "remote_connections": self.count(),
        }

    # -- this node's connections to other nodes' tables -----------------------

    async def key(self, table_id: str, fresh: bool = False) -> str | None:
        """The table's signing key (from the store, trusted for a few
        seconds unless ``fresh``)."""
        cached = self._keys.get(table_id)
        if not fresh and cached is not None and self.clock() - cached[1] < KEY_SECONDS:
            return cached[0]
        record = await self.hub.storage.slow(self.leases.store.table, table_id, HELLO_STORE_SECONDS)
        if record is None:
            return None
        self._keys[table_id] = (record.key, self.clock())
        return record.key

    async def _verify(self, table_id: str, token: str) -> auth.Claims:
        """The token's claims, its signature checked with the table's key —
        read again from the store if the cached one refuses it (the key may
        have been rotated since)."""
        for fresh in (False, True):
            key = await self.key(table_id, fresh)
            if key is None:
                raise auth.TokenError("bad_token")
            try:
                return auth.verify(key, token, time.time())
            except auth.TokenError as exc:
                if fresh or exc.code != "bad_token":
                    raise
        raise AssertionError("unreachable")

    async def hello(self, conn: Conn, msg: Hello, table_id: str) -> str | None:
        """A hello for a table this node does not own. Returns None once the
        connection is attached (its welcome comes from the owner), ``"local"``
        when this node took the table (an orphan) and the hello goes on as
        for any of its own, or the code it is refused with: the store not
        reachable within ``HELLO_STORE_SECONDS`` is ``store_unavailable``
        (closed 1013: the client tries again), never a failure of the
        handler."""
        try:
            return await self._hello(conn, msg, table_id)
        except Unavailable as exc:
            log.warning("hello_store_unavailable", table=table_id, error=str(exc))
            self.leave(conn)
            return "store_unavailable"

    async def _hello(self, conn: Conn, msg: Hello, table_id: str) -> str | None:
        try:
            claims = await self._verify(table_id, msg.token)
        except auth.TokenError as exc:
            return exc.code
        lease = await self.hub.storage.slow(self.leases.owner, table_id, HELLO_STORE_SECONDS)
        if lease is None or lease.node == self.node:
            if await self.claim(table_id):
                return "local"
            lease = await self.hub.storage.slow(self.leases.owner, table_id, HELLO_STORE_SECONDS)
            if lease is None or lease.node == self.node:
                # Nobody could take it: deleted since its key was read, or
                # its node is changing.
                return "bad_token" if await self.key(table_id, fresh=True) is None else "table_unavailable"
        conn.ref, conn.attached = next(self._refs), True
        conn.role, conn.token_id, conn.label, conn.expires = (
            claims.role,
            claims.token_id,
            claims.label,
            claims.expires,
        )
        conn.table = table_id
        former = self.followed.get(table_id)
        if former is not None and former.owner != lease:
            # The table moved (to another node, or to a new process of the
            # same name): this node's connections attached to its former
            # owner resume where it is now. Taking the new lease alone would
            # hide the move from them (beacons and checks compare with it),
            # attached to an owner that does not know them.
            log.info("table_owner_changed", table=table_id, owner=lease.node, fence=lease.fence)
            self._perform(table_id, former, former.owned_by(lease))
        # Among the table's connections before the subscription is awaited:
        # a last connection leaving meanwhile then does not unsubscribe the
        # channel (:meth:`_unsubscribe`), and every hello waits until Redis
        # has confirmed it, not only the first.
        now = self.clock()
        follower = self.followed.setdefault(table_id, Follower(owner=lease, heard=now))
        follower.join(conn.ref, lease, now + self.hub.config.forward_seconds)
        self.conns[conn.ref] = conn
        try:
            await self.bus.subscribe(busmod.table_channel(table_id))
            resume = None
            if msg.resume is not None and msg.resume.table == table_id:
                resume = (msg.resume.epoch, msg.resume.rev)
            attach = wire.Attach(
                t=table_id, node=self.node, ref=conn.ref, token=msg.token, resume=resume, session=msg.session
            )
            got = await self.bus.request(busmod.inbox(lease.node), wire.encoder.encode(attach))
        except (*busmod.BUS_ERRORS, TimeoutError):
            self.leave(conn)
            return "table_unavailable"
        if not got:
            self.leave(conn)
            return "table_unavailable"
        return None

    def waiting(self) -> int:
        """What this node keeps for the requests it forwarded
        (:meth:`vigil.net.forwarding.Forwarding.waiting`)."""
        return self.forwarding.waiting()

    def remote(self, conn: Conn) -> bool:
        """Whether ``conn`` is attached to another node's table."""
        return conn.ref in self.conns

    async def forward(self, conn: Conn, msg_id: str, frame: bytes, table_id: str | None = None) -> None:
        """Send ``conn``'s request to its table's owner (found here: the
        table's follower, or for an operator's request its lease) and wait
        for its answer (vigil.net.forwarding)."""
        hub = self.hub
        operator = None
        if table_id is None:
            follower = self.followed.get(conn.table or "")
            if follower is None:
                return
            owner, table_id = follower.owner[0], conn.table or ""
        else:  # an operator's command for a table owned elsewhere
            operator = conn.token_id
            if not conn.ref:
                conn.ref = next(self._refs)
            try:
                found = await self.hub.storage.slow(self.leases.owner, table_id, HELLO_STORE_SECONDS)
                exists = found is not None or await self.key(table_id, fresh=True) is not None
            except Unavailable:
                hub.fanout.send(conn, error_message("store_unavailable", {}, msg_id))
                return
            if found is None:
                # Nobody serves it now (it is moving), or there is no such table.
                code, params = ("table_unavailable", {}) if exists else ("unknown_table", {"table": table_id})
                hub.fanout.send(conn, error_message(code, params, msg_id))
                return
            owner = found.node
        await self.forwarding.send(
            conn, owner, table_id, msg_id, frame, operator, lambda: self._unowned(table_id, conn)
        )

    def _unowned(self, table_id: str, conn: Conn) -> None:
        """Nobody listens where ``table_id`` was served (its owner is gone):
        every connection to it resumes elsewhere."""
        follower = self.followed.get(table_id)
        if follower is not None:
            self._perform(table_id, follower, follower.owned_by(None))
        else:
            self._resume_elsewhere([conn])

    def leave(self, conn: Conn) -> None:
        """``conn`` closed (or was refused): its owner forgets it."""
        self.conns.pop(conn.ref, None)
        follower = self.followed.get(conn.table or "")
        if follower is None or not follower.leave(conn.ref):
            return
        detach = wire.Detach(t=conn.table or "", node=self.node, ref=conn.ref)
        self.bus.publish(busmod.inbox(follower.owner[0]), wire.encoder.encode(detach))
        if follower.empty:
            del self.followed[conn.table or ""]
            self._spawn(self._unsubscribe(conn.table or ""))

    async def _unsubscribe(self, table_id: str) -> None:
        """No connection of this node watches ``table_id``: its channel is
        left, unless a hello for it came since (it found the channel
        subscribed, and sent nothing)."""
        if table_id not in self.followed:
            await self.bus.unsubscribe(busmod.table_channel(table_id))

    def _shut(self, conn: Conn, code: CloseCode, reason: str) -> None:
        """Close ``conn``; its client reconnects and resumes (1013)."""
        self.leave(conn)
        conn.close(code, reason)

    def _resume_elsewhere(self, conns: list[Conn]) -> None:
        """The table of ``conns`` moved: each resumes where it is now."""
        for conn in conns:
            self._shut(conn, CloseCode.TRY_AGAIN_LATER, "table moved")

    def count(self) -> int:
        return len(self.conns)

    async def _watch(self) -> None:
        """Every beacon period: this node's beacons; the other nodes' tables
        gone quiet past a lease checked for a new (or no) owner; attaches
        never answered given up."""
        period = self.hub.config.beacon_seconds
        quiet = max(self.leases.ttl, 3 * period)
        while True:
            await asyncio.sleep(period)
            self.beacons()
            now = self.clock()
            for table_id, follower in list(self.followed.items()):
                self._perform(table_id, follower, follower.tick(now, quiet))

    async def _check_owner(self, table_id: str, follower: Follower) -> None:
        """A table gone quiet: its lease read again; a new one (another node,
        or the same name under a new fence) sends its connections there. The
        store unreachable: asked again when it has been quiet once more."""
        try:
            lease = await self.hub.storage.slow(self.leases.owner, table_id)
        except Unavailable as exc:
            log.warning("owner_check_failed", table=table_id, error=str(exc))
            return
        if lease != follower.owner:
            log.info("table_owner_changed", table=table_id, owner=lease and lease.node)
        self._perform(table_id, follower, follower.owned_by(lease))

    # -- the bus --------------------------------------------------------------

    def receive(self, channel: bytes, data: bytes) -> None:
        """What the bus hands this node, from ``channel``."""
        try:
            m = wire.decoder.decode(data)
        except msgspec.DecodeError:
            log.warning("bus_bad_message", channel=channel.decode(errors="replace"))
            return
        match m:
            case wire.Attach() | wire.Detach() | wire.Forward():
                self.peers.receive(m)
            case wire.Bundle():
                self._bundle(m)
            case wire.Beacon():
                self._beacon(m)
            case _:
                self._to_conn(m)

    def _to_conn(self, m: wire.Message) -> None:
        """A message for one of this node's connections."""
        assert isinstance(m, wire.Attached | wire.Deliver | wire.Answer | wire.Shut)
        conn = self.conns.get(m.ref)
        follower = self.followed.get(m.t)
        if conn is None or follower is None:
            operator = self.forwarding.operator(m.ref)
            if operator is not None and isinstance(m, wire.Answer | wire.Shut):
                self._to_operator(operator, m)
            return
        now = self.clock()
        match m:
            case wire.Attached():
                actions = follower.attached(m.ref, m.key, now)
            case wire.Deliver():
                actions = follower.deliver(m.ref, m.msgs, m.rev, m.epoch, now)
            case wire.Answer():
                actions = follower.answer(m.ref, m.id, m.data, now)
            case wire.Shut():
                actions = follower.shut(m.ref, m.code, m.reason, m.data, now)
        self._perform(m.t, follower, actions)

    def _perform(self, table_id: str, follower: Follower, actions: list[Action]) -> None:
        """Do what the follower of ``table_id`` answered, in order."""
        for action in actions:
            match action:
                case Send(ref, data):
                    if (conn := self.conns.get(ref)) is not None:
                        self.hub.fanout.send(conn, data)
                case Answered(ref, msg_id):
                    self.forwarding.answered(ref, msg_id)
                case Close(ref, code, reason):
                    if (conn := self.conns.get(ref)) is not None:
                        self._shut(conn, CloseCode(code), reason)
                case CheckOwner():
                    self._spawn(self._check_owner(table_id, follower))

    def _to_operator(self, conn: Conn, m: wire.Answer | wire.Shut) -> None:
        """The owner's answer to an operator's request it was forwarded, or
        its refusal to take it (the table moved: not done, the client sends
        it again once reconnected)."""
        if isinstance(m, wire.Answer):
            self.hub.fanout.send(conn, m.data)
            self.forwarding.answered(m.ref, m.id)
            return
        if m.data:
            self.hub.fanout.send(conn, m.data)
        self._shut(conn, CloseCode(m.code), m.reason)

    def _bundle(self, m: wire.Bundle) -> None:
        follower = self.followed.get(m.t)
        if follower is not None:
            actions = follower.bundle(self.node, m.epoch, m.revs, m.acks, self.clock())
            self._perform(m.t, follower, actions)

    def _beacon(self, m: wire.Beacon) -> None:
        follower = self.followed.get(m.t)
        if follower is None:
            return
        if (m.owner, m.fence) != follower.owner:
            # Another node owns it now, or a new process of the same name
            # (a restart under its own id: the fence says so): every
            # connection resumes there.
            log.info("table_owner_changed", table=m.t, owner=m.owner, fence=m.fence)
        self._perform(m.t, follower, follower.beacon((m.owner, m.fence), m.epoch, m.rev, self.clock()))
