"""The legal moves (vigil.rules.legal) against the engine itself, over
random states of each game reached by random play: every move offered as
accepted is applied by the engine, and every random command the engine
applies was offered (DRYH-03/07/09/14/21, MET-11/20, HUR-11/14 among the
rules this reaches: help, coins, choices, failure consequences, dying and
final states, healers and falls)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.rules import engine, legal
from vigil.rules.commands import AddCharacter, Command, Correct
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx, Game
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError

GM = Actor(id="gm", role="gm")

SHEETS: dict[str, dict[str, dict[str, Any]]] = {
    "dryh": {
        "a": {"discipline": 1, "madness": 2, "exhaustion": 6, "fight": 2, "flight": 2},
        "b": {"discipline": 2, "madness": 1, "exhaustion": 1},
        "n": {"discipline": 3},
    },
    "mettle": {
        "a": {"mettle": 3, "pain": 2, "injuries": [{"id": "i1", "penalty": 2}]},
        "b": {"mettle": 8, "pain": 6},
        "h": {"mettle": 4, "rattle": 30, "disciplines": {"survival": 2}, "kits": {"medkit": 3}},
    },
    "hursagmu": {
        "a": {"traits": {"constitution": 3, "willpower": 2, "athlete": 2}},
        "b": {"traits": {"constitution": 2, "willpower": 3, "healer": 3}},
        "c": {"traits": {"constitution": 1, "willpower": 1}},
    },
}
OPTIONS: dict[str, dict[str, Any]] = {
    "dryh": {"failure_consequences": True, "response_boxes": 2},
    "mettle": {"lot_weights": {"crit": 1, "plain": 4, "fail": 1}},
    "hursagmu": {},
}


def _ctx(seed: int) -> Ctx:
    return Ctx(dice=RandomDice(seed), actor=GM)


def _start(game: str) -> Any:
    system = GAMES[game]
    t = system.new_table(OPTIONS[game])
    for cid, sheet in SHEETS[game].items():
        t = engine.apply(system, t, AddCharacter(id=cid, sheet=sheet), _ctx(0)).state
    if game == "dryh":
        t = engine.apply(system, t, Correct(field="hope", value=2), _ctx(0)).state
    return t


def _random_body(system: Game, t: Any, cls: type[Command], rng: random.Random) -> dict[str, Any]:
    """A command of ``cls`` with each field drawn wide: any character (or
    none), the sheet's things and one it lacks, any choice, either flag,
    a number around the probes."""
    fields = legal._fields(cls)
    chars = list(t.characters)
    body: dict[str, Any] = {"type": legal.tag_of(cls)}
    subject = None
    for f in fields:
        if f.kind == "character":
            value: Any = rng.choice(chars if f.required else [None, *chars])
            if f.required and subject is None:
                subject = value
        elif f.kind == "ref":
            sheet = t.characters.get(subject)
            things = legal._things(system, sheet, f.ref or "") if sheet is not None else []
            value = rng.choice([*things, "zz"])
        elif f.kind == "choice":
            value = rng.choice(list(f.values)) if f.required or rng.random() < 0.5 else f.default
        elif f.kind == "flag":
            value = rng.random() < 0.5
        elif f.kind == "number":
            low, high = min(f.values), max(f.values)
            value = (
                rng.randint(int(low), int(min(high, low + 8)))
                if f.required or rng.random() < 0.3
                else f.default
            )
        else:
            value = f.default
        if value is not None or f.required:
            body[f.name] = value
    return body


def _applies(system: Game, t: Any, body: dict[str, Any], seed: int) -> Any:
    cls = {legal.tag_of(c): c for c in legal.commands_of(system)}[body["type"]]
    try:
        cmd = msgspec.convert(body, cls)
    except msgspec.ValidationError:
        return None
    try:
        return engine.apply(system, t, cmd, _ctx(seed)).state
    except RuleError:
        return None


def _offered(moves: list[legal.Move], system: Game, body: dict[str, Any]) -> bool:
    cls = {legal.tag_of(c): c for c in legal.commands_of(system)}[body["type"]]
    subject_name = legal.subject_field(cls)
    subject = body.get(subject_name) if subject_name else None
    for m in moves:
        if m.tag != body["type"] or m.subject != subject:
            continue
        if m.verdict == legal.VALUES or not m.variants or not m.variants[0]:
            return True
        if any(all(body.get(k, _default(cls, k)) == v for k, v in variant.items()) for variant in m.variants):
            return True
    return False


def _default(cls: type[Command], name: str) -> Any:
    return next(f.default for f in legal._fields(cls) if f.name == name)


@settings(max_examples=12, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(min_value=0, max_value=10**6))
def test_offered_moves_are_applied_and_applied_moves_were_offered(game: str, seed: int) -> None:
    system = GAMES[game]
    rng = random.Random(seed)
    t = _start(game)
    classes = legal.commands_of(system)
    for step in range(10):
        moves = legal.legal_moves(system, t)
        for m in moves:
            for body in m.bodies if m.verdict == legal.ACCEPTED else ():
                assert _applies(system, t, body, seed + step) is not None, (step, body)
        for _ in range(12):
            body = _random_body(system, t, rng.choice(classes), rng)
            if _applies(system, t, body, seed) is not None:
                assert _offered(moves, system, body), (
                    step,
                    body,
                    [m for m in moves if m.tag == body["type"]],
                )
        # Play on: mostly a move the state offers, sometimes the clock.
        offered = [
            b for m in moves if m.verdict == legal.ACCEPTED and m.tag != "character.remove" for b in m.bodies
        ]
        if rng.random() < 0.2 and game != "dryh":
            t = engine.advance(system, t, t.clock.now + rng.choice([60.0, 3600.0, 86400.0]), _ctx(seed)).state
        elif offered:
            after = _applies(system, t, rng.choice(offered), seed + step)
            t = after if after is not None else t
