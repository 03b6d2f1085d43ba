"""Commands about a table itself rather than a game's rules: characters'
names and visibility, the clock anchor, undo, tokens, and the operator's
table management. The rules' own commands live in ``vigil.rules``; the
protocol puts both in one tagged union.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from vigil.auth import TableRole
from vigil.rules.clock import AT
from vigil.rules.commands import CharId, Command, Ident, Sheet, whole

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Notes = Annotated[str, msgspec.Meta(max_length=2000)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=whole("[A-Za-z0-9_-]+"))]
ForeignId = Annotated[str, msgspec.Meta(max_length=64)]
Visibility = Literal["full", "status", "hidden"]
Kind = Literal["pc", "npc"]
SystemName = Literal["dryh", "mettle", "hursagmu"]
Rate = Annotated[float, msgspec.Meta(gt=0, le=1000)]
GameTime = Annotated[float, msgspec.Meta(ge=0, le=1e11), AT]


class CharacterCreate(Command, kw_only=True, tag="character.create"):
    """Add a character: its sheet goes to the rules, the rest is the table's.
    Visibility defaults by kind (docs/design.md "Visibility": full for player
    characters, status for NPCs)."""

    name: Name
    # A form makes the id from the name (the catalogue's ``from`` marker).
    id: Annotated[Ident, msgspec.Meta(extra={"from": "name"})]
    kind: Kind = "pc"
    visibility: Visibility | None = None
    sheet: Sheet = {}
    actor_id: ForeignId | None = None
    token_id: ForeignId | None = None


class CharacterMeta(Command, kw_only=True, tag="character.meta"):
    """Change what is not rules: name, kind, visibility, GM notes, Foundry
    links. Omitted fields stay as they are."""

    char: CharId
    name: Name | None = None
    kind: Kind | None = None
    visibility: Visibility | None = None
    notes: Notes | None = None
    actor_id: ForeignId | None = None
    token_id: ForeignId | None = None


class TableSettings(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The table's own options, the same for every game (the game's rule
    options are its ``options_type``); ``table.options`` sets both. Each
    field's description is what ``docs/rules/README.md`` and the command
    catalogue show."""

    pause_without_gm: Annotated[
        bool,
        msgspec.Meta(
            description="A running clock pauses while no GM is connected, so nobody dies between sessions."
        ),
    ] = True


class TableOptions(Command, kw_only=True, tag="table.options"):
    """Set some of the game's table options (validated by its options type)
    and of the table's own settings."""

    options: Annotated[dict[str, Any], msgspec.Meta(extra={"shape": "options"})]


class ClockPause(Command, kw_only=True, tag="clock.pause"):
    pass


class ClockRun(Command, kw_only=True, tag="clock.run"):
    rate: Rate = 1.0


class ClockSet(Command, kw_only=True, tag="clock.set"):
    """Jump the game clock forward to ``to`` seconds (never backwards)."""

    to: GameTime


class ClockFollow(Command, kw_only=True, tag="clock.follow"):
    """Follow Foundry's world time: from now on only ``clock.world`` moves it."""

    world_time: GameTime


class ClockWorld(Command, kw_only=True, tag="clock.world"):
    """A world-time update from the active GM's Foundry client."""

    world_time: GameTime


class DiceReveal(Command, kw_only=True, tag="dice.reveal"):
    """Reveal the current dice period's seed, so that anyone can verify its
    rolls, and commit to a new period at once (docs/dice.md)."""


class Undo(Command, kw_only=True, tag="undo"):
    """Undo the most recent GM command still undoable (a compensating
    change, never a rewrite of history)."""


class TokenMint(Command, kw_only=True, tag="token.mint"):
    role: TableRole
    chars: Annotated[list[CharId], msgspec.Meta(max_length=32)] = []
    label: Annotated[str, msgspec.Meta(max_length=64)] = ""
    ttl_days: Annotated[float, msgspec.Meta(gt=0, le=3650)] | None = None


class TokenList(Command, kw_only=True, tag="token.list"):
    pass


class TokenRevoke(Command, kw_only=True, tag="token.revoke"):
    token_id: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class KeyRotate(Command, kw_only=True, tag="table.rotate_key"):
    """New signing key: every token of the table dies; the GM gets a new one."""


class HistoryReset(Command, kw_only=True, tag="table.reset_history"):
    """Start a new epoch: the log is emptied, the state kept."""


class TableExport(Command, kw_only=True, tag="table.export"):
    pass


class TableArchive(Command, kw_only=True, tag="table.archive"):
    archived: bool = True


class TableCreate(Command, kw_only=True, tag="table.create"):
    system: SystemName
    name: Name
    id: TableId | None = None
    # The options of the game chosen in ``system`` (the catalogue says so).
    options: Annotated[dict[str, Any], msgspec.Meta(extra={"shape": "options", "game_from": "system"})] = {}


class TableList(Command, kw_only=True, tag="table.list"):
    pass


class TableImport(Command, kw_only=True, tag="table.import"):
    # A whole ``table.export`` result: checked by the import, not by a form.
    document: Annotated[dict[str, Any], msgspec.Meta(extra={"shape": "export"})]
    id: TableId | None = None


class TableDelete(Command, kw_only=True, tag="table.delete"):
    table: TableId


TABLE_COMMANDS: tuple[type[Command], ...] = (
    CharacterCreate,
    CharacterMeta,
    TableOptions,
    ClockPause,
    ClockRun,
    ClockSet,
    ClockFollow,
    ClockWorld,
    DiceReveal,
    Undo,
    TokenMint,
    TokenList,
    TokenRevoke,
    KeyRotate,
    HistoryReset,
    TableExport,
    TableArchive,
)

OPERATOR_COMMANDS: tuple[type[Command], ...] = (TableCreate, TableList, TableImport, TableDelete)
