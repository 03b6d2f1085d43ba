"""A table: one game's state, its characters' names and visibility, the
clock anchor, the undo stack and the views of its audiences; applies
commands in order.

Synchronous and I/O-free like the rules: it turns a command into a
:class:`~vigil.changes.Change` (events, the JSON Patch ops on the table
document and their inverse) without keeping it. The server makes the change
durable, then calls :meth:`Table.commit`, which keeps it and returns the
patch of every audience watching. A change that fails to commit was never
applied: :meth:`Table.restore` takes the table (and its views) back to a
:meth:`Table.mark`.
"""

from __future__ import annotations

import secrets
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from vigil import jsonpatch
from vigil.changes import Change, LogEntry
from vigil.clock_anchor import Anchor, Mode
from vigil.rules import engine, fair_dice
from vigil.rules.commands import AddCharacter, Command, RemoveCharacter, Rolls
from vigil.rules.game import Ctx, Game
from vigil.rules.outcome import Event, RuleError, options_refused
from vigil.table_commands import (
    CharacterCreate,
    CharacterMeta,
    ClockFollow,
    ClockPause,
    ClockRun,
    ClockSet,
    ClockWorld,
    DiceReveal,
    TableOptions,
    TableSettings,
)
from vigil.table_views import AudiencePatch, TableViews
from vigil.views import Audience

DEFAULT_SETTINGS: dict[str, Any] = msgspec.structs.asdict(TableSettings())
_CLOCK_PATH = "/state/clock"


@dataclass(frozen=True)
class Mark:
    """Where a table was (see :meth:`Table.mark`)."""

    doc: dict[str, Any]
    state: Any
    epoch: int
    rev: int
    sent: dict[str, dict[str, Any]]
    undoable: dict[int, dict[str, Any]]
    writes: dict[int, frozenset[str]]


# The fields of a command that name the character it is about, in the order
# a person reads it (a stabilize is about the dying one, not its helper; a
# new character is its ``id``).
_ABOUT_FIELDS = ("char", "patient", "who", "helper", "healer", "id")


def undo_about(
    rev: int, actor: str, game: float, command: dict[str, Any] | None, names: Mapping[str, Any]
) -> dict[str, Any]:
    """What an undo of the change at ``rev`` would take back, as the GM's
    view says it: its command's tag (the catalogue labels it), the
    character it is about and that character's name then (the page prefers
    the current name; a removed one keeps this), who sent it (the token's
    label) and the game time it was made at. Read from the change itself
    when it commits, or from its log entry after a restart."""
    body = command or {}
    char = next((v for k in _ABOUT_FIELDS if isinstance(v := body.get(k), str)), None)
    name = body.get("name") if body.get("type") == "character.create" else None
    if char is not None and name is None:
        name = names.get(char, {}).get("name")
    # A correction says what it set (the DRYH coin buttons set hope and
    # despair): "Hope set to 3", not "Correct a value".
    correcting = body.get("type") == "correct"
    return {
        "rev": rev,
        "command": body.get("type"),
        "char": char,
        "name": name,
        "by": actor.split("#")[0],
        "at": game,
        "field": body.get("field") if correcting else None,
        "value": body.get("value") if correcting else None,
    }


@dataclass
class Table:
    id: str
    system: Game
    epoch: int
    rev: int
    doc: dict[str, Any]
    # GM changes kept undoable (the server's ``undo_depth`` setting).
    undo_depth: int
    # Where a new dice period's seed comes from: the operating system's
    # CSPRNG (a test may pass its own, to make seeds it can predict).
    entropy: Callable[[int], bytes] = secrets.token_bytes
    state: Any = field(init=False)
    anchor: Anchor = field(init=False)
    _views: TableViews = field(init=False)
    # What each rev of the undo stack would take back (:func:`undo_about`):
    # kept beside the document, whose stack holds revs only, from each
    # undoable change as it commits and, after a load, from the log
    # (:meth:`recall_undo`). Replaced, never changed in place, so that a
    # mark keeps it as it was without a copy.
    _undoable: dict[int, dict[str, Any]] = field(init=False, default_factory=dict)
    # The document paths each rev of the undo stack wrote (:func:`written`),
    # so that a later change nobody can undo (a player's, the clock's)
    # takes off the stack exactly the GM changes it built on: undo then
    # always reaches the newest change it can take back, never one stuck
    # in a conflict. Replaced, never changed in place, like ``_undoable``.
    _writes: dict[int, frozenset[str]] = field(init=False, default_factory=dict)
    _dice_doc: dict[str, Any] | None = field(init=False, default=None)
    _dice_view: dict[str, Any] | None = field(init=False, default=None)
    # The current period's seed as bytes, beside the period it was read from.
    _seed: tuple[dict[str, Any] | None, bytes] = field(init=False, default=(None, b""))
    # The rules' next deadline (game time), beside the state it is of.
    _deadline: tuple[Any, float | None] = field(init=False, default=(None, None))

    def __post_init__(self) -> None:
        self._views = TableViews(self.id, self.system)
        self._load_doc(self.doc)

    @classmethod
    def new(
        cls,
        table_id: str,
        system: Game,
        name: str,
        options: dict[str, Any],
        wall: float,
        *,
        undo_depth: int,
    ) -> Table:
        settings = dict(DEFAULT_SETTINGS)
        state = system.new_table(_take_settings(settings, options))
        doc = {
            "name": name,
            "system": system.name,
            "state": msgspec.to_builtins(state),
            "meta": {},
            "clock": msgspec.to_builtins(Anchor(wall=wall)),
            "settings": settings,
            "undo": [],
        }
        table = cls(id=table_id, system=system, epoch=1, rev=0, doc=doc, undo_depth=undo_depth)
        table.ensure_period()
        return table

    def _load_doc(self, doc: dict[str, Any], state: Any = None) -> None:
        """Make ``doc`` current; ``state`` is its rules state when the caller
        has it already (it is then exactly ``doc["state"]`` as a Struct)."""
        if state is None:
            state = msgspec.convert(doc["state"], self.system.table_type)
        self.doc = doc
        self.state = state
        self.anchor = msgspec.convert(doc["clock"], Anchor)
        stack = doc.get("undo", [])
        if len(self._undoable) > len(stack):
            self._undoable = {r: self._undoable[r] for r in stack if r in self._undoable}
        if len(self._writes) > len(stack):
            self._writes = {r: self._writes[r] for r in stack if r in self._writes}
        self._views.load(
            state, doc["meta"], self.anchor, self.name, self.settings, self.undo_next(), self._public_dice()
        )

    def _public_dice(self) -> dict[str, Any] | None:
        """The dice period as every audience sees it (without the seed),
        made again only when the document's period changed."""
        dice = self.doc.get("dice")
        if dice is not self._dice_doc:
            self._dice_doc, self._dice_view = dice, None if dice is None else public_dice(dice)
        return self._dice_view

    # -- reading ------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.doc["name"])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.doc.get("settings", DEFAULT_SETTINGS))

    def game_now(self, wall: float) -> float:
        now: float = self.state.clock.now
        return max(now, self.anchor.game_at(wall))

    def next_wake(self) -> float | None:
        """Wall time of the next due effect, if the clock will get there."""
        due = self._next_deadline()
        return None if due is None else self.anchor.wall_at(due)

    def _next_deadline(self) -> float | None:
        """The rules' next deadline in the current state, found once per
        state (a look at every character): the server asks after each
        change (to set its timer) and again before the next (to advance),
        both of the same state."""
        state, due = self._deadline
        if state is not self.state:
            due = engine.next_deadline(self.system, self.state)
            self._deadline = (self.state, due)
        return due

    def incarnations(self) -> dict[str, str]:
        """Each character's incarnation (see :func:`incarnations`)."""
        return incarnations(self.doc)

    def next_undo(self) -> int | None:
        """The rev that an undo would take back now, if any."""
        stack: list[int] = self.doc.get("undo", [])
        return stack[-1] if stack else None

    def undo_next(self) -> dict[str, Any] | None:
        """What an undo would take back now (:func:`undo_about`; only its
        rev when the log could not say more), or None: the GM's view
        publishes it, so the page can say which command its undo button
        takes back."""
        top = self.next_undo()
        if top is None:
            return None
        unknown: dict[str, Any] = dict.fromkeys(("command", "char", "name", "by", "at", "field", "value"))
        unknown["rev"] = top
        about: dict[str, Any] = self._undoable.get(top, unknown)
        return about

    def recall_undo(self, entries: Iterable[LogEntry]) -> None:
        """After a load: learn from their log entries what the revs of the
        undo stack would take back (entries of other revs are ignored)."""
        stack = set(self.doc.get("undo", []))
        meta: dict[str, Any] = self.doc["meta"]
        learnt = {
            e.rev: undo_about(e.rev, e.actor, e.game, e.command, meta)
            for e in entries
            if e.rev in stack and e.epoch == self.epoch
        }
        self._undoable = {**self._undoable, **learnt}
        wrote = {e.rev: written(e.ops) for e in entries if e.rev in stack and e.epoch == self.epoch}
        self._writes = {**self._writes, **wrote}
        self._views.load(
            self.state, meta, self.anchor, self.name, self.settings, self.undo_next(), self._public_dice()
        )

    # -- views --------------------------------------------------------------

    def sight(self, audience: Audience) -> tuple[str, ...]:
        """What ``audience`` sees of each character: audiences with equal
        sights get equal views."""
        return self._views.sight(audience)

    def view(self, audience: Audience) -> dict[str, Any]:
        """``audience``'s view of the current state."""
        return self._views.view(audience)

    def legal(self, audience: Audience) -> dict[str, Any] | None:
        """The moves ``audience`` is offered now (None for one that sends
        nothing: spectators, a player with no character here)."""
        return self._views.legal(audience)

    def watch(self, audience: Audience) -> dict[str, Any]:
        """The view ``audience`` was sent; from now on every commit returns
        its patch too."""
        return self._views.watch(audience)

    def seen_by(self, audience: Audience) -> dict[str, Any]:
        """What ``audience`` sees: the view it was sent, if watching."""
        return self._views.seen_by(audience)

    def forget(self, key: str) -> None:
        """Stop patching the view of the audience with ``key``."""
        self._views.forget(key)

    # -- changing -----------------------------------------------------------

    def advance(self, wall: float, ctx: Ctx) -> Change | None:
        """Bring the rules up to the clock: a change of its own when due
        effects fired (so that undo never takes back a clock effect)."""
        now = self.game_now(wall)
        due = self._next_deadline()
        if due is None or due > now:
            return None  # nothing fires: no change (and no state copy)
        ctx, dice = self._derived(ctx, "")
        outcome = engine.advance(self.system, self.state, now, ctx)
        if not outcome.events:
            return None
        change = self._change("clock", ctx.actor.id, None, outcome.state, outcome.events, now)
        return self._rolled(change, dice)

    def halt(self, wall: float, ctx: Ctx, code: str, params: dict[str, Any]) -> Change:
        """Pause the clock where the rules are, without advancing: the way
        out when catching up would exceed the work bound (after a long
        outage with the clock running). The GM then decides."""
        now = self.state.clock.now
        anchor = self.anchor.rebased(wall, mode="paused", game=now)
        event = Event(code=code, at=now, params=params)
        return self._change("clock", ctx.actor.id, None, self.state, [event], now, anchor=anchor)

    def hold(self, wall: float, at: float, ctx: Ctx) -> Change:
        """Pause the clock for want of a GM, as it stood at wall time ``at``
        (``wall`` now, or earlier: the last moment a GM was known present,
        after a crash): the effects due by then happen, none after, so the
        time nobody was there is not counted. It runs again when a GM
        connects (:meth:`resume`)."""
        game = max(self.state.clock.now, self.anchor.game_at(min(at, wall)))
        state, events = self.state, []
        ctx, dice = self._derived(ctx, "")
        if state.clock.now < game:
            outcome = engine.advance(self.system, state, game, ctx)
            state, events = outcome.state, outcome.events
        anchor = self.anchor.rebased(wall, mode="paused", game=game, awaiting_gm=True)
        held = [Event(code="clock_auto_paused", at=game), _clock_event(anchor, game)]
        change = self._change("clock", ctx.actor.id, None, state, [*held, *events], game, anchor=anchor)
        return self._rolled(change, dice)

    def resume(self, wall: float, ctx: Ctx) -> Change:
        """Run again the clock :meth:`hold` paused, at its former rate."""
        if not self.anchor.awaiting_gm:
            raise RuleError("not_awaiting_gm")
        now = self.state.clock.now
        anchor = self.anchor.rebased(wall, mode="running", game=now)
        return self._change(
            "clock", ctx.actor.id, None, self.state, [_clock_event(anchor, now)], now, anchor=anchor
        )

    def prepare(self, body: Command, wall: float, ctx: Ctx, command: dict[str, Any] | None = None) -> Change:
        """The change ``body`` would make now. Raises RuleError if refused.
        The caller has applied :meth:`advance` first. ``command`` is
        ``body`` as plain JSON when the caller has it already (the server
        reads it for the permission check); it is kept, never changed.
        Its dice are derived from the table's dice period, with the
        command's nonce (docs/dice.md); a DRYH session end reveals the
        period where the table's option says so (DRYH-25)."""
        nonce = body.nonce if isinstance(body, Rolls) else None
        ctx, dice = self._derived(ctx, nonce or "")
        change = self._rolled(self._prepare(body, wall, ctx, command), dice)
        if isinstance(body, Rolls) and (body.faces is not None or body.lots is not None) and dice is not None:
            change.dice = {**(change.dice or self._record(dice)), "manual": True}
        if any(e.code == "session_ended" for e in change.events) and getattr(
            self.state.options, "reveal_dice_at_session_end", False
        ):
            change = self._revealing(change)
        return change

    def _prepare(self, body: Command, wall: float, ctx: Ctx, command: dict[str, Any] | None) -> Change:
        now = self.game_now(wall)
        state = self.state
        if state.clock.now < now:
            state = engine.advance(self.system, state, now, ctx).state
        if command is None:
            command = msgspec.to_builtins(body)
        handler = _TABLE_HANDLERS.get(type(body))
        if handler is not None:
            return handler(self, body, wall, ctx, state, command)
        outcome = engine.apply(self.system, state, body, ctx)
        if isinstance(body, RemoveCharacter):
            # Once removed, no view knows the character's name: the event keeps it.
            name = self.doc["meta"].get(body.char, {}).get("name", body.char)
            _name_events(outcome.events, "character_removed", name)
        change = self._change("command", ctx.actor.id, command, outcome.state, outcome.events, now)
        if isinstance(body, RemoveCharacter):
            change = self._with_doc(change, lambda d: d["meta"].pop(body.char, None))
        change.undoable = ctx.actor.role == "gm"
        return change

    def undo(self, entry: LogEntry | None, ctx: Ctx) -> Change:
        """Compensate the newest undoable GM change, whose log entry is
        ``entry``: read before the table's lock, it must still be the top of
        the stack. Refused if anything it wrote has been changed since (the
        GM then corrects by hand)."""
        top = self.next_undo()
        if top is None or entry is None or entry.rev != top or entry.epoch != self.epoch:
            raise RuleError("undo_conflict", rev=top or 0)
        rev = entry.rev
        for op in entry.ops:
            if op["path"].startswith(_CLOCK_PATH) or op["path"] == "/undo":
                continue
            try:
                current = jsonpatch.resolve(self.doc, op["path"])
                present = True
            except jsonpatch.PatchError:
                present = False
            if op["op"] == "remove" and present:
                raise RuleError("undo_conflict", rev=rev)
            if op["op"] != "remove" and (not present or current != op["value"]):
                raise RuleError("undo_conflict", rev=rev)
        doc = msgspec.json.decode(msgspec.json.encode(self.doc))
        inverse = [op for op in entry.inverse if op["path"] != "/undo"]
        doc = jsonpatch.apply(doc, inverse)
        doc["undo"] = [r for r in self.doc.get("undo", []) if r != rev]
        try:
            # Valid by type and by the game's own invariants (a DRYH roll
            # must not keep a helper whose creation is being undone).
            self.system.validate(msgspec.convert(doc["state"], self.system.table_type))
        except (msgspec.ValidationError, RuleError):
            raise RuleError("undo_conflict", rev=rev) from None
        now = self.state.clock.now
        actor = ctx.actor.id
        event = Event(code="undone", at=now, params={"rev": rev}, actor=actor)
        return self._finish("undo", actor, {"type": "undo"}, [event], now, doc, {"undone": rev})

    def commit(self, change: Change) -> list[AudiencePatch]:
        """Keep ``change`` (now durable) at the next rev; the patches that
        take every watching audience's view to it."""
        self.rev += 1
        change.rev = self.rev
        doc = change.doc
        if change.undoable:
            # Names as they are after the change, else before (a removed one's).
            names = ChainMap(doc["meta"], self.doc["meta"])
            about = undo_about(self.rev, change.actor, change.game, change.command, names)
            self._undoable = {**self._undoable, self.rev: about}
            # The stack is part of the document, so its push is one of the
            # change's ops like any other: the log entry carries it, and a
            # table rebuilt from a snapshot and the log undoes what this
            # one would (``add`` replaces a member that exists already).
            stack = [*doc.get("undo", []), self.rev][-self.undo_depth :]
            self._writes = {**self._writes, self.rev: written(change.ops)}
            doc["undo"] = stack
            change.ops.append({"op": "add", "path": "/undo", "value": stack})
        elif change.kind != "undo":
            self._drop_built_on(change)
        self._load_doc(doc, change.state)
        return self._views.patches()

    def new_epoch(self) -> None:
        """Start the next epoch (the history is emptied, the state kept):
        revs restart at 0, nothing is left to undo, and every watching
        audience's view is made anew (it is sent a snapshot)."""
        self.epoch += 1
        self.rev = 0
        self._undoable = {}
        self._writes = {}
        self._load_doc({**self.doc, "undo": []}, self.state)
        self._views.resend()

    def mark(self) -> Mark:
        """Where the table is now, to :meth:`restore` if what follows fails."""
        sent = self._views.sent()
        return Mark(self.doc, self.state, self.epoch, self.rev, sent, self._undoable, self._writes)

    def restore(self, mark: Mark) -> None:
        """Back to ``mark``, as if nothing since had happened (documents are
        never changed in place, so the marked one is intact)."""
        self._undoable = mark.undoable
        self._writes = mark.writes
        self._load_doc(mark.doc, mark.state)
        self.epoch, self.rev = mark.epoch, mark.rev
        self._views.restore(mark.sent)

    def _drop_built_on(self, change: Change) -> None:
        """Take off the undo stack every GM change that ``change`` (one no
        undo takes back: a player's, the clock's) wrote over: undoing it
        would be refused as a conflict from now on (:meth:`undo`), and
        while it sat on top nothing older could be reached ("Change 34
        cannot be undone" on every click). The stack's new value is one of
        the change's ops, so a table rebuilt from the log drops the same.
        A GM change over another is kept: undone in order, newest first,
        each finds what it wrote."""
        stack: list[int] = change.doc.get("undo", [])
        if not stack:
            return
        touched = written(change.ops)
        keep = [r for r in stack if not _overlaps(self._writes.get(r, frozenset()), touched)]
        if len(keep) == len(stack):
            return
        change.doc["undo"] = keep
        change.ops.append({"op": "add", "path": "/undo", "value": keep})

    # -- the dice period -----------------------------------------------------

    def ensure_period(self) -> None:
        """Open the first dice period of a table that has none (a new
        table, an imported one: an export never holds a seed), before
        anything is committed or seen: the document it is made with is
        its first snapshot."""
        if self.doc.get("dice") is None:
            self._load_doc({**self.doc, "dice": self._new_period(1, None)}, self.state)

    def _new_period(self, number: int, revealed: dict[str, Any] | None) -> dict[str, Any]:
        seed = self.entropy(fair_dice.SEED_BYTES)
        return {
            "period": number,
            "seed": seed.hex(),
            "commitment": fair_dice.commitment(seed),
            "revealed": revealed,
        }

    def _derived(self, ctx: Ctx, nonce: str) -> tuple[Ctx, fair_dice.DerivedDice | None]:
        """``ctx`` with dice derived from the table's period for the change
        about to be made (the next rev), or as it is for a table that has
        no period yet (one made before periods: its first reveal opens one)."""
        dice: dict[str, Any] | None = self.doc.get("dice")
        if dice is None:
            return ctx, None
        if self._seed[0] is not dice:
            self._seed = (dice, bytes.fromhex(dice["seed"]))
        period = fair_dice.Period(
            self._seed[1], self.id, self.epoch, int(dice["period"]), self.rev + 1, nonce
        )
        derived = fair_dice.DerivedDice(period)
        # Ctx made anew rather than dataclasses.replace: this runs for every change.
        return Ctx(dice=derived, actor=ctx.actor, max_effects=ctx.max_effects), derived

    def _record(self, dice: fair_dice.DerivedDice) -> dict[str, Any]:
        """The public record of a change's draws (docs/dice.md): never the seed."""
        period = dice.period
        return {
            "period": period.number,
            "commitment": self.doc["dice"]["commitment"],
            "nonce": period.nonce or None,
            "draws": dice.draws,
        }

    def _rolled(self, change: Change, dice: fair_dice.DerivedDice | None) -> Change:
        if dice is not None and dice.draws:
            change.dice = self._record(dice)
        return change

    def reveal(self, ctx: Ctx, command: dict[str, Any] | None) -> Change:
        """Reveal the current dice period's seed and open the next period
        at once, in one change: its event carries the seed (the history
        has it from now on) and the next commitment."""
        now = self.state.clock.now
        change = self._finish("command", ctx.actor.id, command, [], now, self.doc, None)
        change.state = self.state
        return self._revealing(change)

    def _revealing(self, change: Change) -> Change:
        """``change`` with the reveal of the period it was made in added."""
        old: dict[str, Any] | None = self.doc.get("dice")
        revealed = None if old is None else {k: old[k] for k in ("period", "seed", "commitment")}
        new = self._new_period(1 if old is None else int(old["period"]) + 1, revealed)
        params = {
            "period": None if old is None else old["period"],
            "seed": None if old is None else old["seed"],
            "commitment": None if old is None else old["commitment"],
            "next_period": new["period"],
            "next_commitment": new["commitment"],
            "next_fingerprint": fair_dice.fingerprint(new["commitment"]),
        }
        event = Event(code="dice_revealed", at=change.game, params=params, actor=change.actor)
        doc = {**change.doc, "dice": new}
        events = [*change.events, event]
        out = self._finish(change.kind, change.actor, change.command, events, change.game, doc, change.result)
        out.state, out.dice, out.undoable = change.state, change.dice, False
        return out

    # -- internals ----------------------------------------------------------

    def _change(
        self,
        kind: str,
        actor: str,
        command: dict[str, Any] | None,
        state: Any,
        events: list[Event],
        now: float,
        *,
        meta: dict[str, Any] | None = None,
        anchor: Anchor | None = None,
        result: Any = None,
    ) -> Change:
        doc = {
            **self.doc,
            "state": self._state_doc(state),
            "meta": self.doc["meta"] if meta is None else meta,
            "clock": self.doc["clock"] if anchor is None else msgspec.to_builtins(anchor),
        }
        change = self._finish(kind, actor, command, events, now, doc, result)
        change.state = state
        return change

    def _state_doc(self, state: Any) -> dict[str, Any]:
        """``msgspec.to_builtins(state)``, sharing the current document's
        parts wherever the state is equal to the current one. Documents are
        never changed in place, so sharing is safe, and it lets the diffs
        skip every unchanged character at once (``old is new``)."""
        old = self.state
        old_doc: dict[str, Any] = self.doc["state"]
        if state is old:
            return old_doc
        if type(state) is not type(old):
            plain: dict[str, Any] = msgspec.to_builtins(state)
            return plain
        out: dict[str, Any] = {}
        for name in state.__struct_fields__:
            value = getattr(state, name)
            before = getattr(old, name)
            if name == "characters":
                old_chars: dict[str, Any] = old_doc.get("characters", {})
                chars: dict[str, Any] = {}
                for cid, char in value.items():
                    prior = before.get(cid)
                    if prior is not None and cid in old_chars and (prior is char or prior == char):
                        chars[cid] = old_chars[cid]
                    else:
                        chars[cid] = msgspec.to_builtins(char)
                out[name] = chars
            elif name in old_doc and (before is value or before == value):
                out[name] = old_doc[name]
            else:
                out[name] = msgspec.to_builtins(value)
        return out

    def _finish(
        self,
        kind: str,
        actor: str,
        command: dict[str, Any] | None,
        events: list[Event],
        now: float,
        doc: dict[str, Any],
        result: Any,
    ) -> Change:
        ops = jsonpatch.diff(self.doc, doc)
        inverse = [op for op in jsonpatch.invert(ops, self.doc) if not op["path"].startswith(_CLOCK_PATH)]
        return Change(kind, actor, now, command, events, doc, ops, inverse, result)

    def _with_doc(self, change: Change, edit: Callable[[dict[str, Any]], Any]) -> Change:
        doc = msgspec.json.decode(msgspec.json.encode(change.doc))
        edit(doc)
        return self._finish(
            change.kind,
            change.actor,
            change.command,
            change.events,
            change.game,
            doc,
            change.result,
        )


def written(ops: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The document paths a change's ``ops`` wrote, less those an undo
    ignores (the game clock, which only moves forward, and the stack)."""
    return frozenset(
        op["path"] for op in ops if not op["path"].startswith(_CLOCK_PATH) and op["path"] != "/undo"
    )


def _overlaps(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether a path of ``a`` is one of ``b``, inside one or holds one."""
    return any(x == y or y.startswith(x + "/") or x.startswith(y + "/") for x in a for y in b)


def public_dice(dice: dict[str, Any]) -> dict[str, Any]:
    """What every audience sees of a dice period: its number, commitment
    and fingerprint, and the last period revealed (seed included); never
    the current seed."""
    return {
        "period": dice["period"],
        "commitment": dice["commitment"],
        "fingerprint": fair_dice.fingerprint(dice["commitment"]),
        "revealed": dice.get("revealed"),
    }


def without_seed(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as it may leave the server (an export): its dice period
    public, the seed not revealed yet left out."""
    dice = doc.get("dice")
    return doc if dice is None else {**doc, "dice": public_dice(dice)}


def incarnations(doc: dict[str, Any]) -> dict[str, str]:
    """Each character of the table document ``doc`` and its incarnation:
    which of the characters ever made with its id it is ("" for one made
    before incarnations were kept)."""
    meta: dict[str, Any] = doc["meta"]
    return {cid: str(meta.get(cid, {}).get("incarnation", "")) for cid in doc["state"]["characters"]}


# -- table-level commands ------------------------------------------------------


def _name_events(events: list[Event], code: str, name: str) -> None:
    """Give the ``code`` events of ``events`` the character's ``name``
    (``params.name``), which the table keeps and the rules do not."""
    for event in events:
        if event.code == code:
            event.params = {**event.params, "name": name}


Handler = Callable[[Table, Any, float, Ctx, Any, dict[str, Any]], Change]


def _character_create(
    t: Table, body: CharacterCreate, wall: float, ctx: Ctx, state: Any, command: dict[str, Any]
) -> Change:
    sheet = dict(body.sheet)
    if "npc" in t.system.character_type.__struct_fields__:
        # DRYH counts player characters for despair (session start); the
        # kind given here is the one fact, the sheet follows it.
        sheet.setdefault("npc", body.kind == "npc")
    outcome = engine.apply(t.system, state, AddCharacter(id=body.id, sheet=sheet), ctx)
    # The rules know ids, the table names: the sentence "Ysolde joins the
    # table" reads the name from the event, whoever shows it and whenever.
    _name_events(outcome.events, "character_added", body.name)
    meta = dict(t.doc["meta"])
    meta[body.id] = {
        "name": body.name,
        "kind": body.kind,
        "visibility": body.visibility or ("full" if body.kind == "pc" else "status"),
        "notes": "",
        "actor_id": body.actor_id,
        "token_id": body.token_id,
        # The epoch and rev this creation gets: unique in the table's life,
        # so a token minted for this character never gains a later one made
        # with the same id.
        "incarnation": f"{t.epoch}.{t.rev + 1}",
    }
    change = t._change(
        "command", ctx.actor.id, command, outcome.state, outcome.events, state.clock.now, meta=meta
    )
    change.undoable = True
    return change


def _character_meta(
    t: Table, body: CharacterMeta, wall: float, ctx: Ctx, state: Any, command: dict[str, Any]
) -> Change:
    if body.char not in state.characters:
        raise RuleError("unknown_character", char=body.char)
    meta = dict(t.doc["meta"])
    entry = dict(meta.get(body.char, {}))
    changed = {
        k: v for k, v in command.items() if k not in ("type", "char") and v is not None and entry.get(k) != v
    }
    if not changed:
        # Naming no field, or each with the value it has: no rev and no
        # undo slot is spent on it (an undo would then take back nothing).
        raise RuleError("no_change", char=body.char)
    entry.update(changed)
    meta[body.char] = entry
    event = Event(
        code="character_updated",
        at=state.clock.now,
        char=body.char,
        params={"fields": sorted(changed)},
    )
    change = t._change("command", ctx.actor.id, command, state, [event], state.clock.now, meta=meta)
    change.undoable = True
    return change


def _take_settings(settings: dict[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """Set in ``settings`` the server's own options (``DEFAULT_SETTINGS``),
    which ``table.create`` and ``table.options`` take beside the game's, so
    that a table's options are one set (the command catalogue lists them
    so); return the rest, the game's options."""
    rest: dict[str, Any] = {}
    for key, value in options.items():
        if key in settings:
            if type(value) is not type(settings[key]):
                raise RuleError("bad_options", field=key, reason="it has the wrong type")
            settings[key] = value
        else:
            rest[key] = value
    return rest


def _table_options(
    t: Table, body: TableOptions, wall: float, ctx: Ctx, state: Any, command: dict[str, Any]
) -> Change:
    settings = t.settings
    rules_options = msgspec.to_builtins(state.options)
    for key, value in _take_settings(settings, body.options).items():
        if key not in rules_options:
            raise RuleError("bad_field", field=key)
        rules_options[key] = value
    try:
        new_options = msgspec.convert(rules_options, t.system.options_type)
    except msgspec.ValidationError as exc:
        raise options_refused(exc) from None
    if new_options == state.options and settings == t.settings:
        raise RuleError("options_unchanged")  # none given, or each as it is already
    new_state = engine.copy_state(state)
    new_state.options = new_options
    new_state = engine.settle(new_state)
    t.system.validate(new_state)
    event = Event(code="options_changed", at=state.clock.now, params={"options": body.options})
    change = t._change("command", ctx.actor.id, command, new_state, [event], state.clock.now)
    change.doc["settings"] = settings
    change = t._finish(change.kind, change.actor, command, change.events, change.game, change.doc, None)
    change.undoable = True
    return change


def _clock(t: Table, body: Command, wall: float, ctx: Ctx, state: Any, command: dict[str, Any]) -> Change:
    anchor = t.anchor
    now = state.clock.now
    new_state = state
    events: list[Event] = []
    match body:
        case ClockPause():
            anchor = anchor.rebased(wall, mode="paused", game=now)
        case ClockRun(rate=rate):
            anchor = anchor.rebased(wall, mode="running", rate=rate, game=now)
        case ClockSet(to=to) | ClockFollow(world_time=to) | ClockWorld(world_time=to):
            if isinstance(body, ClockWorld) and anchor.mode != "follow":
                raise RuleError("not_following")
            if to < now:
                raise RuleError("clock_backwards", now=now, to=to)
            outcome = engine.advance(t.system, state, to, ctx)
            new_state, events = outcome.state, outcome.events
            mode: Mode | None = "follow" if isinstance(body, ClockFollow) else None
            anchor = anchor.rebased(wall, mode=mode, game=to)
    event = _clock_event(anchor, new_state.clock.now)
    return t._change(
        "clock",
        ctx.actor.id,
        command,
        new_state,
        [event, *events],
        new_state.clock.now,
        anchor=anchor,
    )


def _clock_event(anchor: Anchor, at: float) -> Event:
    params = {"mode": anchor.mode, "rate": anchor.rate, "game": anchor.game}
    return Event(code="clock_changed", at=at, params=params)


def _dice_reveal(
    t: Table, body: DiceReveal, wall: float, ctx: Ctx, state: Any, command: dict[str, Any]
) -> Change:
    return t.reveal(ctx, command)


_TABLE_HANDLERS: dict[type[Command], Handler] = {
    DiceReveal: _dice_reveal,
    CharacterCreate: _character_create,
    CharacterMeta: _character_meta,
    TableOptions: _table_options,
    ClockPause: _clock,
    ClockRun: _clock,
    ClockSet: _clock,
    ClockFollow: _clock,
    ClockWorld: _clock,
}
