"""The cluster benchmark (bench/cluster.py), once, at a tiny size: one node,
then two on a throwaway PostgreSQL and Redis, every phase measured and
every figure reported. As in test_bench_smoke.py, no figure is held to a
speed: values are checked to be there and to add up (commands counted,
forwarded where the phase says, latencies within the run), and the two
nodes own the tables made through them, which the figures rely on."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.support import postgres, services
from tests.support.bench import run_bench

TABLES = 3
RATE, SECONDS = 20, 2
TINY = [
    *("--nodes", "1,2", "--store", "postgresql"),
    *("-T", str(TABLES), "-P", "1", "-S", "1", "-C", "2"),
    *("--rate", str(RATE), "--seconds", str(SECONDS), "--warmup", "0.5"),
]
SERVERS = ("redis", "postgresql")


def _run(tmp_path: Path) -> tuple[str, dict[str, Any], float]:
    """The benchmark's output, its report, and how long it ran (s)."""
    if postgres.binaries() is None or shutil.which("redis-server") is None:
        services.missing("PostgreSQL's server or redis-server is not installed", "the cluster bench test")
    return run_bench(TINY, tmp_path)


def _check_phase(phase: dict[str, Any], nodes: list[str], took: float) -> int:
    """The phase's figures are there and add up; its forwarded count."""
    commands = RATE * SECONDS
    assert phase["scheduled"] == commands
    assert phase["completed"] == commands and phase["errors"] == 0, phase["error_codes"]
    assert phase["unsent"] == 0 and phase["unfinished"] == 0
    assert phase["closed_by_server"] == {}  # the generator does not reconnect
    assert 0 < phase["p50_ms"] <= phase["p99_ms"] <= phase["max_ms"] < took * 1000
    assert set(phase["cpu_s_by"]) == {*nodes, *SERVERS}
    assert all(cpu >= 0 for cpu in phase["cpu_s_by"].values())
    assert sum(phase["cpu_s_by"][n] for n in nodes) > 0
    tags = phase["by_tag"]
    local, forwarded = (tags.get(k, {"completed": 0})["completed"] for k in ("local", "forwarded"))
    assert local + forwarded == commands
    assert sum(tags.get(f"via {n}", {"completed": 0})["completed"] for n in nodes) == commands
    for tag in tags.values():
        if tag["completed"]:
            assert 0 < tag["p50_ms"] <= tag["p99_ms"] < took * 1000
    return int(forwarded)


def test_cluster_bench_runs_at_a_tiny_size(tmp_path: Path) -> None:
    out, report, took = _run(tmp_path)
    one, two = report["runs"]["1"], report["runs"]["2"]
    connections = TABLES * (2 * (1 + 1) + 1)  # GM and player on both nodes, one spectator
    assert sum(one["connections"].values()) == sum(two["connections"].values()) == connections
    assert set(one["phases"]) == {"local"} and _check_phase(one["phases"]["local"], ["n1"], took) == 0
    assert set(two["phases"]) == {"local", "one_way", "both_ways"}
    fwd = {name: _check_phase(phase, ["n1", "n2"], took) for name, phase in two["phases"].items()}
    assert fwd["local"] == 0 and fwd["one_way"] > 0 and fwd["both_ways"] > 0
    # One way: every command goes through n2 (n1's tables forwarded, n2's its own).
    assert two["phases"]["one_way"]["by_tag"]["via n2"]["completed"] == RATE * SECONDS
    # Each node owns the tables made through it (n1 the 1st and 3rd, n2 the 2nd).
    assert two["owned_as_made"] == TABLES
    assert [two["health"][n]["owned"] for n in ("n1", "n2")] == [2, 1]
    over = report["overheads"]
    for key in ("edge_us_per_forwarded", "owner_extra_us_per_forwarded", "both_ways_us_per_forwarded"):
        assert isinstance(over[key], float)
    assert set(over["vs_one_node_us_per_cmd"]) == set(two["phases"])
    for figure in (
        "n1 CPU µs/cmd",
        "n2 CPU µs/cmd",
        "Redis CPU µs/cmd",
        "PostgreSQL CPU µs/cmd",
        "p50 / p99 ms, forwarded",
        "edge node (n2) CPU per forwarded command",
        "owner's (n1) extra CPU per forwarded command",
    ):
        assert figure in out
