"""Property tests over random DRYH command sequences.

Counters never go negative (every state still decodes under the Structs'
bounds and passes ``validate``), a nightmare stays one under any command but
correct/revive, refused commands change nothing, the same seed gives the
same table, and advancing the clock in one step equals many steps.
"""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from vigil.rules import engine
from vigil.rules.commands import Command, Correct
from vigil.rules.dice import RandomDice
from vigil.rules.dryh import commands as c
from vigil.rules.dryh.state import DryhTable
from vigil.rules.dryh.system import SYSTEM
from vigil.rules.game import Actor, Ctx
from vigil.rules.outcome import Event, RuleError

CHARS = ("a", "b", "n")
who = st.sampled_from(CHARS)

command: st.SearchStrategy[Command] = st.one_of(
    st.builds(
        c.Open,
        char=who,
        pain=st.integers(0, 4),
        kind=st.sampled_from(["environmental", "nightmare"]),
    ),
    st.builds(c.Cancel, char=who),
    st.builds(
        c.Declare,
        char=who,
        madness=st.none() | st.integers(0, 3),
        exhaustion_up=st.none() | st.booleans(),
        talent=st.none() | st.sampled_from(["none", "exhaustion_minor", "exhaustion_major", "madness"]),
    ),
    st.builds(c.Help, char=who, helper=who, leave=st.booleans()),
    st.builds(c.Roll, char=who),
    st.builds(c.Roll, char=who),
    st.builds(
        c.DespairSpend,
        char=who,
        pool=st.sampled_from(["discipline", "exhaustion", "madness", "pain"]),
        op=st.sampled_from(["add", "remove"]),
    ),
    st.builds(c.HopeImprove, char=who),
    st.builds(c.Resolve, char=who, failure=st.sampled_from(["none", "exhaustion", "fight", "flight"])),
    st.builds(c.Resolve, char=who),
    st.builds(
        c.Choose,
        char=who,
        who=st.none() | who,
        choice=st.sampled_from(
            [
                "uncheck_fight",
                "uncheck_flight",
                "exhaustion_down",
                "nothing",
                "check_fight",
                "check_flight",
            ]
        ),
    ),
    st.builds(c.HopeSpend, char=who, what=st.sampled_from(["exhaustion", "fight", "flight"])),
    st.builds(c.RecoverDiscipline, char=who),
    st.builds(c.Wake, char=who),
    st.builds(c.ClearSnap, char=who),
    st.builds(c.SessionStart),
    st.builds(c.SessionEnd),
)
adjust: st.SearchStrategy[Command] = st.one_of(
    st.builds(
        c.DespairSpend,
        char=st.just("?"),
        pool=st.sampled_from(["discipline", "exhaustion", "madness", "pain"]),
        op=st.sampled_from(["add", "remove"]),
    ),
    st.builds(c.HopeImprove, char=st.just("?")),
)


@st.composite
def conflict(draw: st.DrawFn) -> list[Command]:
    """A whole roll, so that random scripts reach every phase often."""
    me = draw(who)
    steps: list[Command] = [
        c.Open(
            char=me,
            pain=draw(st.integers(0, 5)),
            kind=draw(st.sampled_from(["environmental", "nightmare"])),
        )
    ]
    if draw(st.booleans()):
        steps.append(
            draw(
                st.builds(
                    c.Declare,
                    char=st.just(me),
                    madness=st.none() | st.integers(0, 3),
                    exhaustion_up=st.none() | st.booleans(),
                    talent=st.none()
                    | st.sampled_from(["none", "exhaustion_minor", "exhaustion_major", "madness"]),
                )
            )
        )
    for helper in draw(st.lists(who, max_size=2)):
        steps.append(c.Help(char=me, helper=helper))
    steps.append(c.Roll(char=me))
    for adj in draw(st.lists(adjust, max_size=3)):
        steps.append(msgspec.structs.replace(adj, char=me))  # type: ignore[type-var]
    steps.append(
        c.Resolve(
            char=me,
            failure=draw(st.sampled_from(["none", "exhaustion", "fight", "flight"])),
        )
    )
    steps.append(c.Resolve(char=me))  # in case the failure consequence was refused
    for _ in range(3):
        steps.append(
            draw(
                st.builds(
                    c.Choose,
                    char=st.just(me),
                    who=st.none() | who,
                    choice=st.sampled_from(
                        [
                            "uncheck_fight",
                            "exhaustion_down",
                            "nothing",
                            "check_fight",
                            "check_flight",
                        ]
                    ),
                )
            )
        )
    steps.append(c.Cancel(char=me))
    return steps


scripts = st.lists(
    st.one_of(conflict(), conflict(), command.map(lambda cmd: [cmd])), min_size=1, max_size=10
).map(lambda parts: [cmd for part in parts for cmd in part])


def start() -> DryhTable:
    from dryh_helpers import new_table

    t = new_table(
        {
            "a": {"discipline": 1, "madness": 2, "exhaustion": 6, "fight": 2, "flight": 2},
            "b": {"discipline": 2, "madness": 1, "exhaustion": 1},
            "n": {"discipline": 3},
        },
        failure_consequences=True,
        response_boxes=2,
    )
    t = engine.apply(SYSTEM, t, Correct(field="hope", value=3), Ctx(dice=RandomDice(0))).state
    return engine.apply(SYSTEM, t, Correct(field="despair", value=3), Ctx(dice=RandomDice(0))).state


def play(t: DryhTable, script: list[Command], seed: int) -> tuple[DryhTable, list[Event], list[str]]:
    ctx = Ctx(dice=RandomDice(seed), actor=Actor("gm", "gm"))
    events: list[Event] = []
    refusals: list[str] = []
    for cmd in script:
        try:
            out = engine.apply(SYSTEM, t, cmd, ctx)
        except RuleError as err:
            refusals.append(err.code)
            continue
        t, events = out.state, events + out.events
    return t, events, refusals


@given(scripts, st.integers(0, 2**16))
def test_counters_never_negative_and_state_stays_valid(script: list[Command], seed: int) -> None:
    """Counters never go negative: every state decodes under its bounds."""
    t = start()
    ctx = Ctx(dice=RandomDice(seed), actor=Actor("gm", "gm"))
    for cmd in script:
        before = msgspec.msgpack.encode(t)
        try:
            t = engine.apply(SYSTEM, t, cmd, ctx).state
        except RuleError:
            continue
        finally:
            assert msgspec.msgpack.encode(msgspec.msgpack.decode(before, type=DryhTable)) == before
        msgspec.convert(msgspec.to_builtins(t), DryhTable)
        SYSTEM.validate(t)
        assert t.hope >= 0 and t.despair >= 0
        for ch in t.characters.values():
            assert min(ch.discipline, ch.madness, ch.exhaustion, ch.fight, ch.flight) >= 0
            assert max(ch.fight, ch.flight) <= t.options.response_boxes
            if ch.exhaustion > 6 and ch.status != "nightmare":
                assert ch.status == "crashed"
        for owner, r in t.rolls.items():
            assert r.phase != "resolved" or r.pending, "a resolved roll without choices left"
            assert owner in t.characters


@given(scripts, st.integers(0, 2**16))
def test_final_states_stay_final(script: list[Command], seed: int) -> None:
    """DRYH-18: a nightmare stays a nightmare under any DRYH command."""
    t = start()
    t = engine.apply(
        SYSTEM, t, Correct(char="n", field="status", value="nightmare"), Ctx(dice=RandomDice(0))
    ).state
    t, _, _ = play(t, script, seed)
    assert SYSTEM.final_status(t, "n") == "nightmare"
    for cid, ch in t.characters.items():
        if ch.status == "nightmare":
            assert SYSTEM.summary(t, cid).badges[0] == "nightmare"


@given(scripts, st.integers(0, 2**16))
def test_same_seed_same_rolls(script: list[Command], seed: int) -> None:
    """The same seed and commands give the same table and the same events."""
    one = play(start(), script, seed)
    two = play(start(), script, seed)
    assert msgspec.to_builtins(one[0]) == msgspec.to_builtins(two[0])
    assert one[1] == two[1] and one[2] == two[2]


@given(scripts, st.lists(st.floats(0, 10_000, allow_nan=False), min_size=1, max_size=5))
def test_advance_in_one_step_equals_many(script: list[Command], stops: list[float]) -> None:
    """Advancing in one step equals advancing in many (DRYH has no timed rules)."""
    t, _, _ = play(start(), script, 7)
    end = max(stops)
    one = engine.advance(SYSTEM, t, end, Ctx(dice=RandomDice(3)))
    many_state, many_events, ctx = t, [], Ctx(dice=RandomDice(3))
    for stop in sorted(stops):
        out = engine.advance(SYSTEM, many_state, stop, ctx)
        many_state, many_events = out.state, many_events + out.events
    assert msgspec.to_builtins(one.state) == msgspec.to_builtins(many_state)
    assert one.events == many_events == []


@given(scripts, st.integers(0, 2**16))
def test_conflicts_reach_resolution(script: list[Command], seed: int) -> None:
    """DRYH-01…20: a script that opens, rolls and resolves a roll, with any
    prefix, always ends with no roll in ``resolved`` without a pending choice."""
    ending = [c.Open(char="b", pain=2), c.Roll(char="b"), c.Resolve(char="b")]
    t, _, _ = play(start(), script + ending, seed)
    for r in t.rolls.values():
        assert r.phase != "resolved" or r.pending
