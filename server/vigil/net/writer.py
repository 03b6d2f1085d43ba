"""The single writer: the one path by which a table changes.

Every change of a table is an :class:`Edit` run by the writer — a command,
an undo, the clock's due effects (:meth:`Writer.tick`), an automatic pause
or resume, and the administrative ones (a new epoch, a new key, a revoked
token, archiving, deleting). The path takes each through the same stages,
in the same order:

1. the table's lock: one writer per table, changes in order;
2. the changes of the table document, pure (due effects first, as their own
   change, then the edit's own), kept in memory at once so that the next
   sees them, each rendered into its per-audience patches;
3. durability: the log entries through the commit group, then any write
   beyond the log; if anything fails, the table and its views go back to
   where they were and nothing is sent;
4. what the edit keeps in memory beside the table, and the snapshots a new
   epoch needs;
5. the sender's ack, then the patches to every audience (so a sender sees
   its ack before the patch its command caused), then the timer re-armed;
6. the connections the edit ends leave the table at once and are closed
   on their own (:meth:`~vigil.net.host.Peer.close`): a closing handshake waits on the client, and
   neither the sender's next command nor anyone else's may wait on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from vigil.changes import Change, LogEntry
from vigil.close_codes import CloseCode
from vigil.config import Config
from vigil.net import metrics, presence, timers
from vigil.net.committer import Committer
from vigil.net.errors import Refused
from vigil.net.fanout import FanOut, encode
from vigil.net.host import Peer, Rendered, TableHost
from vigil.net.relay import Reply
from vigil.net.storage import Storage
from vigil.rules.dice import DiceSource
from vigil.rules.game import Actor, Ctx
from vigil.rules.outcome import RuleError
from vigil.store.base import Conflict, Fenced, Store
from vigil.table import Mark, Table

log = structlog.get_logger("vigil")

Make = Callable[[Table, float, Ctx], Change]
# The sender's ack of a command applied at a rev with a result.
Acker = Callable[[int, Any], Reply]


class GivenUp(Exception):
    """The table is not served here any more: nothing was applied here, the
    table's connections are closed so that they reconnect and resume where
    it is served now, and the sender's client sends its command again with
    the same id. No answer is sent: it is neither refused nor done. Raised
    as such for a table given up before (:attr:`TableHost.given_up`); as
    one of the three kinds below by the commit that gives it up."""


class TableMoved(GivenUp):
    """Another node took the table over: this node's commit was fenced off."""


class Conflicted(GivenUp):
    """The store holds another entry at this rev: this node's copy of the
    table is behind the store's truth (it is loaded again)."""


class OutcomeUnknown(GivenUp):
    """The store failed during the commit: it may or may not have been
    committed (the table is loaded again from the store's truth)."""


# What a failed commit means, by what the store raised (anything else: the
# outcome is unknown), and the reason it is logged and counted under.
_GIVEN_UP: tuple[tuple[type[Exception], type[GivenUp], str], ...] = (
    (Fenced, TableMoved, "table_moved"),
    (Conflict, Conflicted, "conflict"),
)


@dataclass(frozen=True)
class Closing:
    """Connections an edit ends once it is durable: those ``which`` picks,
    with this WebSocket close code and reason."""

    code: CloseCode
    reason: str
    which: Callable[[Peer], bool]


@dataclass
class Edit:
    """What one request (or the clock) asks of a table, stage by stage."""

    actor: Actor = field(default_factory=Actor)
    # The change of the table document (pure; may raise RuleError).
    make: Make | None = None
    # Apply the effects due by now first, as a change of their own.
    advance: bool = True
    # Start a new epoch: the history is emptied, every client gets a snapshot.
    new_epoch: bool = False
    # A durable write beyond the log (run in a thread, after the log entries).
    write: Callable[[Store], object] | None = None
    # What to keep in memory beside the table once all of it is durable.
    keep: Callable[[], None] | None = None
    close: Closing | None = None
    # The request this edit answers (token id and message id): a command
    # sent again with the same id is answered with its first ack.
    request: str | None = None


@dataclass
class Staged:
    """An edit's changes in memory (stage 2), not yet durable: each change
    kept, its audiences' patches, their log entries, and the wall time
    they were made at."""

    wall: float
    kept: list[Change] = field(default_factory=list)
    rendered: list[Rendered] = field(default_factory=list)
    entries: list[LogEntry] = field(default_factory=list)


class Writer:
    def __init__(
        self, config: Config, storage: Storage, committer: Committer, fanout: FanOut, dice: DiceSource
    ) -> None:
        self.config = config
        self.storage = storage
        self.committer = committer
        self.fanout = fanout
        self.dice = dice
        self.closing = False
        # What becomes of a table given up (set by the hub: forget it, and
        # reload it or leave it to the cluster).
        self.on_give_up: Callable[[TableHost], None] = lambda host: None
        # Read once: the logging is configured before the server starts.
        self._debug = log.is_enabled_for(logging.DEBUG)

    def ctx(self, actor: Actor) -> Ctx:
        return Ctx(dice=self.dice, actor=actor, max_effects=self.config.max_effects_per_advance)

    async def run(self, host: TableHost, edit: Edit, ack: Acker | None = None) -> None:
        """Apply ``edit`` under the table's lock (see the module's stages);
        ``ack`` gets the edit's own change once it is durable."""
        if self.closing:
            raise Refused("shutting_down")
        async with host.lock:
            ending = await self._apply(host, edit, ack)
        if edit.close is not None:
            for conn in ending:
                self.close(host, conn, edit.close.code, edit.close.reason)

    def close(self, host: TableHost, conn: Peer, code: CloseCode, reason: str) -> None:
        """``conn`` leaves ``host`` at once (no more patches for it) and is
        closed on its own, by its node."""
        host.leave(conn, time.monotonic())
        conn.close(code, reason)

    async def tick(self, host: TableHost) -> None:
        """A timer fired: apply every effect due by now, with nobody asking
        (a table that moved meanwhile is its new owner's to wake)."""
        async with host.lock:
            try:
                await self._apply(host, Edit(), None)
            except (GivenUp, Refused):  # given up or deleted meanwhile: not this node's to wake
                return
            except RuleError as exc:
                # Catching up would exceed the work bound: stop the clock
                # where it is instead of retrying forever; the GM decides.
                log.error("advance_refused", table=host.table.id, code=exc.code)
                with contextlib.suppress(GivenUp):
                    await self._apply(host, Edit(make=timers.halt(exc), advance=False), None)

    async def pause_without_gm(self, host: TableHost) -> None:
        """The last GM left: pause a running clock (the anchor keeps why)."""
        with contextlib.suppress(RuleError, Refused, GivenUp):
            await self.run(host, Edit(make=presence.auto_pause))

    async def resume_with_gm(self, host: TableHost) -> None:
        """A GM is back: run the clock that was paused for want of one."""
        with contextlib.suppress(RuleError, Refused, GivenUp):
            await self.run(host, Edit(make=presence.auto_resume))

    async def hold(self, host: TableHost, at: float | None) -> None:
        """Pause a running clock for want of a GM, as it stood at wall time
        ``at`` (None: now), under the table's lock — at a start (before any
        timer, without applying what fell due since ``at``) and at a clean
        stop (when new commands are refused already)."""
        async with host.lock:
            if not presence.holds(host.table):
                return
            edit = (
                Edit(make=presence.auto_pause)
                if at is None
                else Edit(make=presence.pause_at(at), advance=False)
            )
            try:
                await self._apply(host, edit, None)
            except RuleError as exc:  # catching up past the work bound
                log.error("advance_refused", table=host.table.id, code=exc.code)
                await self._apply(host, Edit(make=timers.halt(exc), advance=False), None)

    async def _apply(self, host: TableHost, edit: Edit, ack: Acker | None) -> list[Peer]:
        """The stages of one edit, in the module's order (each a method of
        its own; tests/unit/test_writer_stages.py records the order); the
        caller holds the table's lock (stage 1). Returns the connections the
        edit ends (the caller closes them: stage 6)."""
        if self._answered(host, edit, ack):
            return []
        host.forget_idle(time.monotonic())  # before the mark: a failure does not bring them back
        table = host.table
        mark = table.mark()
        try:
            staged = self._change(host, edit)  # 2: in memory, rendered
            await self._durable(host, staged.entries, edit)  # 3: nothing sent before it
        except BaseException:
            table.restore(mark)
            raise
        self._keep(host, edit)  # 4: only what is durable is kept
        return self._publish(host, edit, staged, ack, mark)  # 5: ack, patches, timer

    def _answered(self, host: TableHost, edit: Edit, ack: Acker | None) -> bool:
        """Whether the edit is not to be applied: its table deleted
        (refused) or given up (GivenUp), or its request applied already (its
        first ack sent again, True)."""
        if host.deleted:
            raise Refused("unknown_table", table=host.table.id)
        if host.given_up:
            raise GivenUp()
        if edit.request is not None and ack is not None and (done := host.applied.get(edit.request)):
            self.fanout.answer(ack(*done))  # sent again: its first ack, nothing applied
            return True
        return False

    def _change(self, host: TableHost, edit: Edit) -> Staged:
        """Stage 2: the due effects first, as their own change, then the
        edit's own, each kept in memory at once (the next sees it) and
        rendered into its audiences' patches; then the log entries."""
        table = host.table
        staged = Staged(wall=time.time())
        due = table.advance(staged.wall, self.ctx(Actor())) if edit.advance else None
        if due is not None:
            staged.rendered.append(encode(table, table.commit(due)))
            staged.kept.append(due)
        if edit.make is not None:
            change = edit.make(table, staged.wall, self.ctx(edit.actor))
            staged.rendered.append(encode(table, table.commit(change)))
            staged.kept.append(change)
        if edit.new_epoch:
            table.new_epoch()
        staged.entries = self._entries(table, staged.kept, edit.request)
        return staged

    def _keep(self, host: TableHost, edit: Edit) -> None:
        """Stage 4: what the edit keeps beside the table, and a new epoch's
        snapshots (every client's view starts again)."""
        if edit.keep is not None:
            edit.keep()
        if edit.new_epoch:
            host.record.epoch = host.table.epoch
            host.replay.clear()
            for conn in list(host.conns()):
                self.fanout.snapshot(host, conn)

    def _publish(
        self, host: TableHost, edit: Edit, staged: Staged, ack: Acker | None, mark: Mark
    ) -> list[Peer]:
        """Stage 5: the request remembered, the sender's ack with the
        patches (the ack first), the players whose characters changed
        moved to their new views (after this rev's patches), the snapshot
        count, the timer re-armed. Returns who the edit ends."""
        table = host.table
        kept = staged.kept
        ending = [c for c in host.conns() if edit.close.which(c)] if edit.close is not None else []
        reply = ack(kept[-1].rev, kept[-1].result) if ack is not None and edit.make is not None else None
        if (
            edit.request is not None
            and edit.make is not None
            and host.applied.remember(edit.request, kept[-1].rev, kept[-1].result, staged.wall)
        ):
            metrics.FORGOTTEN_EARLY.inc()
        self._log(staged.entries)
        self.fanout.publish(host, staged.rendered, reply)
        if table.doc["meta"] is not mark.doc["meta"]:
            # Characters came or went: players' connections follow what
            # their tokens control now (after this rev's patches, so that
            # the snapshot of a new view comes after them).
            for conn in host.rebind(time.monotonic()):
                if conn.rebinds_in_place:
                    self.fanout.snapshot(host, conn)
                else:
                    self.close(host, conn, CloseCode.TRY_AGAIN_LATER, "characters changed")
        if staged.entries:
            self.committer.committed(host, len(staged.entries))
        if host.deleted or self.closing:
            timers.disarm(host)
        else:
            timers.arm(host, self.tick)
        return ending

    async def _durable(self, host: TableHost, entries: list[LogEntry], edit: Edit) -> None:
        """Stage 3: the log entries, then the write beyond the log. A store
        that fenced this node off means the table is another's now; one that
        holds something else at this rev (Conflict) means this node's copy
        is behind the store; any other failure of the store leaves the
        outcome unknown (it may have been committed). Each way nothing is
        sent and the table is given up (a :class:`GivenUp`): its connections
        resume where the store's truth is served (this node reloads it, or
        another node owns it)."""
        try:
            if entries:
                await self.committer.commit(entries)
            if edit.write is not None:
                await self.storage.slow(edit.write, self.storage.store)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            kind, reason = next(
                ((kind, reason) for raised, kind, reason in _GIVEN_UP if isinstance(exc, raised)),
                (OutcomeUnknown, "outcome_unknown"),
            )
            log.error(reason, table=host.table.id, error=str(exc))
            self.give_up(host, reason)
            raise kind() from exc

    def _entries(self, table: Table, changes: list[Change], request: str | None) -> list[LogEntry]:
        """The log entries of ``changes``; the last (the edit's own) names
        the request it answers, with its result, for a table loaded again
        (another node's, after a failover) to answer it again."""
        wall = time.time()
        entries = [c.entry(table.id, table.epoch, wall) for c in changes]
        if request is not None and entries:
            entries[-1].request = request
            entries[-1].result = changes[-1].result
        return entries

    def give_up(self, host: TableHost, reason: str) -> None:
        """Close every connection of ``host`` (they reconnect and resume
        where the table is served now) and hand it to :attr:`on_give_up`."""
        metrics.MOVED.labels(reason).inc()
        for conn in list(host.conns()):
            self.close(host, conn, CloseCode.TRY_AGAIN_LATER, "table moved")
        timers.disarm(host)
        self.on_give_up(host)

    def _log(self, entries: list[LogEntry]) -> None:
        """A line per applied change at debug level only: the table's
        history already records each one (it is the audit), and a line per
        command at info cost about 5 % of the server's CPU under load."""
        if not self._debug:
            return
        for entry in entries:
            log.debug(
                "applied",
                table=entry.table,
                rev=entry.rev,
                kind=entry.kind,
                actor=entry.actor,
                events=[e["code"] for e in entry.events],
            )
