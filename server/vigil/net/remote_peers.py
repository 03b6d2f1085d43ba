"""The owner's side of a cluster: the connections other nodes hold for the
tables this node owns. Each is let in (``Attach``: checked again here,
welcomed, kept among its table's connections as a
:class:`~vigil.net.host.RemoteConn`), let go (``Detach``), sent its
messages, answers and close over the bus, and its requests (``Forward``)
are run as this node's own connections' are (vigil.net.connection).

It is the relay (:class:`~vigil.net.relay.Relay`) of a node of a cluster:
the fan-out publishes each edit's patches of the audiences other nodes
watch through it. Split from the cluster node (vigil.net.cluster), which
hands it the bus's messages for it and composes it with ownership and the
following of other nodes' tables.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from vigil.close_codes import CloseCode
from vigil.net import bus as busmod
from vigil.net import cluster_wire as wire
from vigil.net import connection
from vigil.net.errors import error_message
from vigil.net.host import RemoteAck, RemoteConn, Rendered, TableHost
from vigil.net.hub import Hub
from vigil.store.base import Unavailable
from vigil.store.postgres import PostgresStore

# How long a hello waits on the store (the table's key, its owner, its
# record) before it is refused 1013, "try again shortly": a client waits on
# it, so not the background's patience (a PostgreSQL outage must not hold
# hellos for 20 s). The cluster node's hellos wait as long.
HELLO_STORE_SECONDS = 2.0


class RemotePeers:
    """The connections other nodes hold for this node's tables, reached
    over ``bus``; ``spawn`` runs the work of a message on its own (the
    cluster's tasks, which a test waits on)."""

    def __init__(
        self,
        hub: Hub,
        bus: busmod.Bus,
        store: PostgresStore,
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.hub = hub
        self.bus = bus
        self.store = store
        self._spawn = spawn
        # Other nodes' connections being let in (their Attach is a task of
        # its own), and whether their Detach came meanwhile: the Detach is
        # read at once, and would otherwise find nothing to remove and leave
        # the connection among the table's for good once it is in.
        self._entering: dict[tuple[str, int], bool] = {}

    def receive(self, m: wire.Attach | wire.Detach | wire.Forward) -> None:
        """A message of another node about one of its connections here."""
        match m:
            case wire.Attach():
                self._entering[m.node, m.ref] = False
                self._spawn(self._attach(m))
            case wire.Detach():
                self._detach(m)
            case wire.Forward():
                self._spawn(self._forward(m))

    def close_all(self, code: CloseCode, reason: str) -> None:
        """Every other node's connection to this node's tables closed (this
        node stops): each resumes elsewhere."""
        for host in self.hub.hosts.values():
            for peer in list(host.remote.values()):
                self.close(peer, code, reason)

    # -- the relay: reaching other nodes' connections (FanOut.relay) ----------

    def _to(self, node: str, message: wire.Wire) -> None:
        self.bus.publish(busmod.inbox(node), wire.encoder.encode(message))

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        self._to(
            peer.node, wire.Deliver(t=peer.table or "", ref=peer.ref, msgs=messages, rev=rev, epoch=epoch)
        )

    def answer(self, peer: RemoteConn, id: str, data: bytes) -> None:
        self._to(peer.node, wire.Answer(t=peer.table or "", ref=peer.ref, id=id, data=data))

    def publish(self, host: TableHost, rendered: list[Rendered], ack: RemoteAck | None) -> None:
        keys = host.remote_keys
        revs = [(rev, {k: m for k, m in messages.items() if k in keys}) for rev, messages in rendered]
        acks = [] if ack is None else [(ack.node, ack.ref, ack.id, ack.data)]
        bundle = wire.Bundle(t=host.table.id, epoch=host.table.epoch, revs=revs, acks=acks)
        self.bus.publish(busmod.table_channel(host.table.id), wire.encoder.encode(bundle))

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        self._to(peer.node, wire.Shut(t=peer.table or "", ref=peer.ref, code=int(code), reason=reason))

    # -- requests from other nodes --------------------------------------------

    async def _attach(self, m: wire.Attach) -> None:
        try:
            joined = await self._let_in(m)
        finally:
            detached = self._entering.pop((m.node, m.ref), False)
        if joined is not None and detached:
            self.hub.watching.leave(*joined)  # its node let it go while it was let in

    async def _let_in(self, m: wire.Attach) -> tuple[TableHost, RemoteConn] | None:
        """Take the connection ``m`` names among its table's (None: refused)."""
        host = self.hub.hosts.get(m.t)
        if host is None:
            try:
                record = await self.hub.storage.slow(self.store.table, m.t, HELLO_STORE_SECONDS)
            except Unavailable:
                unavailable = error_message("store_unavailable", {}, None)
                shut = wire.Shut(
                    t=m.t,
                    ref=m.ref,
                    code=int(CloseCode.TRY_AGAIN_LATER),
                    reason="store_unavailable",
                    data=unavailable,
                )
                self._to(m.node, shut)
                return None
            if record is None:
                # Deleted (the other node checked the token with a key it
                # read before): refused as a node alone refuses it.
                refused = wire.Shut(
                    t=m.t,
                    ref=m.ref,
                    code=int(CloseCode.REFUSED),
                    reason="bad_token",
                    data=error_message("bad_token", {}, None),
                )
                self._to(m.node, refused)
                return None
            self._moved_away(m.node, m.t, m.ref)
            return None
        peer = RemoteConn(node=m.node, ref=m.ref, link=self)
        refusal = await connection.enter(
            self.hub, peer, m.token, m.resume, m.session, lambda: self._attached(peer)
        )
        if refusal is not None:
            close, code, data = refusal
            self._to(m.node, wire.Shut(t=m.t, ref=m.ref, code=int(close), reason=code, data=data))
            return None
        joined = self.hub.hosts.get(peer.table or "")
        return None if joined is None else (joined, peer)

    def _moved_away(self, node: str, table_id: str, ref: int) -> None:
        """Tell ``node`` this one does not serve ``table_id`` (any more): its
        connection ``ref`` resumes where the table is now (1013)."""
        shut = wire.Shut(t=table_id, ref=ref, code=int(CloseCode.TRY_AGAIN_LATER), reason="table moved")
        self._to(node, shut)

    def _attached(self, peer: RemoteConn) -> None:
        """The owner took ``peer``: its node learns its audience before its welcome."""
        self._to(peer.node, wire.Attached(t=peer.table or "", ref=peer.ref, key=peer.watching.key))

    def _detach(self, m: wire.Detach) -> None:
        if (m.node, m.ref) in self._entering:
            self._entering[m.node, m.ref] = True
        host = self.hub.hosts.get(m.t)
        peer = host.remote.get((m.node, m.ref)) if host is not None else None
        if host is not None and peer is not None:
            self.hub.watching.leave(host, peer)

    async def _forward(self, m: wire.Forward) -> None:
        """Run a request another node forwarded for one of its connections
        (or for its operator's connection)."""
        host = self.hub.hosts.get(m.t)
        peer: RemoteConn | None
        if m.operator is not None:
            peer = RemoteConn(
                node=m.node, ref=m.ref, link=self, role="operator", token_id=m.operator, label="operator"
            )
        else:
            peer = host.remote.get((m.node, m.ref)) if host is not None else None
        if host is None or peer is None:
            # Not this node's (any more): nothing was done; the connection
            # resumes where the table is now and sends it again.
            self._moved_away(m.node, m.t, m.ref)
            return
        await connection.dispatch(self.hub, peer, m.frame)
