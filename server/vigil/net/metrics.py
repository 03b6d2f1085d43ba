"""What the server counts for Prometheus, defined once here.

Events are counted where they happen, with `prometheus_client`'s
instruments (a well-kept library: the text and OpenMetrics formats, label
escaping and histograms are its job, not ours). A hook is one call on a
child made here, once per label value, never per event: no label lookup or
dict building on the hot path. Each increment takes the instrument's own
lock, uncontended since everything, the scrape included, runs on the one
event loop (about 0.3 µs a counter, 0.6 µs a histogram, against the
~1 ms a command costs). What the hub holds (the tables loaded) is read at
scrape time instead of being kept up to date.

Labels are roles, command types and refusal codes only: sets fixed by the
code (an unknown code counts as ``other``), never a table, character or
token, so the number of series is bounded whatever the tables hold.

The instruments belong to the process, like the counters of any exporter;
:func:`registry` gathers them, the hub's gauges and the process basics for
one metrics listener (:func:`vigil.net.http.metrics_route`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sized
from typing import Final, Protocol, TypeVar

import prometheus_client
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
)
from prometheus_client.core import GaugeMetricFamily, Metric

from vigil import auth
from vigil.protocol import ALL_COMMANDS
from vigil.rules import words

# A counter's ``_created`` series doubles the series count for a start time
# that ``process_start_time_seconds`` already gives.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

# Seconds. The store commits in ~0.1 ms on the loop at durability normal
# and in milliseconds with an fsync; timers fire within milliseconds on an
# idle loop, and seconds late under load or after a restart.
COMMIT_BUCKETS: Final = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
LAG_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)

CONNECTIONS: Final = Gauge(
    "vigil_connections", "Open connections past their hello, by role", ["role"], registry=None
)
COMMANDS: Final = Counter(
    "vigil_commands", "Commands acknowledged, by command type", ["command"], registry=None
)
REFUSALS: Final = Counter(
    "vigil_refusals",
    "Error answers sent (refused hellos, messages and commands, and internal errors), by code",
    ["code"],
    registry=None,
)
COMMIT_SECONDS: Final = Histogram(
    "vigil_commit_seconds",
    "Time the store takes to commit one group of log entries",
    buckets=COMMIT_BUCKETS,
    registry=None,
)
SENT_BYTES: Final = Counter(
    "vigil_sent_bytes",
    "Message bytes queued to clients, once per receiving connection: path fanout (welcomes, "
    "snapshots, patches, acks of changes) or reply (other answers, errors, pongs, history pages)",
    ["path"],
    registry=None,
)
BACKLOG_EXCEEDED: Final = Counter(
    "vigil_backlog_exceeded", "Clients whose unsent backlog went past the limit", registry=None
)
BACKLOG_DROPS: Final = Counter(
    "vigil_backlog_drops", "Clients dropped for not reading within the stall limit", registry=None
)
TIMER_LAG: Final = Histogram(
    "vigil_timer_lag_seconds",
    "How late a table's timer fired after the wall time its next effect was due",
    buckets=LAG_BUCKETS,
    registry=None,
)
MOVED: Final = Counter(
    "vigil_tables_moved",
    "Tables given up because another node took them over (table_moved), a commit's outcome "
    "could not be known (outcome_unknown), the store held another entry at its rev (conflict), or "
    "the leases could not be renewed in time (lease_unknown)",
    ["reason"],
    registry=None,
)
FORWARDED: Final = Counter(
    "vigil_forwarded",
    "Requests sent to the node owning their table, by outcome: answered, unknown (no answer in "
    "time: the client sends it again with the same id), unowned (nobody owned the table: the "
    "connection is closed to resume elsewhere), or not_sent (the bus was down: answered "
    "bus_unavailable, nothing done)",
    ["outcome"],
    registry=None,
)
FORGOTTEN_EARLY: Final = Counter(
    "vigil_requests_forgotten_early",
    "Applied requests a table forgot before the client's resend window had passed, for want of "
    "room (vigil.net.applied.MAX_BYTES): one sent again after this would be applied again",
    registry=None,
)
INSTRUMENTS: Final = (
    MOVED,
    FORGOTTEN_EARLY,
    FORWARDED,
    CONNECTIONS,
    COMMANDS,
    REFUSALS,
    COMMIT_SECONDS,
    SENT_BYTES,
    BACKLOG_EXCEEDED,
    BACKLOG_DROPS,
    TIMER_LAG,
)

# The children the hooks call, made once.
CONNECTED: Final[dict[str, Gauge]] = {role: CONNECTIONS.labels(role=role) for role in auth.ROLES}
ACCEPTED: Final = {
    str(c.__struct_config__.tag): COMMANDS.labels(command=str(c.__struct_config__.tag)) for c in ALL_COMMANDS
}
FANOUT_BYTES: Final = SENT_BYTES.labels(path="fanout")
REPLY_BYTES: Final = SENT_BYTES.labels(path="reply")
OTHER_CODE: Final = "other"
_refusals: dict[str, Counter] = {OTHER_CODE: REFUSALS.labels(code=OTHER_CODE)}


def refused(code: str) -> None:
    """One error answer with ``code``. Only codes the server knows (those
    with an English template, :mod:`vigil.rules.words`) get their own
    series, and a child is kept for each of them only: the series stay
    bounded even if a code were ever made up at run time."""
    child = _refusals.get(code)
    if child is None:
        if code in words.catalogue()[1]:
            child = _refusals[code] = REFUSALS.labels(code=code)
        else:
            child = _refusals[OTHER_CODE]
    child.inc()


T = TypeVar("T")
R = TypeVar("R")


def timed_commit(commit: Callable[[T], R]) -> Callable[[T], R]:
    """``commit`` (a store's ``append`` or ``append_nowait``) observed in
    :data:`COMMIT_SECONDS` when it commits (``append_nowait`` returning
    False did nothing, and is not a commit)."""

    def timed(entries: T) -> R:
        began = time.perf_counter()
        done = commit(entries)
        if done is not False:
            COMMIT_SECONDS.observe(time.perf_counter() - began)
        return done

    return timed


def timer_fired(due: float) -> None:
    """A table's timer fired for an effect due at wall time ``due``. The
    loop may run a callback a hair early (its clock's resolution): that
    counts as on time."""
    TIMER_LAG.observe(max(0.0, time.time() - due))


class Holdings(Protocol):
    """What a node holds, as the gauges read it at scrape time: the
    tables it serves, and its connections to other nodes' tables (the hub
    answers both; a protocol, so that the counters need not know it)."""

    @property
    def hosts(self) -> Sized: ...

    def remote_count(self) -> int: ...


class HubGauges:
    """What the hub holds, read when scraped (nothing kept up to date)."""

    def __init__(self, held: Holdings) -> None:
        self.held = held

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "vigil_tables_loaded",
            "Tables loaded in memory: the tables this node serves (of a cluster: those it owns)",
            value=len(self.held.hosts),
        )
        yield GaugeMetricFamily(
            "vigil_remote_connections",
            "Connections this node holds for tables other nodes own",
            value=self.held.remote_count(),
        )


def registry(held: Holdings) -> CollectorRegistry:
    """Everything one metrics listener serves: the instruments, the hub's
    gauges, and the process basics prometheus_client gathers (CPU, memory,
    file descriptors, start time; Python's version and garbage collector)."""
    gathered = CollectorRegistry(auto_describe=True)
    for collector in (*INSTRUMENTS, HubGauges(held), PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
        gathered.register(collector)
    return gathered
