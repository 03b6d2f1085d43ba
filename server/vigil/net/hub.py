"""The tables in memory: loading, making and deleting them, and the
presence marks of their GMs. Who may connect (tokens) is
:mod:`~vigil.net.access`, who watches which table
:mod:`~vigil.net.watching`, reading their logs back
:mod:`~vigil.net.history_reads`; the hub composes them.

The hub holds the parts of the edge together: the commit groups
(:mod:`~vigil.net.committer`), fan-out (:mod:`~vigil.net.fanout`) and the
single writer (:mod:`~vigil.net.writer`), the one path by which a table
changes; timers (:mod:`~vigil.net.timers`) and presence
(:mod:`~vigil.net.presence`) wake it.

Every store call is awaited through :class:`~vigil.net.storage.Storage`,
which alone decides loop or thread; the store is called directly only at
the start, before the server listens (loading every table: nothing is
served yet that could wait), and to close it once nothing is served any
more.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Coroutine
from typing import Any

import structlog
from websockets.asyncio.server import Server

from vigil import auth
from vigil.changes import LogEntry, Requested
from vigil.config import Config
from vigil.net import presence, timers
from vigil.net.access import Access
from vigil.net.committer import Committer
from vigil.net.errors import Refused
from vigil.net.fanout import FanOut
from vigil.net.history_reads import HistoryReads
from vigil.net.host import Conn, TableHost
from vigil.net.placement import LocalPlacement, Placement
from vigil.net.replay import Replay
from vigil.net.storage import Storage
from vigil.net.tasks import Tasks
from vigil.net.watching import Watching
from vigil.net.writer import GivenUp, Writer
from vigil.rules.dice import SecureDice
from vigil.rules.games import GAMES
from vigil.store.base import Conflict, Store, TableRecord, Unavailable
from vigil.table import Table

log = structlog.get_logger("vigil")
# How many log entries one read of a table's recent past takes (at a load).
RECENT_PAGE = 1000


class Hub:
    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.hosts: dict[str, TableHost] = {}
        # Every store call of the edge, on the loop or in a thread.
        self.storage = Storage(store)
        self.committer = Committer(self.storage, config.snapshot_every)
        self.fanout = FanOut(config, self.hosts)
        self.writer = Writer(config, self.storage, self.committer, self.fanout, SecureDice())
        # Who may connect (tokens and keys), and the tables' logs read back.
        self.access = Access(config, store, self.storage, self.hosts)
        self.history = HistoryReads(store, self.storage)
        # Who watches which table: admitted, welcomed, brought up to date, gone.
        self.watching = Watching(config, self.fanout, self.writer, self._spawn, self._mark)
        # The demo table's tokens on a first start, for the printed banner.
        self.demo_tokens: dict[str, tuple[str, str]] = {}
        self._tasks = Tasks("hub")
        self._presence: asyncio.Task[None] | None = None
        # Listeners beside the public one, closed with it (the metrics': app).
        self.listeners: list[Server] = []
        # Where tables are served: every one here for a node alone; for a
        # node of a cluster (config.bus) those it owns, its part in the
        # cluster given by the composition root (vigil.net.app.make_hub),
        # which alone knows the cluster.
        self.placement: Placement = LocalPlacement(
            config.node, self._load_all, lambda record: self._spawn(self._reload(record))
        )
        self._adopting: set[str] = set()
        self.writer.on_give_up = self._given_up

    @property
    def closing(self) -> bool:
        return self.writer.closing

    # -- lifecycle ----------------------------------------------------------

    async def start(self) -> None:
        """Load every table and arm its timer (restart = recovery). It reads
        the store on the loop: the server listens only once it is done."""
        self.committer.start()
        self.access.start()
        self.fanout.start()
        # A node alone loads every table (_load_all); a node of a cluster
        # only what it takes (vigil.net.cluster).
        await self.placement.start()
        self._presence = asyncio.create_task(self._mark_presence())

    async def _load_all(self) -> None:
        """Load and serve every table of the store (a node alone's start)."""
        for record in self.store.tables():
            await self._serve(self._load(record), self.store.presence(record.id))

    async def _mark_presence(self) -> None:
        """Every ``presence_mark_seconds``, the tables a connected GM keeps
        running, marked durable (one transaction for all of them)."""
        while True:
            await asyncio.sleep(self.config.presence_mark_seconds)
            tables = presence.present((h.table, h.gm_count()) for h in self.hosts.values())
            if tables:
                await self._mark(tables)

    async def _mark(self, tables: list[str]) -> None:
        """Mark ``tables`` as having a GM present now. The store unreachable:
        logged, and marked at the next mark (a failover meanwhile finds the
        older mark, and pauses the clock where it stood then)."""
        try:
            await self.storage.quick(self.store.mark_presence, tables, time.time())
        except Exception as exc:
            log.warning("presence_mark_failed", tables=len(tables), error=str(exc))

    def _load(self, record: TableRecord) -> TableHost:
        loaded = self.store.load(record.id)
        table = Table(
            id=record.id,
            system=GAMES[record.system],
            epoch=record.epoch,
            rev=loaded.snapshot_rev + len(loaded.tail),
            doc=loaded.doc,
            undo_depth=self.config.undo_depth,
        )
        # What the undo stack would take back: from the log's tail, and the
        # store for revs older than the snapshot (at most undo_depth reads).
        stacked = set(loaded.doc.get("undo", []))
        entries = [e for e in loaded.tail if e.rev in stacked]
        for rev in sorted(stacked - {e.rev for e in entries}):
            if (entry := self.store.entry(record.id, record.epoch, rev)) is not None:
                entries.append(entry)
        table.recall_undo(entries)
        host = TableHost(table=table, record=record, replay=self._replay())
        host.tokens = {t.token_id: t for t in self.store.tokens(record.id)}
        host.since_snapshot = len(loaded.tail)
        for entry in reversed(self._recent(record, loaded.tail, host.applied.hold_seconds)):
            if entry.request is not None:
                host.applied.remember(entry.request, entry.rev, entry.result, entry.wall)
        host.applied.expire(time.time())
        return host

    def _recent(self, record: TableRecord, tail: list[LogEntry], seconds: float) -> list[Requested]:
        """The requests the table's epoch answered within the last
        ``seconds``, newest first: read from the snapshot's tail (already
        loaded) and then the store, page by page, back to the first older
        entry — what a client may still send again (vigil.net.applied)."""
        horizon = time.time() - seconds
        found = [Requested.of(e) for e in reversed(tail) if e.wall >= horizon]
        if len(found) < len(tail):
            return found
        before = tail[0].rev if tail else None
        while True:
            page = self.store.requests(record.id, record.epoch, before, RECENT_PAGE)
            found += [e for e in page if e.wall >= horizon]
            if len(page) < RECENT_PAGE or page[-1].wall < horizon:
                return found
            before = page[-1].rev

    async def adopt(self, table_id: str) -> None:
        """Serve a table this node has just taken (a node of a cluster): load
        it from the store and arm its timer, so that its due effects apply
        at their game times. If a GM was marked present lately (connected to
        the node that had it), its clock runs on; if no GM has come back to
        any node within two leases, it pauses then. Without a recent mark it
        pauses where it stood at the last one, as on a start."""
        if table_id in self.hosts or table_id in self._adopting:
            return
        self._adopting.add(table_id)
        try:
            record = await self.storage.slow(self.store.table, table_id)
            if record is None:
                self._forget(table_id)
                return
            host = await self.storage.slow(self._load, record)
            mark = await self.storage.slow(self.store.presence, table_id)
        except Unavailable as exc:
            # The store unreachable: given up, taken again by a later sweep.
            log.warning("adopt_failed", table=table_id, error=str(exc))
            self._forget(table_id)
            return
        except Exception:
            log.exception("adopt_failed", table=table_id)
            self._forget(table_id)
            return
        finally:
            self._adopting.discard(table_id)
        config = self.config
        recent = presence.runs_on(mark, time.time(), config.presence_mark_seconds, config.lease_seconds)
        if not await self._serve(host, mark, running_on=recent):
            self._spawn(self._pause_if_no_gm(host, 2 * self.config.lease_seconds))

    async def _serve(self, host: TableHost, mark: float | None, running_on: bool = False) -> bool:
        """Serve a loaded table and arm its timer. No GM is connected yet:
        unless ``running_on`` (a GM was present a moment ago, on the node
        that had it), a running clock stops where it stood at the last
        moment one was known present (the store's presence ``mark``), as
        on a start. Whether it was stopped so. A pause that cannot be
        committed gives the table up (GivenUp: a node of a cluster takes it
        again later); it never ends the caller's loop over other tables."""
        held = None if running_on else presence.held_since(host.table, mark)
        if held is None:
            self._host(host)
            return False
        self.hosts[host.record.id] = host
        with contextlib.suppress(GivenUp):
            await self.writer.hold(host, min(held, time.time()))
        return True

    async def _pause_if_no_gm(self, host: TableHost, after: float) -> None:
        await asyncio.sleep(after)
        if self.hosts.get(host.record.id) is host and presence.unattended(host.table, host.gm_count()):
            await self.writer.pause_without_gm(host)

    def _given_up(self, host: TableHost) -> None:
        """``host`` was given up (vigil.net.writer.GivenUp): forgotten here. A
        node of a cluster stops naming its fence, so its next sweep takes it
        again (reloaded from the store) unless another node has; a node
        alone reloads it at once."""
        host.given_up = True
        table_id = host.record.id
        if self.hosts.get(table_id) is host:
            del self.hosts[table_id]
        self.placement.given_up(host.record)

    def _forget(self, table_id: str) -> None:
        """A node of a cluster stops naming the table's fence: it owns it no
        more (until a sweep takes it again, if nobody else has)."""
        self.placement.forget(table_id)

    async def _reload(self, record: TableRecord) -> None:
        """Load a table again from the store (its truth after a commit whose
        outcome was unknown), retrying while the store is unreachable."""
        delay = 0.5
        while not self.closing:
            try:
                host = await self.storage.slow(self._load, record)
            except Exception as exc:
                if isinstance(exc, Unavailable):
                    log.warning("reload_failed", table=record.id, error=str(exc))
                else:
                    log.exception("reload_failed", table=record.id)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 10.0)
                continue
            self._host(host)
            return

    def remote_count(self) -> int:
        """Connections this node holds for other nodes' tables."""
        return self.placement.count()

    def _replay(self) -> Replay:
        return Replay(self.config.replay_buffer, self.config.replay_buffer_bytes)

    def _host(self, host: TableHost) -> None:
        self.hosts[host.record.id] = host
        timers.arm(host, self.writer.tick)

    async def stop(self) -> None:
        """Finish in-flight commands, pause the clocks that must not run
        without a GM (nobody dies between sessions: the downtime is not
        counted), then stop timers and the committer."""
        self.writer.closing = True
        if self._presence is not None:
            self._presence.cancel()
        self.placement.halt()  # no sweep takes a table while this node stops
        for host in list(self.hosts.values()):
            if not self.placement.hands_over:  # else its next node runs its clock on
                await self.writer.hold(host, None)
            async with host.lock:
                timers.disarm(host)
        self.fanout.stop()
        await self.committer.stop()
        await self.placement.stop()

    # -- tables -------------------------------------------------------------

    async def create_table(
        self,
        system: str,
        name: str,
        options: dict[str, Any],
        table_id: str | None,
        doc: dict[str, Any] | None = None,
    ) -> TableHost:
        """A new table (from ``doc``, an imported document, if given)."""
        table_id = table_id or secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        if table_id in self.hosts:
            raise Refused("table_exists", table=table_id)
        wall = time.time()
        depth = self.config.undo_depth
        if doc is None:
            table = Table.new(table_id, GAMES[system], name, options, wall, undo_depth=depth)
        else:
            table = Table(id=table_id, system=GAMES[system], epoch=1, rev=0, doc=doc, undo_depth=depth)
            table.ensure_period()
        record = TableRecord(id=table_id, system=system, name=name, key=auth.new_key(), epoch=1, created=wall)
        try:
            await self.storage.slow(self.store.create_table, record, table.doc)
        except Conflict:  # made by another node of the cluster
            raise Refused("table_exists", table=table_id) from None
        host = TableHost(table=table, record=record, replay=self._replay())
        self._host(host)
        return host

    def drop(self, host: TableHost) -> None:
        """Forget a deleted table (its deletion is durable)."""
        host.deleted = True
        timers.disarm(host)
        self.hosts.pop(host.record.id, None)
        self._forget(host.record.id)  # its lease is no longer renewed

    def unsubscribe(self, conn: Conn) -> None:
        if self.placement.remote(conn):
            self.placement.leave(conn)
            return
        host = self.hosts.get(conn.table or "")
        if host is not None and conn.audience is not None:
            self.watching.leave(host, conn)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on its own (kept referenced, a failure logged)."""
        self._tasks.spawn(work)
