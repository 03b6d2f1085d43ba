"""A table's views: built for its current state, kept for the audiences
watching it, and patched from rev to rev (what each audience may see is
:mod:`vigil.views`).

Rendering is incremental, because it runs on every change: a character is
rendered again only when its sheet, its meta or the table-level state
changed; the game's table-level view is reused while the table-level state
and the set of characters stay equal; audiences that see the table alike
share one view object, so one diff and one encoding serve them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vigil import treepatch
from vigil.clock_anchor import Anchor
from vigil.moves import view_legal
from vigil.rules.game import CARRIED, Game
from vigil.rules.legal import Move, legal_moves
from vigil.views import (
    GM,
    Audience,
    CharacterRender,
    GameViews,
    Previous,
    build_view,
    clock_view,
    renders,
    same_or,
    same_table_level,
)


@dataclass
class AudiencePatch:
    """The changes (a :mod:`~vigil.treepatch` tree) that take one view to
    the next rev, and every audience that gets exactly them (audiences that
    saw the same view and see the new one alike): encoded once, sent to all
    of them."""

    keys: list[str]
    changes: treepatch.Tree


def _seen_as(render: CharacterRender, own: bool) -> str:
    """How a viewer sees one character: "o" as its own player (full, with
    what is GM-only to others), "f" in full, "s" by status, "-" not at all.
    A character's own player sees it as a full-visibility viewer does when
    its full render is its public one (nothing GM-only in it): then the
    sights, and so the views, of its player and of the spectators are one,
    rendered and diffed once for all of them."""
    if render.visibility == "full" and (not own or render.full is render.public):
        return "f"
    if own:
        return "o"
    return "s" if render.visibility == "status" else "-"


class TableViews:
    """The views of one table (owned by its :class:`~vigil.table.Table`,
    which tells it every state it moves to)."""

    def __init__(self, table_id: str, system: Game) -> None:
        self.table_id = table_id
        self.system = system
        self._name = ""
        self._state: Any = None
        self._meta: dict[str, Any] = {}
        self._anchor = Anchor()
        self._settings: dict[str, Any] = {}
        self._undo: dict[str, Any] | None = None
        self._dice: dict[str, Any] | None = None
        self._renders: dict[str, CharacterRender] | None = None
        # Each audience's sight of those renders (by audience key), made
        # once per state however many times it is asked.
        self._sights: dict[str, tuple[str, ...]] = {}
        # How a viewer who plays none of them sees the characters, and
        # where each is in it: a player's sight differs from it at most at
        # its own characters, so it is made from it in their number of steps.
        self._others: tuple[str, ...] | None = None
        self._index: dict[str, int] = {}
        # What the renders were made from before the last change, so that
        # the next ones rebuild only what changed (see renders).
        self._previous: Previous | None = None
        self._games: GameViews = {}
        self._old_games: GameViews = {}
        # The game's memo for the current state, shared by every viewer's
        # table-level view of it (Game.public_table's ``shared``).
        self._shared: dict[str, Any] = {}
        self._clock: dict[str, Any] | None = None
        self._old_clock: dict[str, Any] | None = None
        # The rules' legal moves in the current state (the same for every
        # audience; each view shows its share): made when first asked.
        self._moves: list[Move] | None = None
        # The audiences watching, and the view each was sent last (by key).
        self._audiences: dict[str, Audience] = {}
        self._sent: dict[str, dict[str, Any]] = {}

    def load(
        self,
        state: Any,
        meta: dict[str, Any],
        anchor: Anchor,
        name: str,
        settings: dict[str, Any],
        undo: dict[str, Any] | None = None,
        dice: dict[str, Any] | None = None,
    ) -> None:
        """The table is now at ``state`` (with these names and visibility,
        clock anchor, name, settings, what an undo would take back and the
        public part of its dice period); what can be reused is kept."""
        previous = self._state
        if previous is not None and self._renders is not None:
            self._previous = (previous, self._meta, self._renders)
        old_games, self._games = self._games, {}
        if (
            previous is not None
            and old_games
            and previous.characters.keys() == state.characters.keys()
            and same_table_level(previous, state)
            and (not self.system.table_view_reads_sheets or previous.characters == state.characters)
        ):
            # The game's table-level view depends on the table-level state
            # and on which characters exist (and, where the game says so, on
            # their sheets), nothing else.
            self._games = old_games
        elif old_games:
            self._old_games = old_games
        if state is not previous:
            self._shared = {CARRIED: self._shared.get(CARRIED, {})}
            self._moves = None
        self._state, self._meta, self._anchor = state, meta, anchor
        self._name, self._settings = name, settings
        self._undo = same_or(undo, self._undo)
        self._dice = dice
        self._renders = None
        self._sights = {}
        self._others = None
        if self._clock is not None:
            self._old_clock, self._clock = self._clock, None

    # -- the current state ---------------------------------------------------

    def sight(self, audience: Audience) -> tuple[str, ...]:
        """What ``audience`` sees of each character (gm, full, status or
        nothing): audiences with equal sights get equal views."""
        if audience.kind == GM:
            return ("gm",)
        key = audience.key
        sight = self._sights.get(key)
        if sight is not None:
            return sight
        renders = self._current_renders()
        if self._others is None:
            self._others = tuple(_seen_as(r, False) for r in renders.values())
            self._index = {cid: i for i, cid in enumerate(renders)}
        sight = self._others
        for cid in audience.chars:
            i = self._index.get(cid)
            if i is not None and (mine := _seen_as(renders[cid], True)) != sight[i]:
                sight = (*sight[:i], mine, *sight[i + 1 :])
        self._sights[key] = sight
        return sight

    def _plays(self, audience: Audience) -> bool:
        """Whether ``audience`` is a player with a character at the table
        (one without sees what the spectators see, and sends nothing)."""
        return audience.kind == "player" and any(c in self._state.characters for c in audience.chars)

    def view(self, audience: Audience) -> dict[str, Any]:
        """``audience``'s view of the current state."""
        chars = self._current_renders()
        if self._clock is None:
            self._clock = same_or(clock_view(self._anchor, self._state), self._old_clock)
        return build_view(
            audience,
            table_id=self.table_id,
            name=self._name,
            system=self.system,
            state=self._state,
            chars=chars,
            anchor=self._anchor,
            settings=self._settings,
            undo=self._undo,
            dice=self._dice,
            games=self._games,
            old_games=self._old_games,
            clock=self._clock,
            shared=self._shared,
        )

    def legal(self, audience: Audience) -> dict[str, Any] | None:
        """What ``audience`` is offered now (:func:`vigil.moves.view_legal`),
        from the rules' legal moves of this state, made once for all who
        ask. Not part of the view: finding the legal moves puts a few
        hundred candidate commands to the rules (tens of milliseconds), far
        more than a change costs, so it is made only when a page asks
        (the ``legal`` request), once per state."""
        if audience.kind != GM and not self._plays(audience):
            return None
        if self._moves is None:
            self._moves = legal_moves(self.system, self._state)
        return view_legal(self.system, self._moves, audience, self._current_renders())

    def _current_renders(self) -> dict[str, CharacterRender]:
        if self._renders is None:
            self._renders = renders(self.system, self._state, self._meta, self._previous)
            self._previous = None
        return self._renders

    # -- the views sent ------------------------------------------------------

    def watch(self, audience: Audience) -> dict[str, Any]:
        """The view ``audience`` was sent, from now on patched at every
        commit; its current view if it was not watching yet."""
        key = audience.key
        sent = self._sent.get(key)
        if sent is None:
            sent = self._sent[key] = self.view(audience)
            self._audiences[key] = audience
        return sent

    def seen_by(self, audience: Audience) -> dict[str, Any]:
        """What ``audience`` sees: the view it was sent when it is watching,
        else its view of the current state."""
        sent = self._sent.get(audience.key)
        return self.view(audience) if sent is None else sent

    def forget(self, key: str) -> None:
        """Stop keeping the view of the audience with ``key``."""
        self._sent.pop(key, None)
        self._audiences.pop(key, None)

    def patches(self) -> list[AudiencePatch]:
        """The patches taking every watched audience to the current state;
        each audience gets one even with no changes, so that a client's revs
        are gapless and a gap always means a lost patch.

        One view, one diff per distinct (previous view, sight): the memo
        diffs each pair of objects that several views share once. ``olds``
        keeps every previous view alive until the end, so that no id() in
        the keys is reused meanwhile."""
        olds = dict(self._sent)
        memo: treepatch.Memo = {}
        built: dict[tuple[str, ...], dict[str, Any]] = {}
        made: dict[tuple[int, tuple[str, ...]], AudiencePatch] = {}
        out: list[AudiencePatch] = []
        for key, old in olds.items():
            audience = self._audiences[key]
            sight = self.sight(audience)
            view = built.get(sight)
            if view is None:
                view = built[sight] = self.view(audience)
            patch = made.get((id(old), sight))
            if patch is None:
                patch = made[(id(old), sight)] = AudiencePatch([], treepatch.diff_tree(old, view, memo))
                out.append(patch)
            patch.keys.append(key)
            self._sent[key] = view
        return out

    def resend(self) -> None:
        """Every watched audience's view anew (they are sent snapshots)."""
        for key, audience in self._audiences.items():
            self._sent[key] = self.view(audience)

    def sent(self) -> dict[str, dict[str, Any]]:
        """The views sent, by audience key (to restore after a rollback)."""
        return dict(self._sent)

    def restore(self, sent: dict[str, dict[str, Any]]) -> None:
        """Back to the views ``sent`` (from :meth:`sent`): nothing made
        since was sent. An audience that started watching since gets its
        view of the (restored) current state."""
        for key, audience in self._audiences.items():
            view = sent.get(key)
            self._sent[key] = self.view(audience) if view is None else view
