"""The suite's watching plugins (tests/support/patching.py) wrap and unwrap
as they say: a watch that silently stopped watching would let a seed leak
or an unfilled template through unseen."""

from __future__ import annotations

import types

from tests.support.patching import SessionPatches
from tests.support.seed_watch import SeedWatch


class _Doubler(SessionPatches):
    def __init__(self, target: types.SimpleNamespace) -> None:
        super().__init__()
        self.target = target

    def install(self) -> None:
        self.wrap(self.target, "f", lambda original: lambda x: 2 * original(x))


def test_stacked_patches_unwind_to_the_original() -> None:
    def original(x: int) -> int:
        return x + 1

    target = types.SimpleNamespace(f=original)
    outer, inner = _Doubler(target), _Doubler(target)
    outer.install()
    inner.install()
    assert target.f(1) == 8  # (1 + 1) doubled twice
    inner.uninstall()
    assert target.f(1) == 4
    outer.uninstall()
    assert target.f is original


def test_seed_watch_reports_a_secret_wherever_it_appears() -> None:
    watch = SeedWatch()
    watch.scan("a frame", {"type": "state", "x": "ab" * 32})
    assert watch.leaks == []  # nothing secret yet
    watch.secrets.add("ab" * 32)
    watch.scan("a log line", "dice ready " + "ab" * 32)
    watch.scan("a frame", {"type": "state", "nested": ["ab" * 32]})
    watch.scan("an export", {"type": "state", "x": "cd" * 32})
    assert [leak.split(":")[0] for leak in watch.leaks] == [
        "an unrevealed dice seed in a log line",
        "an unrevealed dice seed in a frame",
    ]
