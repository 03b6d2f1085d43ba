"""Vigil as one and as two nodes of a cluster (PostgreSQL store, Redis bus)
under the bench's tables, mix and fixed rate: each node's CPU per command,
the latencies of commands sent on a table's owner and of those forwarded
from another node, what forwarding costs the node that forwards (the
edge) and the owner, and Redis' and PostgreSQL's CPU. One command:

    .venv/bin/python -m bench.cluster          # = python -m bench --nodes 1,2 --store postgresql
    .venv/bin/python -m bench.cluster --help

It starts a throwaway PostgreSQL cluster and a redis-server on free ports
(tests/support: the same ones the tests start), then for each node count a
fresh schema, an empty Redis and that many ``vigil serve --store --bus``
nodes. With two nodes, half the tables are made through each node (a node
owns what it makes; the ``owners`` leases in PostgreSQL say so, and the
owners are read from there). Every table's GM and players are connected
twice, once to the table's owner and once to the other node, and its
spectators alternate between the two, so that each node holds half of
every table's audience and a phase chooses per command which copy sends
it — the connections, and so the patches written to sockets, stay the same
in every phase, and the difference between phases is the forwarding alone:

- ``local``: every command sent on its table's owner (nothing forwarded;
  the audience is still split, so each change goes over Redis to the
  other node's half);
- ``one_way``: the commands for n1's tables sent on n2 (half of all,
  forwarded n2 → n1), the others on their owner: n2's extra over
  ``local`` is the edge's cost, n1's the owner's;
- ``both_ways``: each command sent on a node drawn at random (half
  forwarded, each way).

The one-node run has the same connections, all on its node (``local``
only): the reference for what the second node adds. CPU is read from
/proc (utime + stime) at the start and end of each measured phase, as the
one-server bench does; PostgreSQL's is its postmaster's and every backend's.
Prints a table, then one JSON line (prefixed ``BENCH_JSON``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from tests.support import postgres as pgsupport
from tests.support import redis as redissupport

from bench import loadgen, provision
from bench.common import add_load_options, begin, log
from bench.loadgen import Conn, Rec, TableRun, Want
from bench.procs import ServerProc, cpu_times, tree_cpu_times

PHASES: dict[str, str] = {
    "local": "every command sent on its table's owner",
    "one_way": "commands for n1's tables sent on n2 (forwarded n2 → n1), the others on their owner",
    "both_ways": "each command sent on a node drawn at random (half forwarded, both ways)",
}
TITLES = {"local": "local", "one_way": "n2 → n1", "both_ways": "both ways"}


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__.split("\n")[0])
    p.add_argument("--nodes", default="1,2", help="node counts to run, comma-separated: 1, 2 or 1,2")
    p.add_argument("--store", choices=("postgresql",), default="postgresql", help="the shared store")
    add_load_options(p, seconds="measured seconds per phase", warmup="unmeasured seconds before the phases")
    p.add_argument("--phases", default=",".join(PHASES), help="two-node phases: " + ", ".join(PHASES))
    p.add_argument("--lease-seconds", type=float, help="the nodes' --lease-seconds (default: Vigil's)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--work-dir", type=Path, help="keep the nodes' logs here (default: a temporary directory)")
    p.add_argument("--json-out", type=Path, help="also write the JSON result to this file")
    p.add_argument("--vigil-src", type=Path, help="run Vigil from this server/ directory (A/B runs)")
    p.add_argument("--loop", choices=("auto", "uvloop", "asyncio"), default="auto")
    args = p.parse_args(argv)
    args.node_counts = [int(n) for n in args.nodes.split(",") if n.strip()]
    if not args.node_counts or any(n not in (1, 2) for n in args.node_counts):
        p.error("--nodes: 1, 2 or 1,2")
    args.phase_names = [x.strip() for x in args.phases.split(",") if x.strip()]
    if "local" not in args.phase_names or any(x not in PHASES for x in args.phase_names):
        p.error(f"--phases: local and any of {', '.join(PHASES)}")
    return args


@dataclass
class Services:
    """The PostgreSQL cluster and the Redis every run shares (a fresh schema
    and an empty Redis per run)."""

    postgres: pgsupport.Cluster
    redis: redissupport.RedisServer

    @property
    def postmaster(self) -> int:
        """The postmaster's pid (the first line of ``postmaster.pid``)."""
        return int((self.postgres.directory / "data" / "postmaster.pid").read_text().split()[0])

    def fresh_store(self, schema: str) -> str:
        with psycopg.connect(self.postgres.url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA {schema}")
        self.redis.flush()
        return pgsupport.schema_url(self.postgres.url, schema)

    def stop(self) -> None:
        self.redis.stop()
        shutil.rmtree(self.redis.directory, ignore_errors=True)
        self.postgres.stop()
        shutil.rmtree(self.postgres.directory, ignore_errors=True)


def start_services() -> Services:
    """PostgreSQL and Redis as the tests start them (tests/support)."""
    if pgsupport.binaries() is None:
        raise SystemExit("PostgreSQL's server is not installed (apt-get install postgresql)")
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    postgres = pgsupport.start_cluster()
    try:
        redis = redissupport.start_server()
    except BaseException:
        postgres.stop()
        shutil.rmtree(postgres.directory, ignore_errors=True)
        raise
    return Services(postgres, redis)


class ClusterGenerator(loadgen.Generator):
    """The bench's generator over several nodes: each table's connections
    split between its owner and the other node (the module's docstring),
    each command sent on the copy its phase says, and tagged with the node
    it went through and whether it was forwarded."""

    def __init__(
        self,
        nodes: dict[str, ServerProc],
        owners: dict[str, str],
        tables: list[TableRun],
        spectators: int,
        services: Services,
        seed: int,
    ) -> None:
        super().__init__(nodes["n1"], tables, spectators, seed=seed)
        self.nodes = nodes
        self.owners = owners
        self.mode = "local"
        self.coin = random.Random(seed + 1)  # both_ways' draws, apart from the mix's
        self.twins: dict[Conn, Conn] = {}  # a sender on the owner -> its copy on the other node
        self.meters = {name: functools.partial(cpu_times, node.pid) for name, node in nodes.items()}
        self.meters["redis"] = functools.partial(cpu_times, _pid(services.redis))
        self.meters["postgresql"] = functools.partial(tree_cpu_times, services.postmaster)
        self.server_meters = tuple(nodes)

    def other(self, table: TableRun) -> str:
        """The node that does not own ``table`` (its owner with one node)."""
        owner = self.owners[table.id]
        return next((n for n in self.nodes if n != owner), owner)

    def _wants(self) -> list[Want]:
        wants: list[Want] = []
        for k, t in enumerate(self.tables):
            near, far = self.owners[t.id], self.other(t)
            for primary, node in ((True, near), (False, far)):
                url = self.nodes[node].ws_url
                wants.append(Want(t, "gm", t.gm_token, None, url, node, primary))
                players = t.player_tokens
                wants.extend(Want(t, "player", tok, char, url, node, primary) for tok, char in players)
            for j in range(self.spectators):
                node = near if (j + k) % 2 == 0 else far
                wants.append(Want(t, "spectator", t.spectator_token, None, self.nodes[node].ws_url, node))
        return wants

    async def connect_all(self, concurrency: int = 32) -> int:
        count = await super().connect_all(concurrency)
        for t in self.tables:
            assert t.gm is not None
            primaries: dict[tuple[str, str | None], Conn] = {("gm", None): t.gm}
            primaries.update({("player", ch): c for ch, c in t.owner_conn.items()})
            chosen = set(primaries.values())
            for copy in t.conns:
                twin = primaries.get((copy.role, copy.char))
                if twin is not None and copy not in chosen:
                    self.twins[twin] = copy
        return count

    def _route(self, rec: Rec, sender: Conn) -> Conn:
        owner = self.owners[rec.table.id]
        forward = (self.mode == "one_way" and owner == "n1" and len(self.nodes) > 1) or (
            self.mode == "both_ways" and self.coin.random() < 0.5
        )
        conn = self.twins.get(sender, sender) if forward else sender
        rec.tags = (f"via {conn.node}", "local" if conn.node == owner else "forwarded")
        return conn

    def connections(self) -> dict[str, int]:
        counts = dict.fromkeys(self.nodes, 0)
        for t in self.tables:
            for c in t.conns:
                counts[c.node] += 1
        return counts


def _pid(redis: redissupport.RedisServer) -> int:
    assert redis.proc is not None
    return redis.proc.pid


def read_owners(store: str) -> dict[str, str]:
    """Each table's owner, as its lease in PostgreSQL says."""
    with psycopg.connect(store, autocommit=True) as conn:
        rows = conn.execute("SELECT table_id, node FROM owners WHERE expires > now()").fetchall()
    return {str(table): str(node) for table, node in rows}


async def run_nodes(
    count: int, services: Services, args: argparse.Namespace, work: Path, log: Any
) -> dict[str, Any]:
    """One run: ``count`` nodes on a fresh schema, provisioned, connected,
    warmed up, then each phase measured."""
    store = services.fresh_store(f"bench_{count}_nodes")
    lease = ["--lease-seconds", str(args.lease_seconds)] if args.lease_seconds else []
    nodes: dict[str, ServerProc] = {}
    result: dict[str, Any] = {"nodes": count}
    gen: ClusterGenerator | None = None
    try:
        for i in range(1, count + 1):
            name = f"n{i}"
            extra = ["--store", store, "--bus", services.redis.url, "--node-id", name, *lease]
            nodes[name] = ServerProc(
                "vigil", work / f"{count}-nodes" / name, src=args.vigil_src, loop=args.loop, extra_args=extra
            )
            nodes[name].start()
        t0 = time.perf_counter()
        tables: list[TableRun | None] = [None] * args.tables
        made_by: dict[str, str] = {}
        for i, (name, node) in enumerate(nodes.items()):
            share = list(range(i, args.tables, count))
            runs = await provision.vigil_tables(node, args.tables, args.players, args.chars, share)
            for k, run in zip(share, runs, strict=True):
                tables[k] = run
                made_by[run.id] = name
        ready = [t for t in tables if t is not None]
        log(f"  provisioned {len(ready)} tables in {time.perf_counter() - t0:.1f}s")
        owners = read_owners(store)
        result["owned_as_made"] = sum(1 for t, n in made_by.items() if owners.get(t) == n)
        if set(owners) != set(made_by):
            raise RuntimeError(f"tables without a live lease: {sorted(set(made_by) - set(owners))}")
        gen = ClusterGenerator(nodes, owners, ready, args.spectators, services, args.seed)
        t0 = time.perf_counter()
        total = await gen.connect_all()
        result["connections"] = gen.connections()
        log(f"  connected {total} ({result['connections']}) in {time.perf_counter() - t0:.1f}s")
        await asyncio.sleep(1.0)
        if args.warmup > 0:
            await gen.run_phase(args.rate, args.warmup, drain=2.0)
        result["phases"] = {}
        for name in args.phase_names if count > 1 else ["local"]:
            await asyncio.sleep(1.0)
            gen.mode = name
            load = os.getloadavg()[0]
            summary = loadgen_summary(await gen.run_phase(args.rate, args.seconds))
            summary["loadavg_1m_before"] = round(load, 2)
            summary["closed_by_server"] = gen.closed_by_server()  # since the run's start
            result["phases"][name] = summary
            log(f"  {name}: {_brief(summary, list(nodes))}")
        result["health"] = {name: node.health() for name, node in nodes.items()}
        result["failures"] = gen.failures[:10]
    finally:
        if gen is not None:
            await gen.close()
        for node in nodes.values():
            node.stop()
    return result


def loadgen_summary(phase: loadgen.Phase) -> dict[str, Any]:
    """A phase's summary without what this report does not use."""
    summary = phase.summary()
    for key in ("categories", "backlog_samples"):
        summary.pop(key, None)
    return summary


def done(phase: dict[str, Any]) -> int:
    """Commands answered in the phase (the CPU figures' denominator)."""
    return max(int(phase["completed"]) + int(phase["errors"]), 1)


def forwarded(phase: dict[str, Any]) -> int:
    tag = phase["by_tag"].get("forwarded") or {"completed": 0, "errors": 0}
    return int(tag["completed"]) + int(tag["errors"])


def us_per_cmd(phase: dict[str, Any], name: str) -> float:
    """``name``'s CPU over the phase per command answered, µs."""
    return float(phase["cpu_s_by"][name]) / done(phase) * 1e6


def nodes_us(phase: dict[str, Any], nodes: list[str]) -> float:
    return sum(us_per_cmd(phase, n) for n in nodes)


def overheads(report: dict[str, Any]) -> dict[str, Any]:
    """What forwarding costs, per forwarded command: each node's CPU per
    second over a forwarding phase less its CPU per second in ``local``
    (the same connections and rate), over the forwarded commands per
    second; and the two nodes against the one-node run, per command."""
    runs = report["runs"]
    out: dict[str, Any] = {}
    two = runs.get("2")
    if two is None:
        return out
    phases = two["phases"]
    local = phases["local"]

    def extra(phase: dict[str, Any], names: list[str]) -> float | None:
        fwd = forwarded(phase)
        if not fwd:
            return None
        cost = sum(
            float(phase["cpu_s_by"][n]) / phase["seconds"] - float(local["cpu_s_by"][n]) / local["seconds"]
            for n in names
        )
        return round(float(cost / (fwd / phase["seconds"]) * 1e6), 1)

    if "one_way" in phases:
        out["edge_us_per_forwarded"] = extra(phases["one_way"], ["n2"])
        out["owner_extra_us_per_forwarded"] = extra(phases["one_way"], ["n1"])
    if "both_ways" in phases:
        out["both_ways_us_per_forwarded"] = extra(phases["both_ways"], ["n1", "n2"])
    one = runs.get("1")
    if one is not None:
        base = us_per_cmd(one["phases"]["local"], "n1")
        out["vs_one_node_us_per_cmd"] = {
            name: round(nodes_us(phase, ["n1", "n2"]) - base, 1) for name, phase in phases.items()
        }
        out["vs_one_node_ratio"] = {
            name: round(nodes_us(phase, ["n1", "n2"]) / base, 3) for name, phase in phases.items()
        }
    return out


def _brief(s: dict[str, Any], nodes: list[str]) -> str:
    cpu = " ".join(f"{n} {us_per_cmd(s, n):.0f}" for n in [*nodes, "redis", "postgresql"])
    return (
        f"p50 {s['p50_ms']} p99 {s['p99_ms']} ms, done {s['completed']}/{s['scheduled']} err {s['errors']}"
        f" forwarded {forwarded(s)}; CPU µs/cmd: {cpu}; gen {s['gen_cpu_share']}"
    )


def render(report: dict[str, Any]) -> str:
    cols: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for count, run in report["runs"].items():
        for name, phase in run["phases"].items():
            title = "1 node" if count == "1" else f"2 nodes, {TITLES[name]}"
            cols.append((title, run, phase))
    names = ["n1", "n2"] if "2" in report["runs"] else ["n1"]
    one = report["runs"].get("1")
    base = us_per_cmd(one["phases"]["local"], "n1") if one else None

    def lat(tag: dict[str, Any] | None) -> str:
        return f"{tag['p50_ms']} / {tag['p99_ms']}" if tag and tag["completed"] else "-"

    def cell(run: dict[str, Any], phase: dict[str, Any], what: str) -> str:
        nodes = [n for n in names if n in phase["cpu_s_by"]]
        if what == "connections":
            return " / ".join(str(run["connections"].get(n, "-")) for n in names)
        if what == "commands":
            return f"{phase['completed']}/{phase['scheduled']} ({phase['errors']} err)"
        if what == "forwarded":
            return str(forwarded(phase))
        if what == "all":
            return f"{phase['p50_ms']} / {phase['p99_ms']}"
        if what in ("local", "forwarded_lat"):
            return lat(phase["by_tag"].get("local" if what == "local" else "forwarded"))
        if what.startswith("via "):
            return lat(phase["by_tag"].get(what))
        if what.startswith("cpu "):
            node = what[4:]
            return f"{us_per_cmd(phase, node):.0f}" if node in phase["cpu_s_by"] else "-"
        if what == "nodes":
            return f"{nodes_us(phase, nodes):.0f}"
        if what == "ratio":
            return f"{nodes_us(phase, nodes) / base:.2f}" if base else "-"
        if what == "everything":
            return f"{nodes_us(phase, [*nodes, 'redis', 'postgresql']):.0f}"
        if what == "gen":
            return str(phase["gen_cpu_share"])
        if what == "load":
            return str(phase["loadavg_1m_before"])
        if what == "closed":
            return ", ".join(f"{n} {why}" for why, n in phase["closed_by_server"].items()) or "0"

        raise ValueError(what)

    rate = f"{report['config']['rate']:g}/s"
    rows = [
        ("connections (n1 / n2)", "connections"),
        (f"commands at {rate}", "commands"),
        ("forwarded", "forwarded"),
        ("p50 / p99 ms, all", "all"),
        ("p50 / p99 ms, sent on the owner", "local"),
        ("p50 / p99 ms, forwarded", "forwarded_lat"),
        *[(f"p50 / p99 ms, sent on {n}", f"via {n}") for n in names],
        *[(f"{n} CPU µs/cmd", f"cpu {n}") for n in names],
        ("nodes' CPU µs/cmd", "nodes"),
        ("  × 1 node", "ratio"),
        ("Redis CPU µs/cmd", "cpu redis"),
        ("PostgreSQL CPU µs/cmd", "cpu postgresql"),
        ("all servers' CPU µs/cmd", "everything"),
        ("generator CPU share", "gen"),
        ("load average before", "load"),
        ("closed by the server, so far", "closed"),
    ]
    header = ["figure", *[title for title, _r, _p in cols]]
    table = [header, *[[label, *[cell(r, p, what) for _t, r, p in cols]] for label, what in rows]]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    over = report["overheads"]
    words = {
        "edge_us_per_forwarded": "edge node (n2) CPU per forwarded command, n2 → n1 less local",
        "owner_extra_us_per_forwarded": "owner's (n1) extra CPU per forwarded command, n2 → n1 less local",
        "both_ways_us_per_forwarded": "both nodes' extra CPU per forwarded command, both ways less local",
    }
    for key, text in words.items():
        if key in over:
            lines.append(f"{text}: {over[key]} µs")
    for name, value in over.get("vs_one_node_us_per_cmd", {}).items():
        lines.append(f"two nodes' CPU per command less one node's, {TITLES[name]}: {value} µs")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    servers = {"nodes": args.node_counts, "store": args.store}
    own: dict[str, Any] = {
        "warmup": args.warmup,
        "phases": {name: PHASES[name] for name in args.phase_names},
        "lease_seconds": args.lease_seconds,
    }
    work, report = begin(args, "vigil-bench-cluster-", own=own, servers=servers)
    report["runs"] = {}
    log("phases:\n  " + "\n  ".join(f"{n}: {PHASES[n]}" for n in args.phase_names))
    t0 = time.perf_counter()
    services = start_services()
    log(f"PostgreSQL and Redis up in {time.perf_counter() - t0:.1f}s")
    try:
        for count in args.node_counts:
            log(f"{count} node{'s' if count > 1 else ''}:")
            report["runs"][str(count)] = await run_nodes(count, services, args, work, log)
    finally:
        services.stop()
    report["overheads"] = overheads(report)
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return report


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    report = asyncio.run(main_async(args))
    print(render(report))
    print("BENCH_JSON " + json.dumps(report, separators=(",", ":")))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
