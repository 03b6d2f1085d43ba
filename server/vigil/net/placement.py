"""Where tables are served, as the rest of the edge sees it: this node's
part in a cluster (vigil.net.cluster), an interface so that the hub, the
connections and the commands never import the cluster — it sits above
them, and imports them. A node alone has none (``Hub.cluster`` is None).

Colyseus keeps the same seam (a ``Room`` depends on ``Presence``; one
process gets a local implementation chosen once at the start)."""

from __future__ import annotations

from typing import Any, Protocol

from vigil.net.host import Conn
from vigil.protocol import Hello


class Placement(Protocol):
    node: str

    async def start(self) -> None:
        """Join: take this node's share of the tables."""

    def halt(self) -> None:
        """Stop taking, renewing and announcing tables (a stop's first step)."""

    async def stop(self) -> None:
        """Leave: every table this node owns is released at once."""

    def holding(self) -> bool:
        """Whether this node's tables are surely still its own."""

    def forget(self, table_id: str) -> None:
        """This node no longer owns ``table_id`` (given up, or deleted)."""

    def count(self) -> int:
        """Connections this node holds for other nodes' tables."""

    def remote(self, conn: Conn) -> bool:
        """Whether ``conn`` is attached to another node's table."""

    def leave(self, conn: Conn) -> None:
        """``conn``, attached to another node's table, closed."""

    async def hello(self, conn: Conn, msg: Hello, table_id: str) -> str | None:
        """A hello for a table this node does not own: None once attached,
        ``"local"`` if this node took the table, else the refusal's code."""

    async def forward(self, conn: Conn, msg_id: str, frame: bytes, table_id: str | None = None) -> None:
        """Send ``conn``'s request to its table's owner; its answer follows."""

    def health(self) -> dict[str, Any]:
        """What /healthz says of this node's part in the cluster."""
