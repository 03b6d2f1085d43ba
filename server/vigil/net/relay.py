"""How a table's owner reaches the connections other nodes hold for it:
the port the fan-out and the writer send through, and its implementation
for a node alone (:class:`LocalRelay`, to no one). A node of a cluster
relays over the bus (vigil.net.cluster)."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from vigil.close_codes import CloseCode
from vigil.net.host import Peer, RemoteConn, Rendered, TableHost


class Reply(NamedTuple):
    """A command's answer to its sender: the message ``id`` answered, and
    the encoded answer."""

    peer: Peer
    id: str
    data: bytes


class Relay(Protocol):
    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        """Messages to one remote connection, in order (``rev``/``epoch``:
        they bring its view to that rev: a snapshot, or a replay)."""

    def answer(self, reply: Reply) -> None:
        """A request's answer to a remote connection."""

    def publish(self, host: TableHost, rendered: list[Rendered], reply: Reply | None) -> None:
        """The patches of the audiences other nodes watch, and the sender's
        ack if the sender is remote, in one message to those nodes."""

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        """Have the remote connection's node close it."""


class LocalRelay:
    """A node alone: no other node holds a connection, so nothing is ever
    relayed (no :class:`~vigil.net.host.RemoteConn` exists to be sent to)."""

    def send(self, peer: RemoteConn, messages: list[bytes], rev: int | None, epoch: int | None) -> None:
        pass

    def answer(self, reply: Reply) -> None:
        pass

    def publish(self, host: TableHost, rendered: list[Rendered], reply: Reply | None) -> None:
        pass

    def close(self, peer: RemoteConn, code: CloseCode, reason: str) -> None:
        pass
