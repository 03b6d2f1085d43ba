"""Property tests: clock advances are step-independent (HUR-08, HUR-09,
HUR-13), counters never go negative, final states (HUR-05, HUR-06) stay
final, and the same seed gives the same rolls."""

from __future__ import annotations

import contextlib

import msgspec
from hursagmu_helpers import SYSTEM, ctx, new_table
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.rules import engine
from vigil.rules.clock import DAY, HOUR
from vigil.rules.commands import AddCharacter, CombatEnd, CombatStart, Command, NextRound
from vigil.rules.dice import RandomDice
from vigil.rules.hursagmu.commands import (
    ApplyPoison,
    BreakFall,
    Damage,
    Fall,
    Harm,
    Heal,
    Morning,
    RestAction,
    SeeDim,
    SetRest,
    SetSenses,
    TakeFall,
    TraitRollCmd,
)
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import Event, RuleError

IDS = ("a", "b", "c")

poison_st = st.builds(
    ApplyPoison,
    char=st.sampled_from(IDS),
    damage=st.integers(1, 12),
    interval=st.sampled_from([6, 60, 600, 3600]),
    duration=st.integers(6, 6 * 3600),
    kind=st.sampled_from(["poison", "drug"]),
)


def setup(
    wake_hour: int | None, stuns: list[int], cons: list[int], poisons: list[ApplyPoison]
) -> HursagmuTable:
    t = new_table(wake_hour=wake_hour)
    for cid, s, c in zip(IDS, stuns, cons, strict=True):
        sheet = {
            "stuns": s,
            "wounds": 3,
            "shocks": 2,
            "traits": {"constitution": c, "willpower": c},
        }
        t = engine.apply(SYSTEM, t, AddCharacter(id=cid, sheet=sheet), ctx()).state
    for cmd in poisons:
        with contextlib.suppress(RuleError):  # a too-short poison: refused
            t = engine.apply(SYSTEM, t, cmd, ctx()).state
    return t


@given(
    seed=st.integers(0, 2**32),
    wake_hour=st.sampled_from([None, 0, 7]),
    stuns=st.lists(st.integers(0, 16), min_size=3, max_size=3),
    cons=st.lists(st.integers(0, 6), min_size=3, max_size=3),
    poisons=st.lists(poison_st, max_size=3),
    cuts=st.lists(st.floats(0, 1.0), max_size=6),
    span=st.sampled_from([60.0, HOUR, DAY + 8 * HOUR]),
)
def test_hur08_hur09_hur13_one_step_equals_many_steps(
    seed: int,
    wake_hour: int | None,
    stuns: list[int],
    cons: list[int],
    poisons: list[ApplyPoison],
    cuts: list[float],
    span: float,
) -> None:
    t = setup(wake_hour, stuns, cons, poisons)
    one = engine.advance(SYSTEM, t, span, ctx(dice=RandomDice(seed)))
    dice = RandomDice(seed)
    state, events = t, []
    for to in [*sorted(c * span for c in cuts), span]:
        out = engine.advance(SYSTEM, state, to, ctx(dice=dice))
        state, events = out.state, events + out.events
    assert msgspec.json.encode(state) == msgspec.json.encode(one.state)
    assert events == one.events


char_st = st.sampled_from(IDS)
small = st.integers(0, 12)
command_st: st.SearchStrategy[Command | float] = st.one_of(
    st.builds(Harm, char=char_st, stuns=small, wounds=small, shocks=small),
    st.builds(Damage, char=char_st, amount=st.integers(1, 25), bonus=st.integers(-3, 3)),
    st.builds(RestAction, char=char_st),
    st.builds(SetRest, char=char_st, spoiled=st.booleans(), wound_difficulty=st.integers(0, 3)),
    st.builds(Morning, char=st.none() | char_st),
    st.builds(Heal, patient=char_st, healer=st.none() | char_st, healer_level=st.none() | small),
    poison_st,
    st.builds(Fall, char=char_st, spaces=st.floats(0, 15)),
    st.builds(BreakFall, char=char_st),
    st.builds(TakeFall, char=char_st),
    st.builds(SetSenses, char=char_st, blind=st.none() | st.booleans(), deaf=st.none() | st.booleans()),
    st.builds(
        TraitRollCmd,
        char=char_st,
        trait=st.just("constitution"),
        target=st.integers(0, 20),
        kind=st.sampled_from(["physical", "mental", "perception", "recovery"]),
        needs_sight=st.booleans(),
    ),
    st.builds(SeeDim, char=char_st, challenge=small),
    st.sampled_from([CombatStart(), CombatEnd(), NextRound()]),
    st.floats(0, 2 * HOUR),  # advance the clock by this much
)


def play(seed: int, steps: list[Command | float]) -> list[tuple[HursagmuTable, list[Event]]]:
    """Apply each step (refusals skipped), recording the state after each."""
    t = setup(7, [0, 5, 12], [2, 3, 1], [])
    dice = RandomDice(seed)
    history = []
    for step in steps:
        try:
            if isinstance(step, float):
                out = engine.advance(SYSTEM, t, t.clock.now + step, ctx(dice=dice))
            else:
                out = engine.apply(SYSTEM, t, step, ctx(dice=dice))
        except RuleError:
            history.append((t, []))
            continue
        t = out.state
        history.append((t, out.events))
    return history


@given(seed=st.integers(0, 2**32), steps=st.lists(command_st, max_size=25))
def test_hur04_counters_never_negative_and_final_states_stay_final(
    seed: int, steps: list[Command | float]
) -> None:
    final: dict[str, str] = {}
    for t, _ in play(seed, steps):
        for cid, ch in t.characters.items():
            assert min(ch.stuns, ch.wounds, ch.shocks) >= 0
            status = SYSTEM.final_status(t, cid)
            if cid in final:
                assert status == final[cid]
                assert ch.poisons == {} and ch.rest_next_at is None
            elif status is not None:
                final[cid] = status


@settings(max_examples=50)
@given(seed=st.integers(0, 2**32), steps=st.lists(command_st, max_size=15))
def test_hur01_same_seed_same_rolls(seed: int, steps: list[Command | float]) -> None:
    first = [events for _, events in play(seed, steps)]
    again = [events for _, events in play(seed, steps)]
    assert first == again
