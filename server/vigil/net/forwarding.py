"""The requests this node's connections sent to another node's table, each
forwarded to its owner over the bus and waited on until its answer comes
(written to the socket as it arrives, in order with the patches it
caused). No answer within ``forward_seconds`` is ``outcome_unknown`` —
never "refused" for something that may have been applied.

Its own service beside the cluster node (vigil.net.cluster), which finds
each request's owner and hands it here, so that the requests waiting and
the operator connections waiting on them are kept, and let go, in one
place across the awaits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from vigil.net import bus as busmod
from vigil.net import cluster_wire as wire
from vigil.net import metrics
from vigil.net.errors import error_message
from vigil.net.fanout import FanOut
from vigil.net.host import Conn


class Forwarding:
    """The forwarded requests not answered yet, by connection ``ref`` and
    message id, and the operator connections waiting on one (an operator's
    connection is attached to no table: its answers find it here)."""

    def __init__(self, node: str, bus: busmod.Bus, fanout: FanOut, seconds: float) -> None:
        self.node = node
        self.bus = bus
        self.fanout = fanout
        self.seconds = seconds
        self._waiting: dict[tuple[int, str], asyncio.Future[None]] = {}
        self._operators: dict[int, Conn] = {}

    def waiting(self) -> int:
        """What is kept for the requests forwarded: each one not answered
        yet, and each operator connection waiting on one (none once every
        request is answered or refused)."""
        return len(self._waiting) + len(self._operators)

    def operator(self, ref: int) -> Conn | None:
        """The operator connection ``ref`` waiting on an answer, if any."""
        return self._operators.get(ref)

    def answered(self, ref: int, msg_id: str) -> None:
        """The answer to request ``msg_id`` of connection ``ref`` was written."""
        waiter = self._waiting.get((ref, msg_id))
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def send(
        self,
        conn: Conn,
        owner: str,
        table_id: str,
        msg_id: str,
        frame: bytes,
        operator: str | None,
        unowned: Callable[[], None],
    ) -> None:
        """Forward ``conn``'s request (``frame``) for ``table_id`` to node
        ``owner`` and wait for its answer; ``operator``: the operator's
        token id, for an operator's request. Nobody listening there (the
        owner is gone) is ``unowned``: certainly not done, the connections
        resume elsewhere."""
        if operator is not None:
            self._operators[conn.ref] = conn  # until its last request is answered (below)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[(conn.ref, msg_id)] = waiter
        request = wire.Forward(t=table_id, node=self.node, ref=conn.ref, frame=frame, operator=operator)
        try:
            try:
                got = await self.bus.request(busmod.inbox(owner), wire.encoder.encode(request))
            except busmod.NotSent:
                # Certainly not forwarded: the client knows nothing was done.
                metrics.FORWARDED.labels("not_sent").inc()
                self.fanout.send(conn, error_message("bus_unavailable", {}, msg_id))
                return
            except busmod.BUS_ERRORS:
                metrics.FORWARDED.labels("unknown").inc()
                self.fanout.send(conn, error_message("outcome_unknown", {}, msg_id))
                return
            if not got:
                # Nobody listens there (the owner is gone): certainly not
                # done. Every connection to that table resumes elsewhere (the
                # client sends it again once reconnected).
                metrics.FORWARDED.labels("unowned").inc()
                unowned()
                return
            try:
                await asyncio.wait_for(waiter, self.seconds)
                metrics.FORWARDED.labels("answered").inc()
            except TimeoutError:
                metrics.FORWARDED.labels("unknown").inc()
                self.fanout.send(conn, error_message("outcome_unknown", {}, msg_id))
        finally:
            self._waiting.pop((conn.ref, msg_id), None)
            if operator is not None and not any(ref == conn.ref for ref, _ in self._waiting):
                self._operators.pop(conn.ref, None)
