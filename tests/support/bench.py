"""The benchmark's one command run as a user runs it (``python -m bench``,
a subprocess from the repository's root), for the tests that run it once
at a tiny size (tests/bench): both read its report from the one
``BENCH_JSON`` line it prints."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_bench(args: list[str], work_dir: Path) -> tuple[str, dict[str, Any], float]:
    """``python -m bench`` with ``args``, its data kept in ``work_dir``: its
    output, its report, and how long it ran (s); it must succeed and print
    one report."""
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "bench", *args, "--work-dir", str(work_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    took = time.monotonic() - began
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH_JSON ")]
    assert len(lines) == 1, done.stdout[-3000:]
    return done.stdout, json.loads(lines[0].split(" ", 1)[1]), took
