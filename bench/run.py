"""Vigil against the bare websockets library: latency, fan-out cost, memory,
wire size and restart time. One command:

    .venv/bin/python -m bench            # defaults: T=100 P=5 S=15 C=6, 200/s for 20 s, ramp
    .venv/bin/python -m bench --help

Both servers run as subprocesses on 127.0.0.1 and face the same generator
(this process), one after the other: the baseline, then Vigil once per
durability mode. Prints a table, then one JSON line (prefixed ``BENCH_JSON``).

``--nodes`` or ``--store`` hands the whole command line to
:mod:`bench.cluster` (Vigil as nodes of a cluster on PostgreSQL and Redis).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench import loadgen, provision, workload
from bench.common import add_load_options, begin, log
from bench.prefill import prefill
from bench.procs import ServerProc, status_kib

TARGETS = {
    "p99_ms_at_fixed": 5.0,
    "cpu_ratio": 1.5,
    "rss_per_conn_kib": 40.0,
    "one_field_patch_bytes": 120,
    "rest_toggle_patch_bytes": 200,
    "restart_s": 1.0,
}
SUSTAIN_P99_MS = 50.0


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    add_load_options(p, seconds="fixed-rate duration", warmup="unmeasured seconds before the fixed rate")
    p.add_argument("--ramp", default="200,400,800,1600,3200,6400", help="ramp steps, commands/s")
    p.add_argument("--ramp-seconds", type=float, default=10.0)
    p.add_argument("--no-ramp", action="store_true")
    p.add_argument("--prefill", type=int, default=100_000, help="log entries for the restart figure")
    p.add_argument("--durability", default="normal,full", help="Vigil modes to run, comma-separated")
    p.add_argument("--skip-baseline", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--work-dir", type=Path, help="keep data here (default: a temporary directory)")
    p.add_argument("--json-out", type=Path, help="also write the JSON result to this file")
    p.add_argument("--vigil-src", type=Path, help="run Vigil from this server/ directory (A/B runs)")
    p.add_argument("--soak", type=int, default=0, help="after the ramp: this many commands, RSS at half, end")
    p.add_argument("--soak-rate", type=float, default=600.0)
    p.add_argument(
        "--loop",
        choices=("auto", "uvloop", "asyncio"),
        default="auto",
        help="event loop of both servers (auto: uvloop if installed)",
    )
    return p.parse_args(argv)


async def measure_server(server: ServerProc, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    """Start, provision, connect everyone, run fixed rate and ramp."""
    server.start()
    pid = server.pid
    loop = server.health().get("loop", "asyncio")
    log(f"  event loop: {loop}")
    rss_start = status_kib(pid, "VmRSS")
    t0 = time.perf_counter()
    if server.kind == "vigil":
        tables = await provision.vigil_tables(server, args.tables, args.players, args.chars)
    else:
        tables = provision.baseline_tables(args.tables, args.players, args.chars)
    log(f"  provisioned {len(tables)} tables in {time.perf_counter() - t0:.1f}s")
    await asyncio.sleep(0.5)
    rss_before = status_kib(pid, "VmRSS")
    gen = loadgen.Generator(server, tables, args.spectators, seed=args.seed)
    t0 = time.perf_counter()
    conns = await gen.connect_all()
    log(f"  connected {conns} in {time.perf_counter() - t0:.1f}s")
    await asyncio.sleep(1.0)
    rss_after = status_kib(pid, "VmRSS")
    result: dict[str, Any] = {
        "loop": loop,
        "connections": conns,
        "rss_start_kib": rss_start,
        "rss_before_conns_kib": rss_before,
        "rss_after_conns_kib": rss_after,
        "rss_per_conn_kib": round((rss_after - rss_before) / max(conns, 1), 2),
    }
    try:
        if args.warmup > 0:
            await gen.run_phase(args.rate, args.warmup, drain=2.0)
        fixed = await gen.run_phase(args.rate, args.seconds)
        result["fixed"] = fixed.summary()
        log(f"  fixed {args.rate:g}/s: {_brief(result['fixed'])}")
        size, ops = await gen.probe_single_field() or (0, 0)
        result["one_field_patch_bytes"] = size
        result["one_field_patch_ops"] = ops
        toggle = await gen.probe_rest_toggle()
        result["rest_toggle_patches"] = toggle
        result["rest_toggle_patch_bytes"] = max(toggle.values()) if toggle else None
        steps: list[dict[str, Any]] = []
        best: dict[str, Any] | None = None
        if not args.no_ramp:
            rates = [float(x) for x in args.ramp.split(",") if x.strip()]
            failed: float | None = None
            for rate in rates:
                step = await _step(gen, rate, args, log)
                steps.append(step)
                if not step["sustained"]:
                    failed = rate
                    break
                best = step
            if failed is not None and best is not None and failed > best["rate"] * 1.2:
                # One more step half-way, so the figure is not off by a
                # whole doubling.
                mid = round((best["rate"] + failed) / 2 / 100) * 100 or (best["rate"] + failed) / 2
                step = await _step(gen, mid, args, log)
                steps.append(step)
                if step["sustained"]:
                    best = step
        result["ramp"] = steps
        result["sustained_per_s"] = best["rate"] if best else None
        result["sustained_p99_ms"] = best["p99_ms"] if best else None
        # A failed step with the generator above 90 % of a core measured the
        # generator, not the server: the server's limit is then higher.
        result["ramp_generator_bound"] = any(not st["sustained"] and st["generator_bound"] for st in steps)
        result["failures"] = gen.failures[:10]
        if args.soak > 0:
            result["soak"] = await _soak(gen, pid, args, log)
    finally:
        result["rss_peak_kib"] = status_kib(pid, "VmHWM")
        await gen.close()
        server.stop()
    return result


async def _step(gen: loadgen.Generator, rate: float, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    await asyncio.sleep(1.0)
    step = (await gen.run_phase(rate, args.ramp_seconds, drain=3.0)).summary()
    step["sustained"] = _sustained(step)
    step["generator_bound"] = bool(step["gen_cpu_share"] and step["gen_cpu_share"] > 0.9)
    log(f"  ramp {rate:g}/s: {_brief(step)} sustained={step['sustained']}")
    return _trim(step)


def _sustained(step: dict[str, Any]) -> bool:
    p99 = step["p99_ms"]
    backlog = step["backlog_samples"]
    allowed = max(10.0, step["rate"] * SUSTAIN_P99_MS / 1000)
    growing = len(backlog) >= 3 and backlog[-1] > allowed and backlog[-1] > backlog[len(backlog) // 2]
    return (
        p99 is not None
        and p99 <= SUSTAIN_P99_MS
        and step["unsent"] == 0
        and step["unfinished"] == 0
        and not growing
    )


def _trim(step: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k not in ("categories",)}


def _brief(s: dict[str, Any]) -> str:
    return (
        f"p50 {s['p50_ms']} p99 {s['p99_ms']} max {s['max_ms']} ms, done {s['completed']}/{s['scheduled']}"
        f" err {s['errors']} srv {s['server_cpu_us_per_cmd']}us/cmd (sys {s['server_sys_us_per_cmd']})"
        f" gen {s['gen_cpu_share']}"
    )


async def _soak(gen: loadgen.Generator, pid: int, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    """Commands at ``--soak-rate`` until ``--soak`` of them are answered,
    in 10 s chunks (bounded: at most twice the chunks the count needs), the
    server's RSS read after each: RSS at half the count against RSS at the
    end says whether memory stays bounded once every buffer is full (replay
    buffers, undo stacks, views)."""
    chunk = 10.0
    target = args.soak
    most = 2 * max(1, int(target / (args.soak_rate * chunk)) + 1)
    done, samples = 0, []
    half: dict[str, Any] | None = None
    for _ in range(most):
        phase = await gen.run_phase(args.soak_rate, chunk, drain=2.0)
        done += phase.completed + sum(phase.errors.values())
        sample = {"commands": done, "rss_kib": status_kib(pid, "VmRSS")}
        samples.append(sample)
        if half is None and done >= target / 2:
            half = sample
        if done >= target:
            break
    end = samples[-1]
    growth = None if half is None else round((end["rss_kib"] - half["rss_kib"]) / half["rss_kib"] * 100, 2)
    log(f"  soak: {done} commands; RSS at {half} -> {end} ({growth} %)")
    return {
        "rate": args.soak_rate,
        "commands": done,
        "half": half,
        "end": end,
        "growth_pct": growth,
        "samples": samples,
    }


def measure_restart(
    db: Path, work: Path, durability: str, src: Path | None = None, loop: str = "auto"
) -> dict[str, Any]:
    """Spawn on a copy of the prefilled store; seconds to the first healthy
    /healthz (the hub loads every table and arms its timer before listening)."""
    target = work / f"restart-{durability}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(db) + suffix)
        if part.exists():
            shutil.copy(part, target / (db.name + suffix))
    server = ServerProc("vigil", target, durability=durability, src=src, loop=loop)
    try:
        seconds = server.start()
        health = server.health()
        rss = status_kib(server.pid, "VmRSS")
    finally:
        server.stop()
    return {"seconds": round(seconds, 3), "tables_loaded": health.get("tables"), "rss_kib": rss}


def _sustained_cell(r: dict[str, Any]) -> str:
    cell = f"{r['sustained_per_s']} ({r['sustained_p99_ms']})"
    return cell + (" gen-bound" if r["ramp_generator_bound"] else "")


def render(report: dict[str, Any]) -> str:
    cols = [("baseline", report.get("baseline"))]
    for mode, res in report["vigil"].items():
        cols.append((f"vigil {mode}", res))
    base = report.get("baseline")
    base_cpu = base["fixed"]["server_cpu_us_per_cmd"] if base else None

    def fx(res: dict[str, Any] | None, key: str) -> Any:
        return res["fixed"][key] if res else None

    rows: list[tuple[str, list[Any], str]] = []
    rows.append(("connections", [r["connections"] if r else None for _, r in cols], ""))
    for k in ("p50_ms", "p95_ms", "p99_ms", "max_ms"):
        tgt = "≤ 5" if k == "p99_ms" else ""
        rows.append((f"{k[:-3]} ms @ {report['config']['rate']:g}/s", [fx(r, k) for _, r in cols], tgt))
    rows.append(
        (
            "errors / commands",
            [f"{fx(r, 'errors')}/{fx(r, 'scheduled')}" if r else None for _, r in cols],
            "~0",
        )
    )
    rows.append(
        (
            "sustained cmds/s (p99 ms)",
            [_sustained_cell(r) if r else None for _, r in cols],
            "p99 ≤ 50",
        )
    )
    rows.append(("server CPU µs/cmd", [fx(r, "server_cpu_us_per_cmd") for _, r in cols], ""))
    rows.append(
        (
            "  × baseline",
            [
                round(r["fixed"]["server_cpu_us_per_cmd"] / base_cpu, 2) if (r and base_cpu) else None
                for _, r in cols
            ],
            f"≤ {TARGETS['cpu_ratio']}",
        )
    )
    rows.append(("generator CPU µs/cmd", [fx(r, "gen_cpu_us_per_cmd") for _, r in cols], ""))
    rows.append(("generator CPU share", [fx(r, "gen_cpu_share") for _, r in cols], ""))
    rows.append(("bytes/patch/client (mix)", [fx(r, "bytes_per_patch") for _, r in cols], ""))
    rows.append(
        (
            "one-field patch bytes",
            [r["one_field_patch_bytes"] if r else None for _, r in cols],
            f"≤ {TARGETS['one_field_patch_bytes']}",
        )
    )
    rows.append(
        (
            "rest toggle patch bytes",
            [r["rest_toggle_patch_bytes"] if r else None for _, r in cols],
            f"≤ {TARGETS['rest_toggle_patch_bytes']}",
        )
    )
    rows.append(("peak RSS MiB", [round(r["rss_peak_kib"] / 1024, 1) if r else None for _, r in cols], ""))
    rows.append(("RSS KiB/connection", [r["rss_per_conn_kib"] if r else None for _, r in cols], "≤ 40"))
    rows.append(
        (
            f"restart s ({report.get('prefill', {}).get('entries', 0)} entries)",
            [r["restart"]["seconds"] if (r and "restart" in r) else None for _, r in cols],
            "≤ 2",
        )
    )
    header = ["figure", *[name for name, _ in cols], "target"]
    table = [
        header,
        *[[name, *[("-" if v is None else str(v)) for v in vals], tgt] for name, vals, tgt in rows],
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    own: dict[str, Any] = {
        "ramp": None if args.no_ramp else args.ramp,
        "ramp_seconds": args.ramp_seconds,
        "prefill": args.prefill,
    }
    work, report = begin(args, "vigil-bench-", own=own)
    report["vigil"] = {}
    log("mix:\n  " + "\n  ".join(workload.mix_lines()))
    if not args.skip_baseline:
        log("baseline:")
        baseline = ServerProc("baseline", work / "baseline", loop=args.loop)
        report["baseline"] = await measure_server(baseline, args, log)
    db = work / "prefill" / "vigil.sqlite3"
    modes = [m.strip() for m in args.durability.split(",") if m.strip()]
    if args.prefill > 0:
        log(f"prefill {args.prefill} entries ...")
        report["prefill"] = prefill(db, args.tables, args.chars, args.prefill)
        log(f"  {report['prefill']}")
    for mode in modes:
        log(f"vigil durability={mode}:")
        server = ServerProc(
            "vigil", work / f"vigil-{mode}", durability=mode, src=args.vigil_src, loop=args.loop
        )
        res = await measure_server(server, args, log)
        if args.prefill > 0:
            res["restart"] = measure_restart(db, work, mode, args.vigil_src, args.loop)
            log(f"  restart: {res['restart']}")
        report["vigil"][mode] = res
    report["targets"] = _verdicts(report)
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _verdicts(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    base = report.get("baseline")
    for mode, r in report["vigil"].items():
        v: dict[str, Any] = {"p99_ms_at_fixed": [r["fixed"]["p99_ms"], TARGETS["p99_ms_at_fixed"]]}
        if base:
            ratio = r["fixed"]["server_cpu_us_per_cmd"] / max(base["fixed"]["server_cpu_us_per_cmd"], 1e-9)
            v["cpu_ratio"] = [round(ratio, 3), TARGETS["cpu_ratio"]]
        v["rss_per_conn_kib"] = [r["rss_per_conn_kib"], TARGETS["rss_per_conn_kib"]]
        v["one_field_patch_bytes"] = [r["one_field_patch_bytes"], TARGETS["one_field_patch_bytes"]]
        v["rest_toggle_patch_bytes"] = [r["rest_toggle_patch_bytes"], TARGETS["rest_toggle_patch_bytes"]]
        if "restart" in r:
            v["restart_s"] = [r["restart"]["seconds"], TARGETS["restart_s"]]
        for key, (value, limit) in list(v.items()):
            v[key] = {"value": value, "target": limit, "met": value is not None and value <= limit}
        out[mode] = v
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(arg.split("=", 1)[0] in ("--nodes", "--store") for arg in argv):
        from bench import cluster  # Vigil as nodes of a cluster: its own options

        return cluster.main(argv)
    args = parse(argv)
    report = asyncio.run(main_async(args))
    print(render(report))
    line = json.dumps(report, separators=(",", ":"))
    print("BENCH_JSON " + line)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
