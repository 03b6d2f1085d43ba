"""The DRYH game as the engine sees it: ``SYSTEM``.

DRYH has no timed rules: ``due`` is always empty, so a clock advance only
moves the clock, and combat changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from vigil.rules.commands import Command
from vigil.rules.dryh import coins, consequences, game_session, recovery, roll, view
from vigil.rules.dryh import commands as c
from vigil.rules.dryh import words as _words  # noqa: F401  (registers the templates)
from vigil.rules.dryh.rule_book import RULE_BOOK
from vigil.rules.dryh.state import Character, DryhTable, Options
from vigil.rules.game import Ctx, Due, Summary, ValidateReach, Wait
from vigil.rules.outcome import Event, RuleError, options_refused
from vigil.rules.reference import RuleBook


class DryhSystem:
    name = "dryh"
    table_type: type[Any] = DryhTable
    character_type: type[Any] = Character
    options_type: type[Any] = Options
    commands: tuple[type[Command], ...] = c.COMMANDS
    rule_book: RuleBook = RULE_BOOK
    pending_choices: Mapping[str, tuple[str, ...]] = c.PENDING_CHOICES
    waits: tuple[Wait, ...] = ()
    table_view_reads_sheets: bool = True
    validate_reach: ValidateReach = "reads"

    def new_table(self, options: Mapping[str, Any]) -> DryhTable:
        try:
            opts = msgspec.convert(dict(options), Options)
        except msgspec.ValidationError as exc:
            raise options_refused(exc) from None
        return DryhTable(options=opts)

    def validate(self, table: DryhTable) -> None:
        """Invariants a correction, removal or revive must keep."""
        boxes = table.options.response_boxes
        for cid, ch in table.characters.items():
            if max(ch.fight, ch.flight) > boxes:
                raise RuleError("too_many_checks", char=cid, boxes=boxes)
        seen: set[str] = set()
        for owner, r in table.rolls.items():
            for who in (owner, *r.helpers):
                ch_ = table.characters.get(who)
                if ch_ is None or who in seen:
                    raise RuleError("character_in_roll", char=who)
                if ch_.status == "nightmare" and r.phase != "resolved":
                    raise RuleError("character_in_roll", char=who)
                seen.add(who)
            rolled = r.phase in ("rolled", "adjusted", "resolved")
            if rolled != (r.dice is not None) or rolled != (r.exhaustion_at_roll is not None):
                raise RuleError("bad_roll", char=owner, reason="dice do not match the phase")
            if r.pending and r.phase != "resolved":
                raise RuleError("bad_roll", char=owner, reason="choices pending before resolution")

    def apply(self, table: DryhTable, cmd: Command, ctx: Ctx) -> list[Event]:
        t = table
        match cmd:
            case c.Open():
                return roll.open_(t, cmd)
            case c.Cancel():
                return roll.cancel(t, cmd)
            case c.Declare():
                return roll.declare(t, cmd)
            case c.Help():
                return roll.help_(t, cmd)
            case c.Roll():
                return roll.roll_(t, cmd, ctx.dice)
            case c.DespairSpend():
                return coins.despair_spend(t, cmd)
            case c.HopeImprove():
                return coins.hope_improve(t, cmd)
            case c.Resolve():
                return consequences.resolve(t, cmd)
            case c.Choose():
                return consequences.choose(t, cmd)
            case c.HopeSpend():
                return recovery.hope_spend(t, cmd)
            case c.RecoverDiscipline():
                return recovery.recover_discipline(t, cmd)
            case c.Wake():
                return recovery.wake(t, cmd)
            case c.ClearSnap():
                return recovery.clear_snap(t, cmd)
            case c.SessionStart():
                return game_session.session_start(t)
            case c.SessionEnd():
                return game_session.session_end(t)
        raise RuleError("wrong_system")

    def due(self, table: DryhTable) -> Iterable[Due]:
        return ()

    def fire(self, table: DryhTable, due: Due, ctx: Ctx) -> list[Event]:
        raise RuleError("nothing_due", rule=due.rule)

    def on_combat(self, table: DryhTable, starting: bool, ctx: Ctx) -> list[Event]:
        return []

    def on_round(self, table: DryhTable, ctx: Ctx) -> list[Event]:
        return []

    def final_status(self, table: DryhTable, char_id: str) -> str | None:
        """DRYH-18: a nightmare is the one final state."""
        ch = table.characters.get(char_id)
        return "nightmare" if ch is not None and ch.status == "nightmare" else None

    def summary(self, table: DryhTable, char_id: str) -> Summary:
        return view.summary(table, char_id)

    def derived(self, table: DryhTable, char_id: str) -> dict[str, Any]:
        return view.derived(table, char_id)

    def render_reads(self, table: DryhTable, char_id: str) -> Any:
        return view.render_reads(table, char_id)

    def public_table(
        self,
        table: DryhTable,
        full: frozenset[str],
        status: frozenset[str],
        shared: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Coins and session are public; an open roll shows in full to whoever
        sees its protagonist in full, as dice only to status viewers."""
        return view.public_table(table, full, status, shared)

    def public_roll(self, table: DryhTable, char_id: str) -> dict[str, Any] | None:
        """An open roll's dice for status-visibility viewers (see view.py)."""
        return view.public_roll(table, char_id)


SYSTEM = DryhSystem()
