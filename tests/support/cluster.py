"""Many real ``vigil serve`` nodes sharing one PostgreSQL database (the
test's schema: tables, tokens, the ``owners`` leases) and one Redis (the
bus), for the tests of ownership, forwarding and failover.

Nodes are named ``n1``, ``n2``, … and started in that order: ``n1`` first,
alone, so that it is the one that finds the store empty and makes the demo
table (its banner holds the demo tokens); the others start with
``--no-demo``. Every node has a short lease (``LEASE_SECONDS``), so that a
killed node's tables move within seconds.

``wait_owner`` polls PostgreSQL for the table's lease until it satisfies the
test or a bound passes: failover is waited for, never timed. ``pause`` and
``resume`` freeze a node (SIGSTOP) and wake it (SIGCONT), as a process
stalled past its lease; ``env`` gives the nodes started next settings.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.support.server import ServerProcess

LEASE_SECONDS = 2
# How long wait_owner waits by default: a lease runs out after
# LEASE_SECONDS and the others sweep every third of it; the rest is slack
# for a loaded machine.
TAKEOVER_BOUND = LEASE_SECONDS * 5
POLL = 0.1


@dataclass
class VigilCluster:
    store: str  # a postgresql:// URL (the test's schema)
    bus: str  # a redis:// URL
    root: Path  # each node's --data-dir is root / name
    nodes: dict[str, ServerProcess] = field(default_factory=dict)
    # VIGIL_* settings of every node started from now on.
    env: dict[str, str] = field(default_factory=dict)
    # The lease of every node started from now on (seconds).
    lease: float = LEASE_SECONDS

    def start(self, count: int) -> VigilCluster:
        """Start nodes until there are ``count`` of them."""
        while len(self.nodes) < count:
            self.add()
        return self

    def add(self) -> ServerProcess:
        """Start the next node (``n1`` makes the demo table, no other does)."""
        name = f"n{len(self.nodes) + 1}"
        args = [
            "--store",
            self.store,
            "--bus",
            self.bus,
            "--node-id",
            name,
            "--lease-seconds",
            str(self.lease),
        ]
        if self.nodes:
            args.append("--no-demo")
        node = ServerProcess(data_dir=self.root / name, extra_args=args, env=dict(self.env))
        self.nodes[name] = node  # before start: a node that fails to start is still stopped
        node.start()
        return node

    def __getitem__(self, name: str) -> ServerProcess:
        return self.nodes[name]

    @property
    def first(self) -> ServerProcess:
        """``n1``, whose banner holds the demo table's tokens."""
        return self.nodes["n1"]

    def kill(self, name: str) -> None:
        """SIGKILL: the node says nothing, its leases run out."""
        self.nodes[name].stop(signal.SIGKILL)

    def stop(self, name: str) -> int:
        """SIGTERM: the node shuts down as it does when told to."""
        return self.nodes[name].stop()

    def pause(self, name: str) -> None:
        """SIGSTOP: the node is frozen (its sockets stay open, nothing is
        read or written), as a process stalled past its lease would be."""
        proc = self.nodes[name].proc
        assert proc is not None
        proc.send_signal(signal.SIGSTOP)
        # Stopped once the kernel says so (state T), not when the signal is sent.
        stat = Path(f"/proc/{proc.pid}/stat")
        deadline = time.monotonic() + 5
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "T":
            assert time.monotonic() < deadline, f"{name} did not stop"
            time.sleep(0.01)

    def resume(self, name: str) -> None:
        """SIGCONT: the frozen node runs on, believing what it believed."""
        proc = self.nodes[name].proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGCONT)

    def restart(self, name: str) -> ServerProcess:
        """Stop (if still running) and start again on the same port."""
        return self.nodes[name].restart()

    def stop_all(self) -> None:
        """Stop every node as told to (one left frozen is woken first); one
        that does not stop is killed."""
        for name, node in self.nodes.items():
            self.resume(name)
            try:
                node.stop()
            except subprocess.TimeoutExpired:
                node.stop(signal.SIGKILL)

    def owner_of(self, table_id: str) -> str | None:
        """The node whose lease on the table has not run out, if any."""
        with psycopg.connect(self.store, autocommit=True) as conn:
            row = conn.execute(
                "SELECT node FROM owners WHERE table_id = %s AND expires > now()", (table_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def wait_owner(
        self, table_id: str, *, other_than: str | None = None, bound: float = TAKEOVER_BOUND
    ) -> str:
        """The table's owner once there is one (other than ``other_than``,
        e.g. a node just killed); fails after ``bound`` seconds."""
        deadline = time.monotonic() + bound
        owner = self.owner_of(table_id)
        while owner is None or owner == other_than:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"table {table_id!r}: owner {owner!r} after {bound}s (waited for one "
                    f"other than {other_than!r})"
                )
            time.sleep(POLL)
            owner = self.owner_of(table_id)
        return owner

    def healthz(self, name: str) -> dict[str, Any]:
        """The node's ``/healthz`` JSON, also when it answers 503 (closing)."""
        try:
            with urllib.request.urlopen(f"{self.nodes[name].url}/healthz", timeout=5) as reply:
                body = reply.read()
        except urllib.error.HTTPError as refused:
            body = refused.read()
        document = json.loads(body)
        assert isinstance(document, dict)
        return document


@pytest.fixture
def vigil_cluster(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[VigilCluster]:
    """No node yet: the test starts as many as it needs (``.start(3)``);
    every node is stopped at the end (their leases die with the schema)."""
    cluster = VigilCluster(store=postgres_url, bus=redis_url, root=tmp_path / "nodes")
    try:
        yield cluster
    finally:
        cluster.stop_all()
