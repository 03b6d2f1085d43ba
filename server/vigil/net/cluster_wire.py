"""What the nodes of a cluster say to each other over the bus: one tagged
union of msgspec Structs, in MessagePack. Clients never see these; what
they get inside them (``msgs``, ``data``) is already encoded, once, by the
table's owner, exactly as a client of the owner itself gets it.

To a table's owner (its node's inbox): :class:`Attach`, :class:`Detach`,
:class:`Forward`. To the node holding a connection (its inbox):
:class:`Attached`, :class:`Deliver`, :class:`Answer`, :class:`Shut`. On a
table's channel, to every node with a connection to it: :class:`Bundle`
and :class:`Beacon`.
"""

from __future__ import annotations

import msgspec


class Wire(msgspec.Struct, tag_field="k", array_like=True, forbid_unknown_fields=True):
    """Base of every bus message; ``t`` is always the table."""


class Attach(Wire, tag="a"):
    """Node ``node`` has a connection ``ref`` for the table that said hello
    with ``token`` (checked again by the owner: revocation and archiving are
    its to know), resuming from ``resume`` (epoch, rev) if given."""

    t: str
    node: str
    ref: int
    token: str
    resume: tuple[int, int] | None
    session: str = ""


class Detach(Wire, tag="d"):
    t: str
    node: str
    ref: int


class Forward(Wire, tag="f"):
    """A request (the client's frame as it came) of connection ``ref``; an
    operator's, which is attached to no table, names its token's identity."""

    t: str
    node: str
    ref: int
    frame: bytes
    operator: str | None = None


class Attached(Wire, tag="A"):
    """The owner took connection ``ref``: it is sent the view of audience
    ``key`` (what follows is its welcome, then its snapshot or replay)."""

    t: str
    ref: int
    key: str


class Deliver(Wire, tag="D"):
    """Messages for connection ``ref``, in order; ``rev``/``epoch`` when they
    bring its view there (a snapshot, a replay)."""

    t: str
    ref: int
    msgs: list[bytes]
    rev: int | None = None
    epoch: int | None = None


class Answer(Wire, tag="R"):
    """The answer ``data`` to request ``id`` of connection ``ref``."""

    t: str
    ref: int
    id: str
    data: bytes


class Shut(Wire, tag="S"):
    """Close connection ``ref`` with ``code`` and ``reason``, after sending
    ``data`` (an error answer) if any."""

    t: str
    ref: int
    code: int
    reason: str
    data: bytes = b""


class Bundle(Wire, tag="B"):
    """What the owner sent for one edit: the patches of the audiences other
    nodes watch, rev by rev, and the acks of remote senders (node, ref,
    message id, ack), which go out before the patches."""

    t: str
    epoch: int
    revs: list[tuple[int, dict[str, bytes]]]
    acks: list[tuple[str, int, str, bytes]]


class Beacon(Wire, tag="b"):
    """The owner ``owner`` (under the lease's ``fence``) is at ``rev`` of
    ``epoch``: a node whose connection is behind missed a bundle (pub/sub
    is at most once); one attached under another lease (a new owner, or a
    restarted process of the same name) must attach again."""

    t: str
    epoch: int
    rev: int
    owner: str
    fence: int


Message = Attach | Detach | Forward | Attached | Deliver | Answer | Shut | Bundle | Beacon

encoder = msgspec.msgpack.Encoder()
decoder = msgspec.msgpack.Decoder(Message)
