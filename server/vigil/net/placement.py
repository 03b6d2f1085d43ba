"""Where tables are served, as the rest of the edge sees it: the port the
hub, the connections and the commands ask, and its implementation for a
node alone (:class:`LocalPlacement`). A node of a cluster has its part in
the cluster instead (vigil.net.cluster), which sits above them and imports
them; they never import it.

No code asks whether a cluster exists: it asks the placement whether this
node serves a table, what becomes of one it gave up, which tables others
serve, and the node alone answers "every one", "reload it", "none".
Colyseus keeps the same seam (a ``Room`` depends on ``Presence``; one
process gets ``LocalPresence``, chosen once at the start)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from vigil.net.host import Conn
from vigil.protocol import Hello
from vigil.store.base import TableRecord


class Placement(Protocol):
    node: str
    # Whether another node takes this node's tables over when it stops,
    # their clocks running on there; if not, a stop pauses the clocks that
    # must not run without a GM (nobody dies during the downtime).
    hands_over: bool

    async def start(self) -> None:
        """Join: take this node's share of the tables."""

    def halt(self) -> None:
        """Stop taking, renewing and announcing tables (a stop's first step)."""

    async def stop(self) -> None:
        """Leave: every table this node owns is released at once."""

    def serves(self, table_id: str) -> bool:
        """Whether this node serves ``table_id`` (else another node may)."""

    def holding(self) -> bool:
        """Whether this node's tables are surely still its own."""

    def forget(self, table_id: str) -> None:
        """This node no longer owns ``table_id`` (given up, or deleted)."""

    def given_up(self, record: TableRecord) -> None:
        """``record``'s table was given up here (fenced off, or its truth in
        doubt) and forgotten by the hub: what becomes of it now."""

    async def others(self) -> list[TableRecord]:
        """The tables of the store this node does not serve."""

    def count(self) -> int:
        """Connections this node holds for other nodes' tables."""

    def remote(self, conn: Conn) -> bool:
        """Whether ``conn`` is attached to another node's table."""

    def leave(self, conn: Conn) -> None:
        """``conn``, attached to another node's table, closed."""

    async def hello(self, conn: Conn, msg: Hello, table_id: str) -> str | None:
        """A hello for a table this node does not serve: None once attached,
        ``"local"`` if this node took the table, else the refusal's code."""

    async def forward(self, conn: Conn, msg_id: str, frame: bytes, table_id: str | None = None) -> None:
        """Send ``conn``'s request to its table's owner; its answer follows."""

    def health(self) -> dict[str, Any]:
        """What /healthz says of this node's part in serving tables."""


class LocalPlacement:
    """A node alone: it loads and serves every table of its store, holds no
    connection for anyone else, and reloads at once a table it gave up (its
    truth after a commit whose outcome was unknown is the store's)."""

    hands_over = False

    def __init__(
        self,
        node: str,
        load_all: Callable[[], Awaitable[None]],
        reload: Callable[[TableRecord], None],
    ) -> None:
        self.node = node
        self._load_all = load_all
        self._reload = reload

    async def start(self) -> None:
        await self._load_all()

    def halt(self) -> None:
        """Nothing runs on its own here."""

    async def stop(self) -> None:
        """Nothing to release: no lease, no bus."""

    def serves(self, table_id: str) -> bool:
        return True

    def holding(self) -> bool:
        return True

    def forget(self, table_id: str) -> None:
        """No lease to stop renewing."""

    def given_up(self, record: TableRecord) -> None:
        self._reload(record)

    async def others(self) -> list[TableRecord]:
        return []

    def count(self) -> int:
        return 0

    def remote(self, conn: Conn) -> bool:
        return False

    def leave(self, conn: Conn) -> None:
        """No connection is attached elsewhere."""

    async def hello(self, conn: Conn, msg: Hello, table_id: str) -> str | None:
        return "local"

    async def forward(self, conn: Conn, msg_id: str, frame: bytes, table_id: str | None = None) -> None:
        # Unreachable: every table is served here (serves), so nothing is
        # ever forwarded; a bug that got here fails loudly (closed 1011).
        raise AssertionError("a node alone forwards nothing")

    def health(self) -> dict[str, Any]:
        return {}
