"""What each audience may see of a table (docs/design.md "Visibility").

A view is built from the table once per audience — the GM, each distinct
set of player characters, and the public (spectators) — never once per
connection. Fields an audience may not see are never put into its view, so
they can reach it neither in a snapshot nor in a patch. The views a table
keeps for its audiences, and the patches between them, are
:mod:`vigil.table_views`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from vigil.clock_anchor import Anchor
from vigil.rules.game import Game

GM = "gm"
PUBLIC = "public"


@dataclass(frozen=True)
class Audience:
    """``kind`` gm / player / public; a player audience is its character set."""

    kind: str
    chars: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        if self.kind == "player":
            return "player:" + ",".join(sorted(self.chars))
        return self.kind


GM_AUDIENCE = Audience(GM)
PUBLIC_AUDIENCE = Audience(PUBLIC)


@dataclass(frozen=True)
class Viewer:
    """Who reads a table: a token's role and, for a player, the characters
    it is bound to. What it may see and read (views, history) and send
    (permissions) is a function of this alone, never of a connection."""

    role: str
    chars: frozenset[str] = frozenset()

    @property
    def audience(self) -> Audience:
        """The view it is sent: the GM's, its characters' or the public one
        (spectators; the operator reads no table)."""
        if self.role == "gm":
            return GM_AUDIENCE
        if self.role == "player":
            return Audience("player", self.chars)
        return PUBLIC_AUDIENCE


# Sheet fields that only the GM and the character's own player see.
GM_ONLY_SHEET_FIELDS = ("kits",)


class CharacterRender:
    """A character's renders, computed once per change and shared by every
    audience: the full one (sheet + derived numbers) and the status one.

    Given the character's ``old`` render, every part equal to the old one
    (status, sheet, derived, and the wholes) *is* the old object, so that
    diffing a view against the previous one skips it by identity."""

    def __init__(
        self,
        system: Game,
        state: Any,
        char_id: str,
        meta: dict[str, Any],
        old: CharacterRender | None = None,
    ) -> None:
        summary = system.summary(state, char_id)
        base = {
            "name": meta.get("name", char_id),
            "kind": meta.get("kind", "pc"),
            "visibility": meta.get("visibility", "full"),
            "actor_id": meta.get("actor_id"),
            "token_id": meta.get("token_id"),
            "badges": list(summary.badges),
            "countdowns": msgspec.to_builtins(summary.countdowns),
        }
        sheet = msgspec.to_builtins(state.characters[char_id])
        derived = system.derived(state, char_id)
        if old is not None:
            base = same_or(base, old.status)
            sheet = same_or(sheet, old.full["sheet"])
            derived = same_or(derived, old.full["derived"])
        self.visibility: str = base["visibility"]
        self.status: dict[str, Any] = base
        # ``full`` is what the GM and the character's own player see;
        # ``public`` is the same for everyone else with full visibility, less
        # the GM-only contents of the sheet (docs/design.md "Visibility": kit contents).
        self.full: dict[str, Any] = {**base, "sheet": sheet, "derived": derived}
        self.gm: dict[str, Any] = {**self.full, "notes": meta.get("notes", "")}
        if old is not None:
            self.full = same_or(self.full, old.full)
            self.gm = same_or(self.gm, old.gm)
        # With nothing GM-only in the sheet (an empty kit list hides
        # nothing), ``public`` *is* ``full``: the character's own player
        # then sees it as everyone else does, and the views of the table's
        # players and spectators can be one view (TableViews.sight).
        hidden = [k for k in GM_ONLY_SHEET_FIELDS if sheet.get(k)]
        self.public: dict[str, Any] = self.full
        if hidden:
            public_sheet = {k: v for k, v in sheet.items() if k not in hidden}
            self.public = {**base, "sheet": public_sheet, "derived": derived}
            if old is not None:
                self.public = same_or(self.public, old.public)


_encode = msgspec.json.Encoder().encode


def same_or(new: Any, old: Any) -> Any:
    """``old`` if it is the same JSON as ``new`` (strictly: ``1``, ``1.0``
    and ``true`` differ, as they do for the diff), else ``new``. Python's
    equality answers most cases at once (unequal: ``new``); only values it
    calls equal are encoded, to tell ``1`` from ``1.0`` and ``true``."""
    if new is old:
        return old
    if new != old:
        return new
    return old if _encode(new) == _encode(old) else new


def share_equal(new: dict[str, Any], old: dict[str, Any], depth: int = 2) -> dict[str, Any]:
    """``new`` with each member (down to ``depth`` levels of objects) that
    is the same JSON as ``old``'s replaced by ``old``'s object (told by
    :func:`same_or`: only members Python calls equal are encoded)."""
    if new is old:
        return new
    for key, value in new.items():
        if key not in old:
            continue
        prior = old[key]
        kept = same_or(value, prior)
        if kept is prior:
            new[key] = prior
        elif depth > 1 and type(value) is dict and type(prior) is dict:
            share_equal(value, prior, depth - 1)
    return new


Previous = tuple[Any, dict[str, Any], dict[str, CharacterRender]]
# The game's table-level views of one state, by the (full, status) sets of
# characters a viewer sees.
GameViews = dict[tuple[frozenset[str], frozenset[str]], dict[str, Any]]


def renders(
    system: Game,
    state: Any,
    meta: dict[str, dict[str, Any]],
    previous: Previous | None = None,
) -> dict[str, CharacterRender]:
    """Every character's render. With ``previous`` (the state, meta and
    renders of an earlier rev) a character is rendered again only if its
    sheet, its meta or the table-level state changed: a render depends on
    nothing else (a game's ``summary`` and ``derived`` read the character
    and what the game says they read of the table-level state
    (``Game.render_reads``), never another character)."""
    if previous is None:
        return {cid: CharacterRender(system, state, cid, meta.get(cid, {})) for cid in state.characters}
    old_state, old_meta, old_renders = previous
    same_table = same_table_level(old_state, state)
    out: dict[str, CharacterRender] = {}
    for cid, char in state.characters.items():
        own = meta.get(cid, {})
        old = old_renders.get(cid)
        if old is not None:
            prior = old_state.characters.get(cid)
            if (
                (prior is char or prior == char)
                and old_meta.get(cid, {}) == own
                and (same_table or system.render_reads(old_state, cid) == system.render_reads(state, cid))
            ):
                out[cid] = old
                continue
        out[cid] = CharacterRender(system, state, cid, own, old)
    return out


def same_table_level(old: Any, new: Any) -> bool:
    """The same game and equal in every field but the characters: what a
    character's render and the game's table-level view read besides the
    character itself."""
    return type(old) is type(new) and all(
        getattr(old, name) == getattr(new, name) for name in new.__struct_fields__ if name != "characters"
    )


def clock_view(anchor: Anchor, state: Any) -> dict[str, Any]:
    """The clock as every audience sees it: the anchor and the combat round."""
    return {
        "mode": anchor.mode,
        "rate": anchor.rate,
        "game": anchor.game,
        "wall": anchor.wall,
        "in_combat": state.clock.in_combat,
        "round": state.clock.round,
    }


def build_view(
    audience: Audience,
    *,
    table_id: str,
    name: str,
    system: Game,
    state: Any,
    chars: dict[str, CharacterRender],
    anchor: Anchor,
    settings: dict[str, Any],
    undo: dict[str, Any] | None = None,
    dice: dict[str, Any] | None = None,
    games: GameViews | None = None,
    old_games: GameViews | None = None,
    clock: dict[str, Any] | None = None,
    shared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``games`` memoizes the game's table-level view per (full, status)
    character sets for one state: audiences that see the same characters
    the same way share it. ``old_games`` are those of the previous state,
    whose equal parts the new ones share (see :func:`share_equal`).
    ``shared`` is the game's own memo for this state (``Game.public_table``).
    ``undo`` is what the GM's undo would take back now (the GM's alone, as
    the history's commands are). ``dice`` is the dice period's public part
    (its commitment, never its seed), the same for every audience."""
    is_gm = audience.kind == GM
    characters: dict[str, Any] = {}
    for cid, render in chars.items():
        if is_gm:
            characters[cid] = render.gm
        elif cid in audience.chars:
            characters[cid] = render.full
        elif render.visibility == "full":
            characters[cid] = render.public
        elif render.visibility == "status":
            characters[cid] = render.status
    # The game decides what of its table-level state a viewer sees (DRYH:
    # coins, and open rolls per the protagonist's visibility); the GM gets
    # the same shape with every character seen in full.
    full = frozenset(c for c, v in characters.items() if "sheet" in v)
    status = frozenset(characters) - full
    if games is None:
        game = system.public_table(state, full, status, shared)
    else:
        key = (full, status)
        memo = games.get(key)
        if memo is None:
            memo = system.public_table(state, full, status, shared)
            if old_games and key in old_games:
                memo = share_equal(memo, old_games[key])
            games[key] = memo
        game = memo
    view: dict[str, Any] = {
        "table": table_id,
        "name": name,
        "system": system.name,
        "clock": clock_view(anchor, state) if clock is None else clock,
        "characters": characters,
        "game": game,
    }
    if dice is not None:
        view["dice"] = dice
    if is_gm:
        view["options"] = msgspec.to_builtins(state.options)
        view["settings"] = dict(settings)
        view["undo"] = undo
    return view
