"""The connection's token bucket (vigil.net.rate), given the time."""

from __future__ import annotations

from vigil.net.rate import Bucket, full, take


def test_a_burst_passes_then_the_rate() -> None:
    bucket = full(40, now=0.0)
    passed = 0
    for _ in range(100):  # all at once
        ok, bucket = take(bucket, 0.0, rate=20.0, burst=40)
        passed += ok
    assert passed == 40
    ok, bucket = take(bucket, 0.04, rate=20.0, burst=40)  # 0.8 of a message refilled
    assert not ok
    ok, bucket = take(bucket, 0.05, rate=20.0, burst=40)  # one
    assert ok and bucket.level < 1


def test_a_long_pause_refills_no_more_than_the_burst() -> None:
    ok, bucket = take(Bucket(0.0, 0.0), 3600.0, rate=20.0, burst=40)
    assert ok and bucket == Bucket(39.0, 3600.0)


def test_a_clock_that_seems_to_go_back_refills_nothing() -> None:
    ok, bucket = take(Bucket(0.5, 10.0), 9.0, rate=20.0, burst=40)
    assert not ok and bucket.level == 0.5
