"""How a table's owner reaches the connections other nodes hold for it:
the port the fan-out and the writer send through, and its implementation
for a node alone (:class:`LocalRelay`, to no one). A node of a cluster
relays over the bus (vigil.net.cluster)."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from vigil.close_codes import CloseCode
from vigil.net.host import Link, Peer, RemoteAck, RemoteConn, Rendered, TableHost


class Reply(NamedTuple):
    """A command's answer to its sender: the message ``id`` answered, and
    the encoded answer."""

    peer: Peer
    id: str
    data: bytes


class Relay(Link, Protocol):
    """A :class:`~vigil.net.host.Link` to each remote connection, and the
    publication of a table's patches to every node that watches it."""

    def publish(self, host: TableHost, rendered: list[Rendered], ack: RemoteAck | None) -> None:
        """The patches of the audiences other nodes watch, and the sender's
        ack if the sender is remote, in one message to those nodes."""


class LocalRelay:
    """A node alone: no other node holds a connection, so nothing is ever
    relayed (no :class:`~vigil.net.host.RemoteConn` exists to be sent to)."""

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        pass

    def answer(self, peer: RemoteConn, id: str, data: bytes) -> None:
        pass

    def publish(self, host: TableHost, rendered: list[Rendered], ack: RemoteAck | None) -> None:
        pass

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        pass
