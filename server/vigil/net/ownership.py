"""Which tables this node owns (:class:`~vigil.store.leases.Leases`): it
holds a lease on each in PostgreSQL, renews them every third of a lease,
and takes orphans (a dead node's, or never owned) up to its fair share; an
owner loads its tables from the store (the hub's adopt), runs their timers
and is their single writer. A node that loses a lease (it was paused or
cut off past it) learns so at its next renewal, and its fence stops every
write it might still try before that (vigil.store.postgres). Each owned
table that other nodes watch is announced by a beacon: how far it is.

Its own service beside the cluster node (vigil.net.cluster), which
composes it with the following of other nodes' tables and the owner's side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import structlog

from vigil.net import bus as busmod
from vigil.net import cluster_wire as wire
from vigil.net.hub import Hub
from vigil.store.base import TableRecord, Unavailable
from vigil.store.leases import Leases

log = structlog.get_logger("vigil")


class Ownership:
    """This node's leases and what it does with them. ``clock``: the
    cluster node's clock (read each time: a test moves it on);
    ``resync``: after a renewal late by a lease, this node's connections
    to other nodes' tables resume, to be attached again."""

    def __init__(
        self,
        hub: Hub,
        leases: Leases,
        bus: busmod.Bus,
        clock: Callable[[], float],
        resync: Callable[[], None],
    ) -> None:
        self.hub = hub
        self.node = leases.node
        self.leases = leases
        self.bus = bus
        self.clock = clock
        self._resync = resync
        # Taking tables (a sweep's orphans, a hello's claim) one at a time:
        # a lease of this node's own can be taken again, so two takes of one
        # table at once would both succeed and load it twice, the second copy
        # replacing the first in the hub while commands still commit through
        # the first (the second then conflicts with the log forever).
        self._taking = asyncio.Lock()
        # The tables this node took lately, until when each is announced by
        # beacons even if no other node's connection is attached: another
        # node may still hold connections attached to its former owner (a
        # process of the same name, restarted), which only the beacon's new
        # fence tells to resume here.
        self._announce: dict[str, float] = {}
        # When the last renewal that succeeded began (its leases run from then).
        self._renewed = clock()

    async def run(self) -> None:
        """Every third of a lease: renew, give up what was lost, forget the
        connections of dead nodes, take a share of the orphans."""
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            try:
                await self.sweep()
            except Exception as exc:  # the database unreachable: the fences keep it safe
                if isinstance(exc, Unavailable):  # an outage, said in one line
                    log.warning("lease_sweep_failed", error=str(exc))
                else:
                    log.exception("lease_sweep_failed")
                if self.clock() - self._renewed > self.leases.ttl:
                    # Its leases may have run out by now: another node may own
                    # its tables, so it serves none of them (stale views).
                    for host in list(self.hub.hosts.values()):
                        self.hub.writer.give_up(host, "lease_unknown")

    async def sweep(self) -> None:
        """One round of ownership (see :meth:`run`)."""
        began = self.clock()
        lost = await self.hub.storage.slow(self.leases.renew)
        if began - self._renewed > self.leases.ttl:
            # No heartbeat for a lease (paused, cut off): to the other nodes
            # this one looked dead, and their sweeps let its connections go
            # (below). Each resumes, to be attached again.
            self._resync()
        self._renewed = began
        for table_id in lost:
            host = self.hub.hosts.get(table_id)
            if host is not None:
                log.warning("table_lost", table=table_id)
                self.hub.writer.give_up(host, "table_moved")
        live = await self.hub.storage.slow(self.leases.live_nodes)
        live.add(self.node)
        for host in list(self.hub.hosts.values()):
            for peer in [p for p in host.remote.values() if p.node not in live]:
                self.hub.watching.leave(host, peer)
        share = await self.hub.storage.slow(self.leases.share)
        async with self._taking:
            want = share - len(self.hub.hosts)
            if want > 0:
                orphans = await self.hub.storage.slow(self.leases.orphans, want)
                taken = await self.hub.storage.slow(self.leases.take, orphans)
                for table_id in taken:
                    await self._adopt(table_id)

    def holding(self) -> bool:
        """Whether this node's leases are surely still its own: its last
        renewal began less than a lease ago (by this node's clock, which
        only measures the interval)."""
        return self.clock() - self._renewed < self.leases.ttl

    async def claim(self, table_id: str) -> bool:
        """Take ``table_id`` now if nobody owns it (a hello found it orphaned)."""
        async with self._taking:
            if table_id in self.hub.hosts:  # taken meanwhile by this node
                return True
            taken = await self.hub.storage.slow(self.leases.take, [table_id])
            if table_id not in taken:
                return False
            await self._adopt(table_id)
            return table_id in self.hub.hosts

    async def _adopt(self, table_id: str) -> None:
        """Serve a table just taken, and announce it for a lease (beacons)."""
        await self.hub.adopt(table_id)
        self._announce[table_id] = self.clock() + self.leases.ttl

    def beacons(self) -> None:
        """Each owned table that other nodes watch: how far it is — as far
        as its patches were published (the newest rev of its replay buffer,
        of the epoch its record names: both change only once an edit is
        durable and sent; with nothing published since the table was
        loaded or its epoch began, its rev when no edit is under way), never
        the rev of an edit under way, whose bundle comes once its commit is
        done: a beacon of that rev would make every other node think it
        missed a bundle and close its connections of the table. None while
        this node's leases are in doubt (it was paused or cut off): another
        node may own its tables by now, and a beacon naming this one would
        send the connections attached there elsewhere again."""
        if not self.holding():
            return
        now = self.clock()
        for table_id, until in list(self._announce.items()):
            if until < now:
                del self._announce[table_id]
        for host in self.hub.hosts.values():
            fence = self.leases.store.fences.get(host.table.id)
            if fence is not None and (host.remote or host.table.id in self._announce):
                table = host.table
                rev = host.replay.head
                if rev is None:
                    if host.lock.locked():
                        continue  # the first edit since the load is under way
                    rev = table.rev
                beacon = wire.Beacon(
                    t=table.id, epoch=host.record.epoch, rev=rev, owner=self.node, fence=fence
                )
                self.bus.publish(busmod.table_channel(table.id), wire.encoder.encode(beacon))

    def forget(self, table_id: str) -> None:
        self.leases.forget(table_id)

    def given_up(self, record: TableRecord) -> None:
        """Its fence no longer named: the next sweep takes it again
        (reloaded from the store) unless another node has."""
        self.forget(record.id)
