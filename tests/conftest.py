"""Shared test setup.

Hypothesis runs derandomized with fixed example counts by default, so the
suite's run time and results are the same on every run (the "ci" profile);
``HYPOTHESIS_PROFILE=dev`` explores with fresh randomness.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pathlib  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402
from tests.support.cluster import vigil_cluster  # noqa: E402, F401 - fixture
from tests.support.postgres import postgres_cluster, postgres_url  # noqa: E402, F401 - fixtures
from tests.support.redis import redis_server, redis_url  # noqa: E402, F401 - fixtures
from tests.support.seed_watch import SeedWatch  # noqa: E402
from tests.support.server import ServerProcess  # noqa: E402
from tests.support.word_capture import WordCapture  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    """Every event and error frame of the run goes to artifacts/words/
    (tests/support/word_capture.py) for the words check of scripts/test.sh."""
    config.pluginmanager.register(WordCapture(), "vigil-word-capture")
    # No dice seed is sent or logged before its reveal (tests/support/seed_watch.py).
    config.pluginmanager.register(SeedWatch(), "vigil-seed-watch")


@pytest.fixture
def vigil_server(tmp_path: pathlib.Path) -> Iterator[ServerProcess]:
    """A real ``vigil serve`` with the demo table, stopped after the test."""
    server = ServerProcess(data_dir=tmp_path / "data").start()
    try:
        yield server
    finally:
        server.stop()
