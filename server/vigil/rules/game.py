"""The protocols between the engine and a game: :class:`Game` (what a game
module provides), :class:`TableState` (the fields every game's table state
has), and the values passed between them (who asks, the dice, due effects,
status summaries). The registry of the games is :mod:`vigil.rules.games`.

The engine (:mod:`vigil.rules.engine`) owns what is common — copying the
state so a refused command changes nothing, ordering timed effects by (time,
character id, rule id), bounding the work of a clock advance, corrections and
revive — and calls into a game only for what differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

import msgspec

from vigil.rules.clock import GameClock
from vigil.rules.commands import Command
from vigil.rules.dice import DiceSource
from vigil.rules.outcome import Event
from vigil.rules.reference import RuleBook

Role = Literal["gm", "player", "system"]


@dataclass(frozen=True)
class Actor:
    """Who asked. ``id`` is recorded on every event; the server has already
    checked permissions, the rules only use ``role`` for what the rule texts
    themselves reserve to the GM (manual dice)."""

    id: str = "system"
    role: Role = "system"


@dataclass(frozen=True)
class Ctx:
    dice: DiceSource
    actor: Actor = field(default_factory=Actor)
    max_effects: int = 100_000


class Due(NamedTuple):
    """One timed effect. Tuples sort by (time, char, rule, key): exactly the
    order "The clock" (:data:`vigil.rules.reference.COMMON`) asks for, with ``key`` separating two
    effects of one rule (two poisons) deterministically."""

    time: float
    char: str
    rule: str
    key: str = ""


class Countdown(msgspec.Struct, kw_only=True):
    """A deadline a client draws from the clock anchor (e.g. Dying)."""

    kind: str
    until: float
    since: float | None = None


class Summary(msgspec.Struct, kw_only=True):
    """What a ``status``-visibility viewer may see of a character: badges and
    countdowns, no exact numbers (docs/design.md "Visibility")."""

    badges: list[str] = []
    countdowns: list[Countdown] = []


class Wait(NamedTuple):
    """Something a character's sheet holds for its player's answer, the way
    a DRYH roll stays open while a choice is pending (HUR-14: a declared
    fall). While the sheet's ``field`` is not null, the commands ``answers``
    settle it, and each command of ``blocks`` (tag → the field naming the
    character that acts in it) is refused with ``refusal`` when that
    character is the one waiting. Clients read it from the catalogue
    (``games.<game>.waits``) to offer the answers first and hide the rest."""

    field: str
    answers: tuple[str, ...]
    blocks: Mapping[str, str]
    refusal: str


CARRIED = "carried"
"""The member of ``Game.public_table``'s ``shared`` memo that the server
keeps from one state to the next (a dict): what a game keeps there it keys
by what it was made from, and reuses only when a later state has the same
(DRYH: an open roll's view, with the roll and the characters in it)."""


class TableState(Protocol):
    """The fields the engine reads from every game's table state."""

    clock: GameClock
    characters: Any
    options: Any


ValidateReach = Literal["reads", "writes", "all"]
"""How far a game's ``validate`` reaches into the command's copy of the table:
``"reads"`` only reads it (DRYH), and is given it as it is without copying a
character; ``"writes"`` reads every character through
:func:`vigil.rules.sharing.peek` and reaches (copies) only one it must
normalize (Hursagmu); ``"all"`` may normalize any (Mettle), and has them all
copied first in one go."""


class Game(Protocol):
    name: str
    table_type: type[Any]
    character_type: type[Any]
    options_type: type[Any]
    commands: tuple[type[Command], ...]
    rule_book: RuleBook
    """Every rule of the game with what the engine does for it (docs/rules/)."""
    pending_choices: Mapping[str, tuple[str, ...]]
    """The choices a resolved roll may leave pending, by kind, with the moves
    each kind allows (DRYH-14/16/20); empty in games without them. Clients
    read them from the catalogue instead of copying them."""
    waits: tuple[Wait, ...]
    """What a character's sheet may hold for its answer (:class:`Wait`);
    empty in games without such a state."""
    # Does ``public_table`` read the characters' sheets (DRYH: the legal
    # moves of an open roll)? Then its view is rebuilt when a sheet changes.
    table_view_reads_sheets: bool
    validate_reach: ValidateReach
    """What ``validate`` does to the characters it walks, so that the engine
    copies (:mod:`vigil.rules.sharing`) no more of them than it must."""

    def new_table(self, options: Mapping[str, Any]) -> Any:
        """A fresh table with validated options (defaults for the rest)."""
        ...

    def validate(self, table: Any) -> None:
        """Raise RuleError if cross-field invariants are broken (after a
        correction, which msgspec has already type-checked)."""
        ...

    def apply(self, table: Any, cmd: Command, ctx: Ctx) -> list[Event]:
        """Apply a game command to ``table`` (already a private copy)."""
        ...

    def due(self, table: Any) -> Iterable[Due]:
        """Every pending timed effect (any time, past or future)."""
        ...

    def fire(self, table: Any, due: Due, ctx: Ctx) -> list[Event]:
        """Apply one due effect; ``table.clock.now`` is already ``due.time``."""
        ...

    def on_combat(self, table: Any, starting: bool, ctx: Ctx) -> list[Event]: ...

    def on_round(self, table: Any, ctx: Ctx) -> list[Event]: ...

    def final_status(self, table: Any, char_id: str) -> str | None:
        """The final status of a character (departed, dead, insane,
        nightmare), or None when it is not in one."""
        ...

    def summary(self, table: Any, char_id: str) -> Summary: ...

    def public_table(
        self,
        table: Any,
        full: frozenset[str],
        status: frozenset[str],
        shared: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Table-level game state for a non-GM viewer who sees the characters
        ``full`` in full and ``status`` by status only (docs/design.md "Visibility");
        characters in neither are hidden from it. Reads the table-level
        state (every field but ``characters``) and which characters exist,
        never a character's sheet: the server reuses it while those stay
        equal. ``shared`` lives as long as ``table`` and is passed to every
        call for it, whoever the viewer: the game may keep there what it
        computes for every viewer alike (DRYH: an open roll's legal moves),
        so that it is computed once per state, not once per viewer; and in
        its :data:`CARRIED` dict what a later state may reuse."""
        ...

    def derived(self, table: Any, char_id: str) -> dict[str, Any]:
        """Values every client needs and none should recompute (penalties,
        effective rattle, dominant pool…), for a viewer who sees the numbers.
        Like ``summary``, reads this character and the table-level state
        (clock, open rolls, options…), never another character: the server
        renders a character again only when one of those has changed."""
        ...

    def render_reads(self, table: Any, char_id: str) -> Any:
        """All that ``summary`` and ``derived`` read of the table-level
        state for this character, as a value compared by equality between
        two states: the server renders the character again only when it,
        its names and visibility, or this value changed. (DRYH: the options
        and the roll it takes part in, so that a roll of others does not
        render every character of the table again.)"""
        ...
