"""A store with N real log entries, for the restart figure.

Entries are made exactly as the server makes them — ``Table.prepare`` /
``Table.commit`` through the real rules, ``LogEntry`` with rendered events,
``SqliteStore.append`` in commit groups, a snapshot every ``snapshot_every``
entries of a table — only without sockets, so 100,000 take seconds. Tables
get uneven shares (0.5× to 1.5× the mean) so their tails after the last
snapshot vary as they would in use. Pain & Mettle and Hursagmu tables run
their clock and carry a deadline (a rest under way, a poison), so the
restarted server has timers to arm.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgspec

from bench import workload
from bench.provision import layout
from vigil import auth
from vigil.changes import Change, LogEntry
from vigil.config import Config
from vigil.protocol import command_decoder
from vigil.rules.dice import SecureDice
from vigil.rules.game import Actor, Ctx
from vigil.rules.games import GAMES
from vigil.rules.outcome import RuleError
from vigil.store.base import TableRecord
from vigil.store.sqlite import SqliteStore
from vigil.table import Table

GM = Actor(id="gm#bench", role="gm")


def _cmd(body: dict[str, Any]) -> Any:
    return command_decoder.decode(msgspec.json.encode(body))


def _cycle(system: str, char: str, k: int) -> dict[str, Any]:
    """A valid, bounded cycle of GM commands per character."""
    if system == "mettle":
        return (
            {"type": "mettle.rattle", "char": char, "amount": 1}
            if k % 2 == 0
            else {"type": "mettle.pain", "char": char, "amount": 1}
            if k % 4 == 1
            else {"type": "mettle.heal", "char": char, "amount": 1}
        )
    if system == "hursagmu":
        return (
            {"type": "hursagmu.harm", "char": char, "stuns": 1}
            if k % 2 == 0
            else {"type": "correct", "char": char, "field": "stuns", "value": 0}
        )
    return {"type": "correct", "char": char, "field": "exhaustion", "value": k % 3}


def prefill(
    db_path: Path,
    tables: int,
    chars: int,
    entries: int,
    snapshot_every: int = Config().snapshot_every,
    group: int = 500,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    db_path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    store = SqliteStore(db_path, "normal")
    ctx = Ctx(dice=SecureDice(), actor=GM)
    weights = [0.5 + (i + 0.5) / tables for i in range(tables)]
    total_w = sum(weights)
    quota = [max(1, round(entries * w / total_w)) for w in weights]
    quota[-1] += entries - sum(quota)
    hosts: list[dict[str, Any]] = []
    for i, (system, ids, _owners) in enumerate(layout(tables, 0, chars)):
        wall = time.time()
        tid = f"r{i:04d}"
        table = Table.new(tid, GAMES[system], f"Restart {i}", {}, wall, undo_depth=Config().undo_depth)
        record = TableRecord(
            id=tid, system=system, name=f"Restart {i}", key=auth.new_key(), epoch=1, created=wall
        )
        store.create_table(record, table.doc)
        setup: list[dict[str, Any]] = [
            {"type": "character.create", "id": c, "name": c, "sheet": workload.SHEETS[system]} for c in ids
        ]
        if system != "dryh":
            setup.append({"type": "clock.run", "rate": 1.0})
        if system == "mettle":
            setup.append({"type": "mettle.rest_start", "char": ids[0]})
        if system == "hursagmu":
            setup.append(
                {
                    "type": "hursagmu.poison",
                    "char": ids[0],
                    "damage": 1,
                    "interval": 86400,
                    "duration": 864000,
                }
            )
        hosts.append(
            {
                "table": table,
                "system": system,
                "ids": ids,
                "left": quota[i],
                "setup": setup,
                "since": 0,
                "k": 0,
            }
        )
    pending: list[LogEntry] = []
    written = events = refused = 0
    active = list(hosts)
    while active:
        for host in list(active):
            if host["left"] <= 0:
                active.remove(host)
                continue
            table = host["table"]
            if host["setup"]:
                body = host["setup"].pop(0)
            else:
                k = host["k"]
                host["k"] += 1
                ids = host["ids"]
                body = _cycle(host["system"], ids[k % len(ids)], k // len(ids))
            wall = time.time()
            try:
                change: Change = table.prepare(_cmd(body), wall, ctx)
            except RuleError:
                refused += 1
                continue
            table.commit(change)
            pending.append(change.entry(table.id, table.epoch, wall))
            events += len(change.events)
            written += 1
            host["left"] -= 1
            host["since"] += 1
            if host["since"] >= snapshot_every:
                store.append(pending)
                pending = []
                host["since"] = 0
                doc = msgspec.json.decode(msgspec.json.encode(table.doc))
                store.snapshot(table.id, table.epoch, table.rev, doc)
            if len(pending) >= group:
                store.append(pending)
                pending = []
    store.append(pending)
    with_deadline = sum(1 for h in hosts if h["table"].next_wake() is not None)
    tails = sum(h["since"] for h in hosts)
    store.close()
    return {
        "entries": written,
        "events": events,
        "refused": refused,
        "tables": tables,
        "tables_with_deadline": with_deadline,
        "tail_entries_after_snapshots": tails,
        "seconds": round(time.perf_counter() - t0, 2),
    }
