"""The server renders views incrementally (only changed characters, parts
shared by identity between revs and between audiences, one diff per
distinct sight). Whatever it does, every audience's patch must take its
previous view to exactly the view built from scratch, and the table
document must stay exactly ``to_builtins`` of the rules' state."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from tests.support.fresh_view import fresh_view
from tests.support.json_docs import exact

from bench import workload
from vigil import treepatch
from vigil.config import Config
from vigil.net.fanout import encode
from vigil.protocol import command_decoder
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError
from vigil.table import Table
from vigil.table_views import AudiencePatch
from vigil.views import GM_AUDIENCE, PUBLIC_AUDIENCE, Audience

GM = Actor(id="gm#t", role="gm")


def _plain(value: Any) -> bytes:
    return msgspec.json.encode(value)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, member order aside (a patch's ``add`` appends), with
    ``1``, ``1.0`` and ``true`` told apart."""
    return exact(a) == exact(b)


def _follow(table: Table, patches: list[AudiencePatch], shadow: dict[str, Any]) -> None:
    """Encode the new rev's patches as the server does; apply each
    audience's patch to its client-side copy."""
    _rev, messages = encode(table, patches)
    for key, message in messages.items():
        shadow[key] = treepatch.apply_tree(shadow[key], msgspec.json.decode(message)["changes"])


def test_patches_take_every_audience_to_the_fresh_view() -> None:
    rng = random.Random(1)
    dice = RandomDice(seed=2)
    wall = 1_000_000.0
    for system in ("dryh", "mettle", "hursagmu"):
        table = Table.new("t", GAMES[system], "T", {}, wall, undo_depth=Config().undo_depth)
        audiences = [GM_AUDIENCE, PUBLIC_AUDIENCE] + [
            Audience("player", frozenset({f"c{j}"})) for j in range(3)
        ]
        shadow = {a.key: msgspec.json.decode(_plain(table.watch(a))) for a in audiences}
        local: dict[str, workload.CharLocal] = {}
        bodies: list[dict[str, Any]] = [
            {
                "type": "character.create",
                "id": f"c{j}",
                "name": f"C{j}",
                "kind": "pc" if j < 3 else "npc",
                "sheet": workload.SHEETS[system],
            }
            for j in range(4)
        ]
        if system != "dryh":
            bodies.append({"type": "clock.run", "rate": 30.0})
        for i in range(400):
            if i >= len(bodies):
                view = table.view(GM_AUDIENCE)
                cats = [c for c, (_w, systems, _d) in workload.MIX.items() if system in systems]
                cat = rng.choice(cats)
                char = f"c{rng.randrange(4)}"
                if cat == "clock_combat":
                    body = workload.table_command(view, local.setdefault("", workload.CharLocal()))
                else:
                    body = workload.choose(
                        cat, system, char, True, view, local.setdefault(char, workload.CharLocal())
                    ).body
                if i % 23 == 0:
                    body = {
                        "type": "character.meta",
                        "char": char,
                        "visibility": rng.choice(["full", "status", "hidden"]),
                    }
                bodies.append(body)
            wall += 7.0
            ctx = Ctx(dice=dice, actor=GM, max_effects=100_000)
            due = table.advance(wall, ctx)
            if due is not None:
                _follow(table, table.commit(due), shadow)
            try:
                change = table.prepare(command_decoder.decode(_plain(bodies[i])), wall, ctx)
            except RuleError:
                change = None
            if change is not None:
                _follow(table, table.commit(change), shadow)
            assert _plain(table.doc["state"]) == _plain(msgspec.to_builtins(table.state))
            for audience in audiences:
                fresh = fresh_view(table, audience)
                assert _same(shadow[audience.key], fresh), (system, i, audience.key)
                assert _plain(table.seen_by(audience)) == _plain(fresh), (system, i, audience.key)
