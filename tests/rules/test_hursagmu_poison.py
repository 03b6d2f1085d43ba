"""HUR-13 poison and drugs: dose schedule, stacking, fighting off, limits."""

from __future__ import annotations

import msgspec
import pytest
from hursagmu_helpers import SYSTEM, add, advance, codes, ctx, new_table, one, refused, run

from vigil.rules import engine
from vigil.rules.clock import DAY
from vigil.rules.commands import Correct
from vigil.rules.hursagmu.commands import ApplyPoison
from vigil.rules.hursagmu.state import HursagmuTable
from vigil.rules.outcome import RuleError
from vigil.rules.words import english


def poisoned(damage: int = 5, interval: int = 6, duration: int = 20, **kw: object) -> HursagmuTable:
    t = advance(add(new_table(), "c", traits={"constitution": 2, "willpower": 4}), 10).state
    cmd = ApplyPoison(char="c", damage=damage, interval=interval, duration=duration, **kw)  # type: ignore[arg-type]
    return run(t, cmd).state


def test_hur13_doses_fall_at_application_plus_k_intervals() -> None:
    """Decision: k = 1 … ⌊duration / interval⌋: 20 s of a 6 s poison is 3
    doses, at 16, 22 and 28."""
    t = poisoned()
    p = t.characters["c"].poisons["p0001"]
    assert (p.doses, p.applied_at, p.next_dose) == (3, 10, 1)
    assert [d.time for d in SYSTEM.due(t)] == [16]
    out = advance(t, 40, 1, 2, 1, 2, 6, 6)
    doses = [e for e in out.events if e.code == "poison_dose"]
    assert [(e.at, e.params["dose"], e.rule) for e in doses] == [
        (16, 1, "HUR-13"),
        (22, 2, "HUR-13"),
        (28, 3, "HUR-13"),
    ]
    assert doses[0].params["faces"] == [1, 2]
    assert codes(out.events)[-1] == "poison_fought_off"
    assert out.state.characters["c"].poisons == {}
    assert out.state.characters["c"].wounds == 0  # 5 vs 5 resisted each time
    assert SYSTEM.due(out.state) == []


def test_hur13_poison_resisted_with_constitution_causes_wounds() -> None:
    out = advance(poisoned(damage=10), 16, 1, 1)  # natural 2: 4 vs 10 → 6
    assert out.state.characters["c"].wounds == 6
    assert one(out.events, "poison_dose").params["track"] == "wounds"


def test_hur13_drug_resisted_with_willpower_causes_shocks() -> None:
    out = advance(poisoned(damage=10, kind="drug"), 16, 1, 2)  # 7 vs 10 → 3
    ch = out.state.characters["c"]
    assert (ch.shocks, ch.wounds) == (3, 0)
    assert one(out.events, "poison_dose").params["trait"] == "willpower"


def test_hur13_flat_resistance_applies_to_doses() -> None:
    t = advance(add(new_table(resistance="flat"), "c", traits={"constitution": 2}), 10).state
    t = run(t, ApplyPoison(char="c", damage=5, interval=60, duration=120)).state
    out = advance(t, 200)
    assert out.state.characters["c"].wounds == 6


def test_hur13_two_applications_stack_as_separate_poisons() -> None:
    t = poisoned(duration=12)
    t = run(t, ApplyPoison(char="c", damage=5, interval=6, duration=12)).state
    assert sorted(t.characters["c"].poisons) == ["p0001", "p0002"]
    # Both fall at 16 and 22, ordered by poison id.
    out = advance(t, 22, 1, 1, 1, 1, 1, 1, 1, 1)
    doses = [(e.at, e.params["poison"]) for e in out.events if e.code == "poison_dose"]
    assert doses == [(16, "p0001"), (16, "p0002"), (22, "p0001"), (22, "p0002")]
    assert out.state.characters["c"].wounds == 4


def test_hur13_poison_stops_at_death_and_produces_no_more_dues() -> None:
    t = add(new_table(), "c", wounds=18)
    t = run(t, ApplyPoison(char="c", damage=10, interval=6, duration=600)).state
    t = run(t, ApplyPoison(char="c", damage=1, interval=60, duration=600, kind="drug")).state
    out = advance(t, DAY, 1, 2)  # 3 vs 10 → 7 wounds: dead at 6 s
    assert codes(out.events) == [
        "poison_dose",
        "condition_started",
        "poison_stopped",
        "poison_stopped",
    ]
    assert out.state.characters["c"].poisons == {}
    assert SYSTEM.final_status(out.state, "c") == "dead"
    assert SYSTEM.due(out.state) == []


def test_hur13_last_dose_that_kills_is_not_fought_off() -> None:
    t = add(new_table(), "c", wounds=18)
    t = run(t, ApplyPoison(char="c", damage=10, interval=6, duration=6)).state
    out = advance(t, 6, 1, 2)
    assert "poison_fought_off" not in codes(out.events)


def test_hur13_a_correction_to_death_stops_poisons() -> None:
    t = poisoned()
    t = engine.apply(SYSTEM, t, Correct(char="c", field="wounds", value=20), ctx()).state
    assert t.characters["c"].poisons == {}
    assert SYSTEM.due(t) == []


def test_hur13_poison_limits_are_refused() -> None:
    t = add(new_table(), "c")
    refused(t, ApplyPoison(char="c", damage=1, interval=60, duration=59), "poison_too_short")
    error = refused(t, ApplyPoison(char="c", damage=1, interval=6, duration=6006), "too_many_doses")
    assert error.params == {"doses": 1001, "limit": 1000}
    out = run(t, ApplyPoison(char="c", damage=1, interval=6, duration=6000))
    assert out.state.characters["c"].poisons["p0001"].doses == 1000


def test_hur13_decoder_refuses_bad_fields() -> None:
    raw = b'{"type":"hursagmu.poison","char":"c","damage":0,"interval":6,"duration":60}'
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=ApplyPoison)
    raw = b'{"type":"hursagmu.poison","char":"c","damage":1,"interval":6,"duration":60,"x":1}'
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=ApplyPoison)


def test_hur13_a_years_jump_with_a_per_round_poison_hits_the_engine_cap() -> None:
    """The work of one advance is bounded: past ctx.max_effects it is refused
    before anything is kept (docs/design.md "Time")."""
    t = add(new_table(), "c", traits={"constitution": 50})
    t = run(t, ApplyPoison(char="c", damage=1, interval=6, duration=6000)).state
    before = msgspec.json.encode(t)
    from vigil.rules.dice import RandomDice

    with pytest.raises(RuleError) as info:
        engine.advance(SYSTEM, t, 365 * DAY, ctx(dice=RandomDice(1), max_effects=500))
    assert info.value.code == "advance_too_large"
    assert msgspec.json.encode(t) == before
    # Under the default cap the whole schedule (1,000 doses) is fine.
    out = engine.advance(SYSTEM, t, 365 * DAY, ctx(dice=RandomDice(1)))
    assert sum(e.code == "poison_dose" for e in out.events) == 1000


def test_hur08_a_years_jump_unconscious_hits_the_engine_cap() -> None:
    """An unconscious character out of combat rests every 6 s: a year is
    ~5 million rounds, refused by the cap rather than computed."""
    from vigil.rules.dice import RandomDice

    t = add(new_table(), "c", stuns=10_000)
    with pytest.raises(RuleError) as info:
        engine.advance(SYSTEM, t, 365 * DAY, ctx(dice=RandomDice(3), max_effects=2000))
    assert info.value.code == "advance_too_large"


def test_hur13_poison_ids_skip_ids_in_use() -> None:
    t = poisoned()
    t = engine.apply(SYSTEM, t, Correct(char="c", field="poison_seq", value=0), ctx()).state
    t = run(t, ApplyPoison(char="c", damage=1, interval=6, duration=6)).state
    assert sorted(t.characters["c"].poisons) == ["p0001", "p0002"]


def test_hur13_inconsistent_poison_correction_refused() -> None:
    t = poisoned()
    refused(t, Correct(char="c", field="poisons.p0001.next_dose", value=4), "bad_poison")


def test_hur13_summary_and_derived_show_the_poison() -> None:
    t = poisoned()
    summary = SYSTEM.summary(t, "c")
    assert [(c.kind, c.until, c.since) for c in summary.countdowns] == [("poison", 28, 10)]
    derived = SYSTEM.derived(t, "c")
    assert derived["poisons"] == {
        "p0001": {"called": "", "kind": "poison", "next_dose_at": 16, "doses_left": 3, "ends_at": 28}
    }


def test_hur13_an_unnamed_poison_is_called_by_its_kind_in_each_language() -> None:
    """The server sends an unnamed poison's kind, not English words for it
    ("the poison"), so every reader's language can say it; its own English
    (logs, export) still reads "the poison"."""
    t = poisoned()
    hit = one(advance(t, 16, 1, 2).events, "poison_dose")
    assert hit.params["called"] == "" and hit.params["kind"] == "poison"
    assert english(hit).startswith("A dose of the poison hits")
