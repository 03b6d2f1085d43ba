"""A table: one game's state, its characters' names and visibility, the
clock anchor, and the undo stack; applies commands in order.

Synchronous and I/O-free like the rules: it turns a command into a
:class:`Change` (events, the JSON Patch ops on the table document and their
inverse) without keeping it. The server makes the change durable, then calls
:meth:`Table.commit`; a change that fails to commit was never applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from vigil import jsonpatch
from vigil.anchor import Anchor, Mode
from vigil.rules import engine
from vigil.rules.commands import AddCharacter, Command, RemoveCharacter
from vigil.rules.outcome import Event, RuleError
from vigil.rules.system import Actor, Ctx, System
from vigil.rules.words import english
from vigil.store.base import LogEntry
from vigil.table_commands import (
    CharacterCreate,
    CharacterMeta,
    ClockFollow,
    ClockPause,
    ClockRun,
    ClockSet,
    ClockWorld,
    TableOptions,
    TableSettings,
    Undo,
)
from vigil.views import GM, Audience, CharacterRender, build_view, clock_view, renders, same_or

UNDO_DEPTH = 20
DEFAULT_SETTINGS: dict[str, Any] = msgspec.structs.asdict(TableSettings())
_CLOCK_PATH = "/state/clock"


@dataclass
class Change:
    """One applied change, not yet committed."""

    kind: str  # "command", "clock" (due effects), "undo"
    actor: str
    game: float
    command: dict[str, Any] | None
    events: list[Event]
    doc: dict[str, Any]
    ops: list[dict[str, Any]]
    inverse: list[dict[str, Any]]
    result: Any = None
    undoable: bool = False
    rev: int = 0
    # The rules' state this change leads to, when the change was made from
    # one (saves converting the document back on commit); None otherwise.
    state: Any = None

    def entry(self, table: str, epoch: int, wall: float) -> LogEntry:
        """The log entry of this change, once committed (its rev is set)."""
        return LogEntry(
            table=table,
            epoch=epoch,
            rev=self.rev,
            wall=wall,
            game=self.game,
            actor=self.actor,
            kind=self.kind,
            command=self.command,
            events=render_events(self.events),
            ops=self.ops,
            inverse=self.inverse,
        )


@dataclass
class Table:
    id: str
    system: System
    epoch: int
    rev: int
    doc: dict[str, Any]
    state: Any = field(init=False)
    anchor: Anchor = field(init=False)
    _renders: dict[str, CharacterRender] | None = field(default=None, init=False)
    # What the renders were made from before the last change, so that the
    # next ones rebuild only what changed (see views.renders).
    _previous: tuple[Any, dict[str, Any], dict[str, CharacterRender]] | None = field(default=None, init=False)
    _games: dict[tuple[frozenset[str], frozenset[str]], dict[str, Any]] = field(
        default_factory=dict, init=False
    )
    _old_games: dict[tuple[frozenset[str], frozenset[str]], dict[str, Any]] = field(
        default_factory=dict, init=False
    )
    _clock: dict[str, Any] | None = field(default=None, init=False)
    _old_clock: dict[str, Any] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._load_doc(self.doc)

    @classmethod
    def new(cls, table_id: str, system: System, name: str, options: dict[str, Any], wall: float) -> Table:
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
        return cls(id=table_id, system=system, epoch=1, rev=0, doc=doc)

    def _load_doc(self, doc: dict[str, Any], state: Any = None) -> None:
        """Make ``doc`` current; ``state`` is its rules state when the caller
        has it already (it is then exactly ``doc["state"]`` as a Struct)."""
        previous = getattr(self, "state", None)
        if previous is not None and self._renders is not None:
            self._previous = (previous, self.doc["meta"], self._renders)
        old_games, self._games = self._games, {}
        if state is None:
            state = msgspec.convert(doc["state"], self.system.table_type)
        if (
            previous is not None
            and old_games
            and _same_table(previous, state)
            and (not self.system.table_view_reads_sheets or previous.characters == state.characters)
        ):
            # The game's table-level view depends on the table-level state
            # and on which characters exist (and, where the game says so, on
            # their sheets), nothing else.
            self._games = old_games
        elif old_games:
            self._old_games = old_games
        self.doc = doc
        self.state = state
        self.anchor = msgspec.convert(doc["clock"], Anchor)
        self._renders = None
        if self._clock is not None:
            self._old_clock, self._clock = self._clock, None

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
        due = engine.next_deadline(self.system, self.state)
        return None if due is None else self.anchor.wall_at(due)

    def sight(self, audience: Audience) -> tuple[str, ...]:
        """What ``audience`` sees of each character (gm, full, status or
        nothing): audiences with equal sights get equal views."""
        if audience.kind == GM:
            return ("gm",)
        chars = self._current_renders()
        own = audience.chars
        return tuple(
            "o" if cid in own else "f" if r.visibility == "full" else "s" if r.visibility == "status" else "-"
            for cid, r in chars.items()
        )

    def _current_renders(self) -> dict[str, CharacterRender]:
        if self._renders is None:
            self._renders = renders(self.system, self.state, self.doc["meta"], self._previous)
            self._previous = None
        return self._renders

    def view(self, audience: Audience) -> dict[str, Any]:
        chars = self._current_renders()
        if self._clock is None:
            self._clock = same_or(clock_view(self.anchor, self.state), self._old_clock)
        return build_view(
            audience,
            table_id=self.id,
            name=self.name,
            system=self.system,
            state=self.state,
            chars=chars,
            anchor=self.anchor,
            settings=self.settings,
            games=self._games,
            old_games=self._old_games,
            clock=self._clock,
        )

    # -- changing -----------------------------------------------------------

    def advance(self, wall: float, ctx: Ctx) -> Change | None:
        """Bring the rules up to the clock: a change of its own when due
        effects fired (so that undo never takes back a clock effect)."""
        now = self.game_now(wall)
        due = engine.next_deadline(self.system, self.state)
        if due is None or due > now:
            return None  # nothing fires: no change (and no state copy)
        outcome = engine.advance(self.system, self.state, now, ctx)
        if not outcome.events:
            return None
        return self._change("clock", ctx.actor.id, None, outcome.state, outcome.events, now)

    def halt(self, wall: float, ctx: Ctx, code: str, params: dict[str, Any]) -> Change:
        """Pause the clock where the rules are, without advancing: the way
        out when catching up would exceed the work bound (after a long
        outage with the clock running). The GM then decides."""
        now = self.state.clock.now
        anchor = self.anchor.rebased(wall, mode="paused", game=now)
        event = Event(code=code, at=now, params=params)
        return self._change("clock", ctx.actor.id, None, self.state, [event], now, anchor=anchor)

    def prepare(self, body: Command, wall: float, ctx: Ctx) -> Change:
        """The change ``body`` would make now. Raises RuleError if refused.
        The caller has applied :meth:`advance` first."""
        now = self.game_now(wall)
        state = self.state
        if state.clock.now < now:
            state = engine.advance(self.system, state, now, ctx).state
        command = msgspec.to_builtins(body)
        handler = _TABLE_HANDLERS.get(type(body))
        if handler is not None:
            return handler(self, body, wall, ctx, state, command)
        outcome = engine.apply(self.system, state, body, ctx)
        change = self._change("command", ctx.actor.id, command, outcome.state, outcome.events, now)
        if isinstance(body, RemoveCharacter):
            change = self._with_doc(change, lambda d: d["meta"].pop(body.char, None))
        change.undoable = ctx.actor.role == "gm"
        return change

    def commit(self, change: Change) -> None:
        self.rev += 1
        change.rev = self.rev
        doc = change.doc
        if change.undoable:
            doc["undo"] = [*doc.get("undo", []), self.rev][-UNDO_DEPTH:]
        self._load_doc(doc, change.state)

    def reset_epoch(self) -> None:
        self.epoch += 1
        self.rev = 0
        self.doc["undo"] = []

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
        inverse = [op for op in jsonpatch.diff(doc, self.doc) if not op["path"].startswith(_CLOCK_PATH)]
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

    def undo_change(
        self,
        entry_ops: list[dict[str, Any]],
        entry_inverse: list[dict[str, Any]],
        rev: int,
        actor: str,
        wall: float,
    ) -> Change:
        """Compensate the change of ``rev``: refused if anything it wrote has
        been changed since (the GM then corrects by hand)."""
        for op in entry_ops:
            if op["path"].startswith(_CLOCK_PATH) or op["path"] == "/undo":
                continue
            try:
                current = jsonpatch._resolve(self.doc, op["path"])
                present = True
            except jsonpatch.PatchError:
                present = False
            if op["op"] == "remove" and present:
                raise RuleError("undo_conflict", rev=rev)
            if op["op"] != "remove" and (not present or current != op["value"]):
                raise RuleError("undo_conflict", rev=rev)
        doc = msgspec.json.decode(msgspec.json.encode(self.doc))
        inverse = [op for op in entry_inverse if op["path"] != "/undo"]
        doc = jsonpatch.apply(doc, inverse)
        doc["undo"] = [r for r in self.doc.get("undo", []) if r != rev]
        try:
            # Valid by type and by the game's own invariants (a DRYH roll
            # must not keep a helper whose creation is being undone).
            self.system.validate(msgspec.convert(doc["state"], self.system.table_type))
        except (msgspec.ValidationError, RuleError):
            raise RuleError("undo_conflict", rev=rev) from None
        now = self.state.clock.now
        event = Event(code="undone", at=now, params={"rev": rev}, actor=actor)
        return self._finish("undo", actor, {"type": "undo"}, [event], now, doc, {"undone": rev})


# -- table-level commands ------------------------------------------------------

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
    meta = dict(t.doc["meta"])
    meta[body.id] = {
        "name": body.name,
        "kind": body.kind,
        "visibility": body.visibility or ("full" if body.kind == "pc" else "status"),
        "notes": "",
        "actor_id": body.actor_id,
        "token_id": body.token_id,
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
    changed = {k: v for k, v in command.items() if k not in ("type", "char") and v is not None}
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
                raise RuleError("bad_value", field=key, value=repr(value), reason="wrong type")
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
        raise RuleError("bad_value", field="options", value="…", reason=str(exc)) from None
    new_state = engine.copy_state(state)
    new_state.options = new_options
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
    event = Event(
        code="clock_changed",
        at=new_state.clock.now,
        params={"mode": anchor.mode, "rate": anchor.rate, "game": anchor.game},
    )
    return t._change(
        "clock",
        ctx.actor.id,
        command,
        new_state,
        [event, *events],
        new_state.clock.now,
        anchor=anchor,
    )


_TABLE_HANDLERS: dict[type[Command], Handler] = {
    CharacterCreate: _character_create,
    CharacterMeta: _character_meta,
    TableOptions: _table_options,
    ClockPause: _clock,
    ClockRun: _clock,
    ClockSet: _clock,
    ClockFollow: _clock,
    ClockWorld: _clock,
}


def _same_table(old: Any, new: Any) -> bool:
    """Equal apart from the characters' sheets (the same characters exist)."""
    if type(old) is not type(new) or old.characters.keys() != new.characters.keys():
        return False
    return all(
        getattr(old, name) == getattr(new, name) for name in new.__struct_fields__ if name != "characters"
    )


def render_events(events: list[Event]) -> list[dict[str, Any]]:
    """Events as stored in the log: the value plus its English sentence."""
    return [{**msgspec.to_builtins(e), "text": english(e)} for e in events]


__all__ = ["Actor", "Change", "Table", "Undo", "render_events"]
