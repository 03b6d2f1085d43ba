"""What both benches (bench/run.py, bench/cluster.py) begin a run with: the
file limit raised, a work directory, and a report that says what ran and
on what machine, so that a JSON result read later explains itself."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from bench import workload
from bench.procs import raise_nofile


def log(text: str) -> None:
    """Progress goes to stderr: stdout carries only the table and the JSON line."""
    print(text, file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    """The machine the figures were measured on (they mean little without it)."""
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "mem_gib": round(mem_kib / 2**20, 1),
        "python": platform.python_version(),
        "websockets": version("websockets"),
    }


# The load both benches put on the servers, as their options name it, and
# as their reports' config repeats it.
LOAD = ("tables", "players", "spectators", "chars", "rate", "seconds")


def add_load_options(p: argparse.ArgumentParser, *, seconds: str, warmup: str) -> None:
    """The options of the load (``LOAD``, and the warmup before it), with the
    same defaults in both benches; ``seconds`` and ``warmup`` are their help
    texts, which say what the bench measures."""
    p.add_argument("-T", "--tables", type=int, default=100)
    p.add_argument("-P", "--players", type=int, default=5)
    p.add_argument("-S", "--spectators", type=int, default=15)
    p.add_argument("-C", "--chars", type=int, default=6)
    p.add_argument("--rate", type=float, default=200.0, help="fixed rate, commands/s")
    p.add_argument("--seconds", type=float, default=20.0, help=seconds)
    p.add_argument("--warmup", type=float, default=3.0, help=warmup)


def begin(
    args: argparse.Namespace,
    prefix: str,
    *,
    own: dict[str, Any],
    servers: dict[str, Any] | None = None,
) -> tuple[Path, dict[str, Any]]:
    """Raise the file limit, make the work directory (``--work-dir``, else a
    temporary one named ``prefix``…, which the caller removes) and start the
    report: its config is ``servers`` (what runs), the load (``LOAD``),
    the bench's ``own`` settings,
    then the limit and mix it ran with; and the machine. Returns both."""
    nofile = raise_nofile()
    work = args.work_dir or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    config = {
        **(servers or {}),
        **{name: getattr(args, name) for name in LOAD},
        **own,
        "nofile": nofile,
        "mix": workload.mix_lines(),
    }
    return work, {"config": config, "machine": machine()}
