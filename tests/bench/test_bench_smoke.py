"""The benchmark, once, at a tiny size: the one command runs end to end
against both servers and prints every figure (values sane, not the
targets: those are for the default run on a quiet machine). No figure is
held to a speed here; a duration is only checked to fit inside the run
that measured it, which holds on a machine however busy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.bench import run_bench

TINY = [
    *("-T", "3", "-P", "1", "-S", "1", "-C", "2"),
    *("--rate", "20", "--seconds", "2", "--warmup", "0.5"),
    *("--no-ramp", "--prefill", "300", "--durability", "normal,full"),
]


def _check_server(res: dict[str, Any], connections: int, commands: int, took: float) -> None:
    assert res["connections"] == connections
    fixed = res["fixed"]
    assert fixed["scheduled"] == commands
    assert fixed["completed"] + fixed["errors"] == commands
    assert fixed["errors"] <= commands // 10, fixed["error_codes"]
    assert fixed["unsent"] == 0 and fixed["unfinished"] == 0
    for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms"):
        assert 0 < fixed[key] < took * 1000, (key, fixed[key], took)  # milliseconds, within the run
    assert fixed["p50_ms"] <= fixed["p95_ms"] <= fixed["p99_ms"] <= fixed["max_ms"]
    assert fixed["server_cpu_us_per_cmd"] >= 0 and fixed["gen_cpu_us_per_cmd"] > 0
    assert fixed["patch_msgs"] >= fixed["completed"] * 1  # every connection gets every rev
    assert 40 < fixed["bytes_per_patch"] < 20_000
    assert 40 < res["one_field_patch_bytes"] < 1000 and res["one_field_patch_ops"] == 1
    toggle = res["rest_toggle_patches"]
    assert set(toggle) == {"rest_start", "rest_stop"} and all(40 < size < 1000 for size in toggle.values())
    assert res["rest_toggle_patch_bytes"] == max(toggle.values())
    assert res["rss_peak_kib"] > 1000 and res["rss_per_conn_kib"] >= 0


def test_bench_runs_at_a_tiny_size(tmp_path: Path) -> None:
    out, report, took = run_bench(TINY, tmp_path)
    connections = 3 * (1 + 1 + 1)  # GM, player, spectator per table
    commands = 20 * 2
    _check_server(report["baseline"], connections, commands, took)
    assert set(report["vigil"]) == {"normal", "full"}
    assert report["prefill"]["entries"] == 300
    for mode, res in report["vigil"].items():
        _check_server(res, connections, commands, took)
        assert res["fixed"]["errors"] == 0, (mode, res["fixed"]["error_codes"])
        assert 0 < res["restart"]["seconds"] < took
        assert res["restart"]["tables_loaded"] == 3
        assert set(report["targets"][mode]) == {
            "p99_ms_at_fixed",
            "cpu_ratio",
            "rss_per_conn_kib",
            "one_field_patch_bytes",
            "rest_toggle_patch_bytes",
            "restart_s",
        }
    assert report["machine"]["nproc"] >= 1
    for figure in (
        "p99 ms",
        "server CPU µs/cmd",
        "RSS KiB/connection",
        "restart s",
        "one-field patch bytes",
        "rest toggle patch bytes",
    ):
        assert figure in out
