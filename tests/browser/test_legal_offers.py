"""Only moves the server would accept are offered (issue 22), for the GM
and a player, in every game, in real Chromium against a real ``vigil
serve``: a scripted scene of each game, and after each step

- every command the page offers (core/offers.js over the view's
  ``legal``, as the GM's "Act on" panel and the Foundry window draw them)
  is one the server accepts now: the table is exported and the offered
  body, filled as the form would be, is put to the rules' own engine on a
  copy of that state (vigil.rules.legal.accepts); a move whose free values
  the person gives (an amount) must at least be legal now for the server;
- no command the server would accept for that viewer is missing from the
  page's offers (vigil.rules.legal.legal_moves narrowed by permissions:
  vigil.moves.audience_moves).

Rules named in the scene: DRYH-01/02/03/04/09/21 (open, declare, help,
roll, hope, resolve), MET-07/11/13/17 (pain, dying, rattle, rest), HUR-04/
11/14 (harm, heal, a declared fall).
"""

from __future__ import annotations

from typing import Any

import msgspec
from tests.browser.test_dashboard import open_live
from tests.browser.test_session import new_table, no_page_errors
from tests.support.commands import ws_command
from tests.support.server import ServerProcess

from vigil.moves import audience_moves
from vigil.rules import legal
from vigil.rules.games import GAMES

SCENES: dict[str, tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]] = {
    "dryh": (
        {"alice": {"discipline": 3}, "bob": {"discipline": 2}},
        [
            {"type": "dryh.session_start"},
            {"type": "dryh.open", "char": "alice", "pain": 4, "kind": "nightmare"},
            {"type": "dryh.cancel", "char": "alice"},
            {"type": "dryh.open", "char": "alice", "pain": 4},
            {"type": "dryh.declare", "char": "alice", "madness": 1},
            {"type": "dryh.help", "char": "alice", "helper": "bob"},
            {"type": "dryh.roll", "char": "alice"},
            {"type": "dryh.resolve", "char": "alice"},
        ],
    ),
    "mettle": (
        {"ysolde": {"mettle": 5, "kits": {"bandages": 2}}, "brannoc": {"mettle": 3}},
        [
            {"type": "mettle.rattle", "char": "ysolde", "amount": 2},
            {"type": "mettle.injury_add", "char": "ysolde", "label": "Cut arm", "penalty": 1},
            {"type": "mettle.pain", "char": "brannoc", "amount": 5, "lot": "plain"},
            {"type": "mettle.rest_start", "char": "ysolde"},
            {"type": "mettle.pain", "char": "ysolde", "amount": 30, "lot": "plain"},
        ],
    ),
    "hursagmu": (
        {"uruk": {"traits": {"constitution": 2, "athlete": 1, "healer": 2}}, "juk": {}},
        [
            {"type": "hursagmu.harm", "char": "juk", "stuns": 2, "wounds": 1},
            {"type": "hursagmu.fall", "char": "uruk", "spaces": 3},
            {"type": "hursagmu.take_fall", "char": "uruk"},
        ],
    ),
}

# Every offer of the page for every character and the table, as the page's
# own client library makes it (the GM's "Act on" panel and the Foundry
# window alike), only for the commands whose legality the view publishes.
OFFERS_JS = """async (viewer) => {
  const { characterOffers, tableOffers } = await import('/client/core/offers.js');
  const { subjectField } = await import('/client/core/forms.js');
  const { CATALOGUE } = await import('/client/core/catalogue.js');
  const state = window.vigil.state;
  const out = [];
  for (const char of Object.keys(state.characters)) {
    for (const o of characterOffers(CATALOGUE, state, char, viewer)) {
      if (!o.entry.legal) continue;
      const subject = subjectField(o.entry)?.name;
      const body = { type: o.entry.type, ...o.values };
      if (o.char && subject) body[subject] = o.char;
      out.push({ body, subject: subject ? body[subject] : null, choices: o.choices });
    }
  }
  for (const o of tableOffers(CATALOGUE, state, viewer)) {
    if (o.entry.legal) out.push({ body: { type: o.entry.type, ...o.values }, subject: null, choices: {} });
  }
  return out;
}"""


def _filled(move: legal.Move, offered: dict[str, Any]) -> list[dict[str, Any]]:
    """The server's accepted bodies of ``move`` that agree with what the
    page prefilled: the ones a person could send from that form."""
    return [b for b in move.bodies if all(b.get(k, v) == v for k, v in offered.items())]


async def _check(
    server: ServerProcess, system: str, table: str, gm_token: str, page: Any, role: str, own: frozenset[str]
) -> set[tuple[str, str | None]]:
    """Compare the page's offers with the server's verdict now; what the
    page offers, as (command, subject)."""
    export = await ws_command(server, gm_token, {"type": "table.export"}, table)
    doc = export["result"]["doc"]
    game = GAMES[system]
    state = msgspec.convert(doc["state"], game.table_type)
    moves = legal.legal_moves(game, state)
    seen = [
        cid
        for cid, meta in doc["meta"].items()
        if role == "gm" or cid in own or meta.get("visibility") != "hidden"
    ]
    allowed = audience_moves(game, moves, role, own, seen)
    by_key = {(m.tag, m.subject): m for m in moves}
    viewer = {"role": role, "own": sorted(own)}
    offers = await page.evaluate(OFFERS_JS, viewer)
    offered_keys = set()
    for offer in offers:
        body = offer["body"]
        key = (body["type"], offer["subject"])
        offered_keys.add(key)
        move = by_key.get(key)
        assert move is not None, f"{system} {role}: offered but refused by the rules now: {body}"
        where = allowed["table"] if offer["subject"] is None else allowed["chars"].get(offer["subject"], {})
        assert body["type"] in where, f"{system} {role}: offered but not this viewer's to send: {body}"
        if move.verdict == legal.ACCEPTED:
            sendable = _filled(move, {k: v for k, v in body.items() if k != "type"})
            assert sendable, (
                f"{system} {role}: the form's values are refused: {body} (accepted: {move.bodies})"
            )
            assert legal.accepts(game, state, sendable[0]) is None, (system, role, sendable[0])
    wanted = {(tag, None) for tag in allowed["table"]} | {
        (tag, cid) for cid, tags in allowed["chars"].items() for tag in tags
    }
    missing = sorted(wanted - offered_keys, key=str)
    assert not missing, (
        f"{system} {role}: the server would accept these, the page does not offer them: {missing}"
    )
    return offered_keys


async def test_every_offered_move_is_accepted_and_none_is_missing(
    vigil_server: ServerProcess, new_page: Any
) -> None:
    for system, (chars, steps) in SCENES.items():
        table = f"legal-{system}"
        tokens = await new_table(vigil_server, system, table, chars)
        gm = await new_page(1440, 900)
        player = await new_page(390, 844)
        await open_live(gm, f"{vigil_server.url}/#token={tokens['gm']}")
        await open_live(player, f"{vigil_server.url}/#token={tokens['player']}")
        own = frozenset({next(iter(chars))})
        checked = 0
        for body in [None, *steps]:
            if body is not None:
                reply = await ws_command(vigil_server, tokens["gm"], body, table)
                assert reply["type"] == "ack", (body, reply)
                for page in (gm, player):
                    await page.wait_for_function("(r) => window.vigil.rev >= r", arg=reply["rev"])
            # The page asks for its legal moves once the table is quiet (core/client.js).
            for page in (gm, player):
                await page.wait_for_function("() => window.vigil.legalRev === window.vigil.rev")
            offered = await _check(vigil_server, system, table, tokens["gm"], gm, "gm", frozenset())
            mine = await _check(vigil_server, system, table, tokens["gm"], player, "player", own)
            checked += len(offered) + len(mine)
            # The moves users found offered, then refused (issue 22):
            if body == {"type": "dryh.open", "char": "alice", "pain": 4, "kind": "nightmare"}:
                assert ("dryh.help", "alice") not in offered, "help on a nightmare challenge (DRYH-03)"
            if system == "dryh" and body is not None and body["type"] == "dryh.roll":
                assert ("dryh.hope_improve", "alice") not in offered, "hope with no coin (DRYH-09)"
            if system == "mettle" and body is not None and body.get("amount") == 30:
                assert not {t for t, c in offered if c == "ysolde"} & {
                    "mettle.effort",
                    "mettle.shake_off",
                    "mettle.check",
                    "mettle.rest_start",
                }, "a dying character's own actions (MET-07)"
        assert checked > 0, system
        no_page_errors(gm, player)
