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
