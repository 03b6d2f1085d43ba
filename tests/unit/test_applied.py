"""The memory of applied requests (vigil.net.applied): held for a time,
bounded in bytes, the bound's estimate no smaller than what Python spends."""

from __future__ import annotations

import tracemalloc

import msgspec

from vigil.net.applied import ENTRY_BYTES, HOLD_SECONDS, RESEND_SECONDS, Applied, size_of


def test_a_request_is_remembered_for_its_hold_whatever_the_number_applied_since() -> None:
    applied = Applied()
    applied.remember("tok/s/x", 31, {"n": 1}, wall=1000.0)
    for i in range(30_000):  # 30 s of a table far busier than any: 1,000 commands a second
        applied.remember(f"tok/s/{i}", 32 + i, None, wall=1000.0 + i / 1000)
    assert applied.get("tok/s/x") == (31, msgspec.Raw(b'{"n":1}'))
    assert applied.forgotten_early == 0
    applied.expire(1030.0 + HOLD_SECONDS)
    assert applied.get("tok/s/x") is None and len(applied) == 0 and applied.bytes == 0


def test_the_byte_bound_forgets_the_oldest_first_and_counts_it() -> None:
    applied = Applied(max_bytes=100 * size_of("tok/s/00000", None))
    for i in range(150):
        applied.remember(f"tok/s/{i:05}", i, None, wall=1.0)
    assert len(applied) == 100 and applied.forgotten_early == 50
    assert applied.get("tok/s/00049") is None and applied.get("tok/s/00050") == (50, None)
    assert applied.bytes <= applied.max_bytes


def test_the_hold_outlasts_the_clients_resend_window() -> None:
    assert HOLD_SECONDS >= 2 * RESEND_SECONDS


def test_the_estimate_covers_what_python_spends() -> None:
    """What the bound counts (ENTRY_BYTES plus the request's and the
    result's characters) is no less than what tracemalloc sees allocated."""
    applied = Applied(max_bytes=1 << 40)
    count = 20_000
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(count):  # the request's name is made per command, and kept by the memory
        applied.remember(f"tok{i:06}/session-{i:08}/m{i}", i, {"rev": i}, wall=0.0)
    spent = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    estimated = applied.bytes
    print(f"per request: spent {spent / count:.0f} B, estimated {estimated / count:.0f} B")
    assert estimated >= spent
    assert ENTRY_BYTES < 1000
