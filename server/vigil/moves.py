"""The moves each audience is offered: the rules' legal moves
(:func:`vigil.rules.legal.legal_moves`, the same for everyone, computed
once per state) narrowed to what this viewer may send
(:mod:`vigil.permissions`, the table the server checks every command
against) and may name (a player only characters it sees).

The view carries it as ``legal`` (the GM's and each player's; spectators
send nothing): ``{"table": {tag: offer}, "chars": {char: {tag: offer}}}``,
a character's entry keyed by the command's subject (the character it acts
on). An offer is ``1`` (accepted as the form's defaults make it), ``0``
(legal now if the values the person gives are: the form decides, within
the bounds it knows) or a list of the accepted variants, each the fields
beyond the subject that were varied ({"helper": "b", "leave": false}).
Kept small on purpose: the view is diffed at every change, and a move
appears or goes as one member of one character.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from vigil import permissions
from vigil.rules.game import Game
from vigil.rules.legal import ACCEPTED, Move, commands_of, subject_field, tag_of
from vigil.views import GM, Audience, CharacterRender


def view_legal(
    system: Game, moves: Iterable[Move], audience: Audience, chars: dict[str, CharacterRender]
) -> dict[str, Any] | None:
    """The ``legal`` of ``audience``'s view: the GM's over every character,
    a player's over those it sees (its own, and the others not hidden);
    None for spectators and players without a character here, who send
    nothing."""
    if audience.kind == GM:
        return audience_moves(system, moves, "gm", frozenset(), chars.keys())
    if audience.kind != "player" or not any(c in chars for c in audience.chars):
        return None
    seen = [cid for cid, r in chars.items() if cid in audience.chars or r.visibility != "hidden"]
    return audience_moves(system, moves, "player", audience.chars, seen)


def audience_moves(
    system: Game, moves: Iterable[Move], role: str, own: frozenset[str], seen: Collection[str]
) -> dict[str, Any]:
    """``legal`` for a viewer of role ``role`` (gm or player) bound to
    ``own``, who sees the characters ``seen``."""
    subjects = _subject_fields(system)
    table: dict[str, Any] = {}
    chars: dict[str, dict[str, Any]] = {}
    for move in moves:
        if move.subject is not None and move.subject not in seen:
            continue
        offer = _offer(move, role, own, seen, subjects.get(move.tag))
        if offer is None:
            continue
        if move.subject is None:
            table[move.tag] = offer
        else:
            chars.setdefault(move.subject, {})[move.tag] = offer
    return {"table": table, "chars": chars}


def _offer(
    move: Move, role: str, own: frozenset[str], seen: Collection[str], subject: str | None
) -> int | list[dict[str, Any]] | None:
    def may(body: dict[str, Any]) -> bool:
        if not permissions.allowed(role, own, move.tag, body):
            return False
        return role != "player" or permissions.may_target(own, body, seen)

    if move.verdict != ACCEPTED and move.variants:
        near = [v for v, b in zip(move.variants, move.bodies, strict=True) if may(b)]
        return near if near and any(near) else (move.verdict if near else None)
    if move.verdict != ACCEPTED:
        body: dict[str, Any] = {"type": move.tag}
        if subject is not None:
            body[subject] = move.subject
        return move.verdict if may(body) else None
    kept = [v for v, b in zip(move.variants, move.bodies, strict=True) if may(b)]
    if not kept:
        return None
    if all(not v for v in kept):
        return ACCEPTED
    return kept


def _subject_fields(system: Game) -> dict[str, str | None]:
    return {tag_of(c): subject_field(c) for c in commands_of(system)}
