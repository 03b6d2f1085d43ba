"""DRYH-05/06/07: reading dice, strength and the dominance order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vigil.rules.dryh.dominance import PRIORITY, beats, dominant, rank, strength, strengths
from vigil.rules.dryh.reading import gm_degree, hits, player_successes
from vigil.rules.dryh.state import POOLS, Declaration, Dice

faces = st.lists(st.integers(1, 6), max_size=8)
pools = st.fixed_dictionaries({p: faces for p in POOLS})


def test_dryh07_examples_from_the_rules() -> None:
    """DRYH-07: the four worked examples, exactly."""
    assert dominant({"discipline": [6, 2], "pain": [6, 1]}) == "discipline"
    assert dominant({"exhaustion": [5, 5], "discipline": [5, 4]}) == "exhaustion"
    assert dominant({"discipline": [5, 5], "pain": [5]}) == "discipline"
    assert dominant({"discipline": [4], "pain": [4]}) == "discipline"


def test_dryh07_full_tie_priority_discipline_madness_exhaustion_pain() -> None:
    """DRYH-07 Decision: identical dice fall back to D > M > E > P."""
    same = [5, 3]
    assert dominant({p: same for p in POOLS}) == "discipline"
    assert dominant({"madness": same, "exhaustion": same, "pain": same}) == "madness"
    assert dominant({"exhaustion": same, "pain": same}) == "exhaustion"
    assert dominant({"pain": same}) == "pain"


def test_dryh07_higher_strength_beats_more_dice() -> None:
    """DRYH-07: strength first — one 6 beats a pool of many 5s."""
    assert dominant({"discipline": [5, 5, 5, 5], "pain": [6]}) == "pain"
    assert dominant({"madness": [2, 2], "exhaustion": [3]}) == "exhaustion"


def test_dryh06_empty_pools_never_dominate_and_no_dice_means_nothing() -> None:
    """DRYH-06/07: an empty pool cannot dominate; with no dice nothing does."""
    assert dominant({}) is None
    assert dominant({p: [] for p in POOLS}) is None
    assert dominant({"discipline": [], "pain": [1]}) == "pain"
    assert strength([]) is None
    assert strength([2, 6, 3]) == 6
    assert strengths({"discipline": [4, 2]}) == {
        "discipline": 4,
        "exhaustion": None,
        "madness": None,
        "pain": None,
    }


def test_dryh05_successes_count_1_to_3_and_helpers_only_there() -> None:
    """DRYH-05: 1–3 are successes in D, E, M and helpers; pain's are degree."""
    dice = Dice(discipline=[1, 4], exhaustion=[3], madness=[6, 2], pain=[1, 2, 5], helpers={"h": [3, 3]})
    assert hits([1, 2, 3, 4, 5, 6]) == 3
    assert player_successes(dice, Declaration(), 0) == 5
    assert gm_degree(dice) == 2


@given(pools)
def test_dryh07_dominance_never_picks_an_empty_pool(p: dict[str, list[int]]) -> None:
    """DRYH-06/07 property: the winner is non-empty and has the top strength."""
    winner = dominant(p)  # type: ignore[arg-type]
    if not any(p.values()):
        assert winner is None
        return
    assert winner is not None and p[winner]
    top = max(max(f) for f in p.values() if f)
    assert max(p[winner]) == top


@given(pools, st.randoms(use_true_random=False))
def test_dryh07_dominance_is_deterministic_and_order_free(p: dict[str, list[int]], rnd) -> None:  # type: ignore[no-untyped-def]
    """DRYH-07 property: the same dice give the same winner however listed."""
    shuffled = {}
    for name in rnd.sample(list(p), len(p)):
        f = list(p[name])
        rnd.shuffle(f)
        shuffled[name] = f
    assert dominant(p) == dominant(p) == dominant(shuffled)  # type: ignore[arg-type]


@given(st.sampled_from(POOLS), st.sampled_from(POOLS), faces, faces)
def test_dryh07_dominance_is_antisymmetric_and_total(a, b, fa, fb) -> None:  # type: ignore[no-untyped-def]
    """DRYH-07 property: for two distinct non-empty pools exactly one beats
    the other, and the pairwise winner is the one ``dominant`` picks."""
    if a == b or not fa or not fb:
        return
    ab, ba = beats((a, fa), (b, fb)), beats((b, fb), (a, fa))
    assert ab != ba
    assert dominant({a: fa, b: fb}) == (a if ab else b)


@given(pools, pools, pools)
def test_dryh07_dominance_rank_is_transitive(p: dict, q: dict, r: dict) -> None:  # type: ignore[type-arg]
    """DRYH-07 property: the order is transitive (so it is a total order)."""
    x, y, z = (("discipline", p["discipline"]), ("madness", q["madness"]), ("pain", r["pain"]))
    if x[1] and y[1] and z[1] and beats(x, y) and beats(y, z):  # type: ignore[arg-type]
        assert beats(x, z)  # type: ignore[arg-type]


@given(pools, st.lists(st.integers(1, 6), max_size=12))
def test_dryh06_helper_dice_never_dominate(p: dict[str, list[int]], helper: list[int]) -> None:
    """DRYH-06 property: helper dice add successes, never strength."""
    dice = Dice(**p, helpers={"h": helper})
    from vigil.rules.dryh.reading import pools_of

    assert set(pools_of(dice)) == set(POOLS)
    assert dominant(pools_of(dice)) == dominant(p)  # type: ignore[arg-type]


def test_dryh07_rank_orders_priority_last() -> None:
    assert rank("pain", [6]) > rank("discipline", [5, 5, 5])
    assert PRIORITY["discipline"] > PRIORITY["madness"] > PRIORITY["exhaustion"] > PRIORITY["pain"]
