"""The server's own work per command, without sockets: where the time goes.

``python -m bench`` measures the whole server against the bare library over
real sockets; this measures only what Vigil adds, in one process, stage by
stage, on the same tables and the same command mix (``bench.workload``):
decoding the command, the rules (``Table.prepare``), the views and their
patches (``Table.commit``), encoding per audience, the log entries and the
SQLite commit. It is the profile used to choose what to make faster; the
figures it prints are CPU-bound and repeat well on a quiet machine, but on
2 shared cores they are a guide, not a measurement of record.

    .venv/bin/python -m bench.inproc                 # 20,000 commands
    .venv/bin/python -m bench.inproc --profile 30    # and cProfile's top 30
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgspec

from bench import workload
from bench.provision import layout
from vigil.changes import LogEntry
from vigil.net.fanout import encode
from vigil.protocol import command_decoder
from vigil.rules.dice import RandomDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError
from vigil.store.sqlite import SqliteStore
from vigil.table import Table
from vigil.views import GM_AUDIENCE, PUBLIC_AUDIENCE, Audience

STAGES = ("decode", "advance", "prepare", "commit_views", "encode", "entries", "store")
_enc = msgspec.json.Encoder()


class Bench:
    def __init__(self, tables: int, players: int, chars: int, store: SqliteStore, seed: int) -> None:
        self.rng = random.Random(seed)
        self.store = store
        self.dice = RandomDice(seed)
        self.tables: list[tuple[Table, dict[str, int], dict[str, workload.CharLocal]]] = []
        self.wall = time.time()
        for i, (system, ids, owners) in enumerate(layout(tables, players, chars)):
            t = Table.new(f"t{i}", GAMES[system], f"Bench {i}", {}, self.wall, undo_depth=20)
            for cid in ids:
                body = {
                    "type": "character.create",
                    "id": cid,
                    "name": f"Char {cid}",
                    "kind": "pc" if cid in owners else "npc",
                    "sheet": workload.SHEETS[system],
                }
                self._apply(t, _enc.encode(body), Actor(id="gm", role="gm"), None)
            # The audiences of the socket bench: the GM, one player per
            # owned character, the spectators (one audience).
            t.watch(GM_AUDIENCE)
            t.watch(PUBLIC_AUDIENCE)
            for cid in owners:
                t.watch(Audience("player", frozenset({cid})))
            self.tables.append((t, owners, {}))
        self.times: Counter[str] = Counter()
        self.refused = 0

    def _apply(self, t: Table, raw: bytes, actor: Actor, times: Counter[str] | None) -> None:
        clock = time.perf_counter
        a = clock()
        body = command_decoder.decode(raw)
        b = clock()
        ctx = Ctx(dice=self.dice, actor=actor, max_effects=100_000)
        due = t.advance(self.wall, Ctx(dice=self.dice, actor=Actor(), max_effects=100_000))
        rendered = [] if due is None else [encode(t, t.commit(due))]
        c = clock()
        change = t.prepare(body, self.wall, ctx)  # type: ignore[arg-type]
        d = clock()
        patches = t.commit(change)
        e = clock()
        rendered.append(encode(t, patches))
        f = clock()
        kept = [change] if due is None else [due, change]
        entries: list[LogEntry] = [k.entry(t.id, t.epoch, self.wall) for k in kept]
        g = clock()
        self.store.append(entries)
        h = clock()
        if times is not None:
            for stage, span in zip(STAGES, (b - a, c - b, d - c, e - d, f - e, g - f, h - g), strict=True):
                times[stage] += span

    def step(self) -> None:
        category = self.rng.choices(list(workload.MIX), [w for w, _s, _d in workload.MIX.values()])[0]
        systems = workload.MIX[category][1]
        pool = [entry for entry in self.tables if entry[0].system.name in systems]
        t, owners, local = self.rng.choice(pool)
        gm_view = t.seen_by(GM_AUDIENCE)
        actor = Actor(id="gm", role="gm")
        if category == "clock_combat":
            body = workload.table_command(gm_view, local.setdefault("", workload.CharLocal()))
        else:
            char = self.rng.choice(sorted(t.state.characters))
            memory = local.setdefault(char, workload.CharLocal())
            choice = workload.choose(category, t.system.name, char, char in owners, gm_view, memory)
            body = choice.body
            if choice.by_owner:
                actor = Actor(id=f"player-{char}", role="player")
        self.wall += 0.05
        try:
            self._apply(t, _enc.encode(body), actor, self.times)
        except RuleError:
            self.refused += 1


def _legal_cost(bench: Bench) -> tuple[float, float]:
    """What the ``legal`` request costs: per table, its GM's first ask in
    the current state (the rules' legal moves found, then narrowed), and
    each of its players' after it (narrowed only). Seconds, averaged."""
    first = others = 0.0
    asks = 0
    for t, owners, _local in bench.tables:
        a = time.process_time()
        t.legal(GM_AUDIENCE)
        b = time.process_time()
        for cid in owners:
            t.legal(Audience("player", frozenset({cid})))
        first += b - a
        others += time.process_time() - b
        asks += len(owners)
    return first / len(bench.tables), others / max(asks, 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.inproc", description=__doc__.split("\n")[0])
    p.add_argument("-T", "--tables", type=int, default=100)
    p.add_argument("-P", "--players", type=int, default=5)
    p.add_argument("-C", "--chars", type=int, default=6)
    p.add_argument("-n", "--commands", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--profile", type=int, default=0, help="also print cProfile's top N (slower)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "vigil.sqlite3")
        bench = Bench(args.tables, args.players, args.chars, store, args.seed)
        for _ in range(min(2_000, args.commands)):  # warm up: caches, first rolls
            bench.step()
        bench.times.clear()
        bench.refused = 0
        profiler = cProfile.Profile() if args.profile else None
        began = time.process_time()
        if profiler is not None:
            profiler.enable()
        for _ in range(args.commands):
            bench.step()
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - began
        legal = _legal_cost(bench)
        store.close()
    n = args.commands
    print(f"{n} commands ({bench.refused} refused), {cpu / n * 1e6:.1f} µs CPU per command in all")
    for stage in STAGES:
        print(f"  {stage:<13} {bench.times[stage] / n * 1e6:7.1f} µs")
    print(f"  {'(staged sum)':<13} {sum(bench.times.values()) / n * 1e6:7.1f} µs")
    print(
        f"  legal (asked) {legal[0] * 1e6:7.1f} µs per state (the GM's, first ask), "
        f"{legal[1] * 1e6:.1f} µs more per player asking; not in the sum: a page asks "
        "once the table is quiet, never per change"
    )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
