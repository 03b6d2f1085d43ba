"""Ownership of tables by the nodes of a cluster, as leases in PostgreSQL.

Each table is owned by one node at a time: the ``owners`` row names the
node, a lease expiry (PostgreSQL's own clock, so that the nodes' clocks
never have to agree) and a fencing number. A node renews its leases well
before they expire; a node that stops renewing (dead, paused, cut off)
loses them once they expire, and the next node that takes a table
increments its fence. Every write of the PostgreSQL store names the
writer's fence (:mod:`vigil.store.postgres`), so a node that lost a table
can never write for it again, even if it wakes up believing it still owns
it: the lease decides who *should* write, the fence guarantees that nobody
else *can*.

The ``nodes`` rows are heartbeats, renewed with the leases: a node is live
while its heartbeat is younger than a lease. The live nodes share the
tables (:meth:`Leases.orphans` takes at most a fair share), and a connection
a node holds for another's table counts only while that node is live.

Everything here is synchronous and blocks on the network: it is called
from worker threads (:mod:`vigil.net.ownership`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import psycopg

from vigil.store.postgres import PostgresStore

# A table without a live lease: no owners row, or one past its expiry.
_ORPHANS = (
    "SELECT t.id FROM tables t LEFT JOIN owners o ON o.table_id = t.id "
    "WHERE o.table_id IS NULL OR o.expires < now() OR o.node = %s AND NOT o.table_id = ANY(%s) "
    "ORDER BY t.created, t.id LIMIT %s"
)
# Take the tables named whose lease is free (expired, or this node's own
# from before a restart with the same node id), incrementing the fence: two
# nodes racing for one row are ordered by its lock, and the second finds
# the lease live and takes nothing.
_TAKE = (
    "INSERT INTO owners (table_id, node, fence, expires) "
    "SELECT t, %(node)s, 1, now() + make_interval(secs => %(ttl)s) FROM unnest(%(tables)s::text[]) AS t "
    "WHERE EXISTS (SELECT 1 FROM tables WHERE id = t) "
    "ON CONFLICT (table_id) DO UPDATE SET node = excluded.node, fence = owners.fence + 1, "
    "expires = excluded.expires WHERE owners.expires < now() OR owners.node = excluded.node "
    "RETURNING table_id, fence"
)
_RENEW = (
    "UPDATE owners o SET expires = now() + make_interval(secs => %s) "
    "FROM unnest(%s::text[], %s::bigint[]) AS k(table_id, fence) "
    "WHERE o.table_id = k.table_id AND o.fence = k.fence AND o.node = %s RETURNING o.table_id"
)
_BEAT = (
    "INSERT INTO nodes VALUES (%s, now(), %s) ON CONFLICT (node) DO UPDATE SET seen = now(), "
    "started = excluded.started"
)


class Lease(NamedTuple):
    """Who owns a table: the node's name, and the lease's fencing number."""

    node: str
    fence: int


class Leases:
    """The leases of one node, ``node``, held ``ttl`` seconds at a time;
    the fences of what it owns live in the store (``store.fences``), which
    names them in every write."""

    def __init__(self, store: PostgresStore, node: str, ttl: float) -> None:
        self.store = store
        self.node = node
        self.ttl = ttl
        self.started = time.time()
        store.node, store.lease_seconds, store.fencing = node, ttl, True

    def beat(self) -> None:
        """This node is live (for :meth:`live_nodes`)."""
        self.store._run(lambda conn: conn.execute(_BEAT, (self.node, self.started)))

    def orphans(self, limit: int) -> list[str]:
        """Up to ``limit`` tables nobody holds a live lease on (oldest first),
        including this node's own from before a restart."""
        owned = list(self.store.fences)
        rows = self.store._run(lambda conn: conn.execute(_ORPHANS, (self.node, owned, limit)).fetchall())
        return [str(r[0]) for r in rows]

    def take(self, tables: Sequence[str]) -> dict[str, int]:
        """Take those of ``tables`` whose lease is free; their fences (also
        kept in the store from now on)."""
        tables = [t for t in tables if t not in self.store.fences]  # not what it holds already
        if not tables:
            return {}
        rows = self.store._run(
            lambda conn: conn.execute(
                _TAKE, {"node": self.node, "ttl": self.ttl, "tables": list(tables)}
            ).fetchall()
        )
        taken = {str(r[0]): int(r[1]) for r in rows}
        self.store.fences.update(taken)
        return taken

    def renew(self) -> set[str]:
        """Renew every lease this node holds, and its heartbeat; the tables
        it has lost (taken by another node since: their fences are gone
        from the store, so nothing of them is written any more)."""
        held = dict(self.store.fences)

        def work(conn: psycopg.Connection[Any]) -> set[str]:
            conn.execute(_BEAT, (self.node, self.started))
            if not held:
                return set()
            rows = conn.execute(_RENEW, (self.ttl, list(held), list(held.values()), self.node)).fetchall()
            return {str(r[0]) for r in rows}

        kept = self.store._run(work)
        lost = set(held) - kept
        for table in lost:
            if self.store.fences.get(table) == held[table]:
                del self.store.fences[table]
        return lost

    def forget(self, table: str) -> None:
        """Stop naming ``table``'s fence (deleted, or given up)."""
        self.store.fences.pop(table, None)

    def release(self) -> None:
        """A clean stop: every lease of this node ends now, so that the
        other nodes take its tables at once instead of after a lease."""
        self.store.fences.clear()

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                conn.execute(
                    "UPDATE owners SET expires = now() - interval '1 second' WHERE node = %s", (self.node,)
                )
                conn.execute("DELETE FROM nodes WHERE node = %s", (self.node,))

        self.store._run(work)

    def owner(self, table: str, patience: float | None = None) -> Lease | None:
        """The live lease on ``table``, if any: its node, and its fence —
        which changes at every take, also when the node that takes the table
        has the same name as the one before (restarted under its own id)."""
        row = self.store._run(
            lambda conn: conn.execute(
                "SELECT node, fence FROM owners WHERE table_id = %s AND expires > now()", (table,)
            ).fetchone(),
            patience,
        )
        return None if row is None else Lease(str(row[0]), int(row[1]))

    def live_nodes(self) -> set[str]:
        rows = self.store._run(
            lambda conn: conn.execute(
                "SELECT node FROM nodes WHERE seen > now() - make_interval(secs => %s)", (self.ttl,)
            ).fetchall()
        )
        return {str(r[0]) for r in rows}

    def share(self) -> int:
        """How many tables a live node should own: all of them over the
        live nodes, rounded up (this one counted even before its first
        heartbeat)."""
        row = self.store._run(lambda conn: conn.execute("SELECT count(*) FROM tables").fetchone())
        total = int(row[0]) if row else 0
        nodes = len(self.live_nodes() | {self.node})
        return -(-total // nodes)
