"""What each audience may see of a table (DESIGN "Visibility").

A view is built from the table once per audience — the GM, each distinct
set of player characters, and the public (spectators) — never once per
connection. Fields an audience may not see are never put into its view, so
they can reach it neither in a snapshot nor in a patch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from vigil.anchor import Anchor
from vigil.rules.system import System

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


class CharacterRender:
    """A character's renders, computed once per change and shared by every
    audience: the full one (sheet + derived numbers) and the status one."""

    def __init__(self, system: System, state: Any, char_id: str, meta: dict[str, Any]) -> None:
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
        self.visibility: str = base["visibility"]
        self.status: dict[str, Any] = base
        self.full: dict[str, Any] = {
            **base,
            "sheet": msgspec.to_builtins(state.characters[char_id]),
            "derived": system.derived(state, char_id),
        }
        self.gm: dict[str, Any] = {**self.full, "notes": meta.get("notes", "")}


def renders(system: System, state: Any, meta: dict[str, dict[str, Any]]) -> dict[str, CharacterRender]:
    return {cid: CharacterRender(system, state, cid, meta.get(cid, {})) for cid in state.characters}


def build_view(
    audience: Audience,
    *,
    table_id: str,
    name: str,
    system: System,
    state: Any,
    chars: dict[str, CharacterRender],
    anchor: Anchor,
    settings: dict[str, Any],
) -> dict[str, Any]:
    is_gm = audience.kind == GM
    characters: dict[str, Any] = {}
    for cid, render in chars.items():
        if is_gm:
            characters[cid] = render.gm
        elif cid in audience.chars or render.visibility == "full":
            characters[cid] = render.full
        elif render.visibility == "status":
            characters[cid] = render.status
    # The game decides what of its table-level state a viewer sees (DRYH:
    # coins, and open rolls per the protagonist's visibility); the GM gets
    # the same shape with every character seen in full.
    full = frozenset(c for c, v in characters.items() if "sheet" in v)
    game = system.public_table(state, full, frozenset(characters) - full)
    view: dict[str, Any] = {
        "table": table_id,
        "name": name,
        "system": system.name,
        "clock": {
            "mode": anchor.mode,
            "rate": anchor.rate,
            "game": anchor.game,
            "wall": anchor.wall,
            "in_combat": state.clock.in_combat,
            "round": state.clock.round,
        },
        "characters": characters,
        "game": game,
    }
    if is_gm:
        view["options"] = msgspec.to_builtins(state.options)
        view["settings"] = dict(settings)
    return view
