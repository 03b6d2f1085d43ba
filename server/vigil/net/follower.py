"""Following a table another node owns: this node's connections attached to
it, and what each message about it means for them — as pure code.

A :class:`Follower` is fed what the bus brings about its table (the owner's
``Attached``, ``Deliver``, ``Answer`` and ``Shut`` for one connection, the
table's ``Bundle`` and ``Beacon``), this node's hellos and leavings, and
the passing of time (``now``, given: it reads no clock), and answers with
:data:`Action` values: write these bytes to that connection, wake the
request waiting for this answer, close that connection (1013: it resumes
where the table is), read the table's owner again. It never awaits and
touches no socket, Redis or store; the cluster's driver
(vigil.net.cluster) feeds it and performs what it answers, in order.

Its rules, each a defect found once in the interleavings of a real bus
(pub/sub at most once, messages of one owner in order):

- a connection's view has a rev and an epoch, from its snapshot or replay
  (a ``Deliver`` naming them) and then each bundle: a bundle that skips a
  rev, or is of another epoch, means one was lost, and the connection
  resumes rather than show a view with a hole; one it has already seen is
  skipped;
- a beacon says how far the table is: a connection behind it missed a
  bundle; a beacon of another owner (a node, or the same name under a new
  fence — a restart) means the table moved, and every connection resumes;
- an attach is done once both its audience (``Attached``) and a first view
  came; either may be lost, so each has a deadline, past which it resumes;
- a table nobody has heard of for ``quiet`` seconds has its owner read
  again (the driver answers with :meth:`Follower.owned_by`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vigil.close_codes import CloseCode

# Who owns a table: its lease's node and fence (vigil.store.leases.Lease is
# one). The fence tells a new owner even when the name does not.
Owner = tuple[str, int]
# The patches of each rev of a bundle, by audience key.
Revs = list[tuple[int, dict[str, bytes]]]
# The acks of a bundle: the node and connection of each sender, the message
# answered, the ack.
Acks = list[tuple[str, int, str, bytes]]


@dataclass(frozen=True)
class Send:
    """Write ``data`` to this node's connection ``ref``."""

    ref: int
    data: bytes


@dataclass(frozen=True)
class Answered:
    """The request ``id`` of connection ``ref`` has its answer."""

    ref: int
    id: str


@dataclass(frozen=True)
class Close:
    """Close connection ``ref`` (it leaves the table at once); its client
    reconnects and resumes, 1013, unless the owner refused it."""

    ref: int
    code: int
    reason: str


@dataclass(frozen=True)
class CheckOwner:
    """Read the table's owner again (it has gone quiet)."""


Action = Send | Answered | Close | CheckOwner


def resume(ref: int, reason: str) -> Close:
    return Close(ref, int(CloseCode.TRY_AGAIN_LATER), reason)


@dataclass(eq=False)
class Follower:
    """This node's connections to one table another node owns, under the
    lease ``owner``."""

    owner: Owner
    # When anything was last heard of the table (the driver's clock).
    heard: float
    # The connections attached (their refs: this node's numbers, increasing).
    refs: set[int] = field(default_factory=set)
    # Per connection: the audience it is sent, and the rev and epoch its
    # view is at (from its snapshot or replay, then each bundle).
    keys: dict[int, str] = field(default_factory=dict)
    seen: dict[int, tuple[int, int]] = field(default_factory=dict)
    # Attaches not done yet, with their deadlines: done once both the
    # audience (Attached) and a first view (a Deliver with its rev) came;
    # either may be lost on the bus, and a connection without them would
    # wait for ever (no bundle or beacon concerns a connection without a
    # view).
    attaching: dict[int, float] = field(default_factory=dict)

    # -- this node's connections ------------------------------------------

    def owned_by(self, owner: Owner | None, reason: str = "table moved") -> list[Action]:
        """The table's owner as just read (a hello's, a check's): another
        one than the connections are attached to (or none) sends each of
        them there."""
        if owner == self.owner:
            return []
        return [resume(ref, reason) for ref in sorted(self.refs)]

    def join(self, ref: int, owner: Owner, deadline: float) -> None:
        """Connection ``ref`` attaches to ``owner``'s table: done by
        ``deadline`` or resumed. A former owner's connections must have
        been sent away first (:meth:`owned_by`)."""
        self.owner = owner
        self.refs.add(ref)
        self.attaching[ref] = deadline

    def leave(self, ref: int) -> bool:
        """Connection ``ref`` is gone; whether it was attached here."""
        if ref not in self.refs:
            return False
        self.refs.discard(ref)
        self.keys.pop(ref, None)
        self.seen.pop(ref, None)
        self.attaching.pop(ref, None)
        return True

    @property
    def empty(self) -> bool:
        return not self.refs

    def resync(self) -> list[Action]:
        """Every connection resumes (this node was silent past a lease: the
        owner may have let them go)."""
        return [resume(ref, "resync") for ref in sorted(self.refs)]

    # -- the owner's messages for one connection ---------------------------

    def attached(self, ref: int, key: str, now: float) -> list[Action]:
        """The owner let ``ref`` in, to the audience ``key``."""
        self.heard = now
        self.keys[ref] = key
        return []

    def deliver(
        self, ref: int, msgs: list[bytes], rev: int | None, epoch: int | None, now: float
    ) -> list[Action]:
        """Messages for ``ref``; with ``rev`` and ``epoch``, they bring its
        view there (a snapshot or a replay)."""
        self.heard = now
        actions: list[Action] = [Send(ref, m) for m in msgs]
        if rev is not None and epoch is not None:
            self.seen[ref] = (epoch, rev)
            if ref in self.keys:
                self.attaching.pop(ref, None)
        return actions

    def answer(self, ref: int, msg_id: str, data: bytes, now: float) -> list[Action]:
        self.heard = now
        return [Send(ref, data), Answered(ref, msg_id)]

    def shut(self, ref: int, code: int, reason: str, data: bytes, now: float) -> list[Action]:
        """The owner closes ``ref`` (refused, or the table moved)."""
        self.heard = now
        return [*([Send(ref, data)] if data else []), Close(ref, code, reason)]

    # -- the table's channel ------------------------------------------------

    def bundle(self, node: str, epoch: int, revs: Revs, acks: Acks, now: float) -> list[Action]:
        """One edit's acks (this node's ``node``'s senders') then its
        patches, to each connection by its audience — or a resume to one
        that missed a rev."""
        self.heard = now
        actions: list[Action] = []
        for sender, ref, msg_id, ack in acks:  # acks before the patches they caused
            if sender == node and ref in self.refs:
                actions += [Send(ref, ack), Answered(ref, msg_id)]
        for ref, (seen_epoch, rev) in list(self.seen.items()):
            key = self.keys.get(ref)
            for next_rev, messages in revs:
                if next_rev <= rev and epoch == seen_epoch:
                    continue
                if epoch != seen_epoch or next_rev != rev + 1:
                    actions.append(resume(ref, "resync"))  # missed one: resume
                    break
                message = messages.get(key or "")
                if message is not None:
                    actions.append(Send(ref, message))
                rev = next_rev
            else:
                self.seen[ref] = (seen_epoch, rev)
        return actions

    def beacon(self, owner: Owner, epoch: int, rev: int, now: float) -> list[Action]:
        """The owner says how far the table is: a connection behind it
        missed a bundle; another owner means it moved."""
        self.heard = now
        if owner != self.owner:
            # Another node owns it now, or a new process of the same name
            # (a restart under its own id: the fence says so).
            return self.owned_by(owner)
        return [
            resume(ref, "resync")
            for ref, (seen_epoch, seen_rev) in list(self.seen.items())
            if seen_epoch != epoch or seen_rev < rev
        ]

    # -- time ---------------------------------------------------------------

    def tick(self, now: float, quiet: float) -> list[Action]:
        """A beacon period passed: attaches past their deadline resume; a
        table heard of by nobody for ``quiet`` seconds has its owner read
        again (once per ``quiet``)."""
        actions: list[Action] = [
            resume(ref, "no answer")
            for ref, deadline in list(self.attaching.items())
            if now > deadline and ref in self.refs
        ]
        if now - self.heard > quiet:
            self.heard = now
            actions.append(CheckOwner())
        return actions
