"""``vigil serve``: start the store, load every table, listen, and stop
gracefully on SIGTERM (stop accepting, finish in-flight commands, close
clients with 1001)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import resource
import signal
import sys
from collections.abc import Callable
from typing import Any

import structlog
from websockets.asyncio.server import Server, ServerConnection, serve

from vigil.changes import Change
from vigil.config import Config
from vigil.net import metrics
from vigil.net.connection import handle
from vigil.net.errors import Refused
from vigil.net.http import metrics_route, route
from vigil.net.hub import Hub
from vigil.net.writer import Edit
from vigil.rules.game import Actor, Ctx
from vigil.store import Store, open_store
from vigil.table import Table
from vigil.table_commands import CharacterCreate

log = structlog.get_logger("vigil")

DEMO_CHARACTERS = [
    CharacterCreate(id="brannoc", name="Brannoc", kind="pc", sheet={"mettle": 5}),
    CharacterCreate(id="ysolde", name="Ysolde", kind="pc", sheet={"mettle": 4}),
    CharacterCreate(id="raider", name="Raider", kind="npc", sheet={"mettle": 3}),
]


async def start(config: Config) -> tuple[Hub, Server]:
    """Load every table, create the demo table on a first start (before
    listening, so that a client never finds it half made), then listen."""
    config.check()
    store = open_store(config.store, config.db_path, config.durability)
    hub = make_hub(config, store)
    await hub.start()
    if config.demo and not hub.hosts and not await hub.placement.others():
        # Only into an empty store: a node of a cluster may hold none of the
        # tables of a store that has them all (a race of two first nodes
        # ends with one demo table).
        with contextlib.suppress(Refused):
            hub.demo_tokens = await create_demo(hub)
    if config.metrics_port is not None:
        await listen_metrics(hub)
    origins: Any = None
    if config.origins:
        origins = [*config.origins, None]  # None: non-browser clients send no Origin
    server = await serve(
        lambda ws: handle(hub, ws),
        config.address,
        config.port,
        process_request=lambda conn, req: route(hub, conn, req),
        max_size=config.max_message,
        compression=None,  # docs/design.md "Limits": ~70 KiB per connection, defeats encode-once
        origins=origins,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=5,
    )
    if config.port == 0:
        config.port = server.sockets[0].getsockname()[1]
    return hub, server


def make_hub(config: Config, store: Store) -> Hub:
    """The hub, and for a node of a cluster (``config.bus``) its part in it,
    wired once here: the cluster sits above the hub (it reaches tables,
    connections and the writer through it), and the hub and the fan-out
    reach it only through their ports (Placement: the cluster node; Relay:
    its owner's side, vigil.net.remote_peers), which a node
    alone fills with LocalPlacement and LocalRelay (the hub's and the
    fan-out's own, so that no code asks whether a cluster exists). Its module
    is imported only for a cluster: Redis's client is an optional
    dependency, as PostgreSQL's driver is (vigil.store.open_store)."""
    hub = Hub(config, store)
    if config.bus:
        from vigil.net.cluster import Cluster
        from vigil.store.postgres import PostgresStore

        if not isinstance(store, PostgresStore):
            raise ValueError("a cluster's nodes share a PostgreSQL store")
        cluster = hub.placement = Cluster(hub, store)
        hub.fanout.relay = cluster.peers
    return hub


async def listen_metrics(hub: Hub) -> None:
    """The metrics listener, on its own address (before the public port
    opens: a server that cannot serve its metrics stops before any client
    connects). It answers ``/metrics`` and nothing else, on the same loop as
    everything (no thread: the instruments' locks stay uncontended)."""
    config = hub.config
    registry = metrics.registry(hub)
    listener = await serve(
        _no_websocket,
        config.metrics_address,
        config.metrics_port,
        process_request=lambda conn, req: metrics_route(registry, conn, req),
        ping_interval=None,
    )
    if config.metrics_port == 0:
        config.metrics_port = listener.sockets[0].getsockname()[1]
    hub.listeners.append(listener)


async def _no_websocket(ws: ServerConnection) -> None:
    """Never called: the metrics listener answers every request over HTTP."""
    await ws.close()


async def create_demo(hub: Hub) -> dict[str, tuple[str, str]]:
    """A Pain & Mettle table with three characters, for a first look; its
    tokens by banner label, with the role whose page each one opens."""
    host = await hub.create_table("mettle", "Demo table", {}, "demo")
    gm = Actor(id="vigil#demo", role="gm")
    for body in DEMO_CHARACTERS:
        await hub.writer.run(host, Edit(actor=gm, make=functools.partial(_prepare, body)))
    gm_token, _ = await hub.access.mint(host, "gm", [], "demo gm", None)
    spectator, _ = await hub.access.mint(host, "spectator", [], "demo stream", None)
    player, _ = await hub.access.mint(host, "player", ["brannoc"], "Brannoc's player", None)
    return {
        "GM dashboard": ("gm", gm_token),
        "Spectator view": ("spectator", spectator),
        "Player page (Brannoc)": ("player", player),
    }


def _prepare(body: CharacterCreate, table: Table, wall: float, ctx: Ctx) -> Change:
    return table.prepare(body, wall, ctx)


def raise_nofile() -> int:
    """Every connection is a file descriptor: lift the soft limit to the
    hard one (often 1,024 → far more) so that thousands of clients fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# Python's cyclic GC, left at (700, 10, 10), runs a full collection over
# every connection's objects every few seconds under load: 40-100 ms
# pauses at 2,000 connections, the whole tail of the latency. Young
# collections every 20,000 allocations and full ones 100 times rarer cut
# its cost ~5x; a full collection every few minutes still reclaims the
# cycles that closed connections leave behind.
GC_THRESHOLDS = (20_000, 20, 100)
GC_FULL_EVERY = 300.0


def tune_gc() -> asyncio.Task[None]:
    gc.collect()
    gc.freeze()  # what start-up loaded lives as long as the process
    gc.set_threshold(*GC_THRESHOLDS)

    async def full_collections() -> None:
        while True:
            await asyncio.sleep(GC_FULL_EVERY)
            gc.collect()

    return asyncio.create_task(full_collections())


async def run(config: Config, on_ready: Callable[[Hub, Server], None] | None = None) -> None:
    raise_nofile()
    hub, server = await start(config)
    collector = tune_gc()
    lines = [
        f"Vigil listening on {config.base_url}  (WebSocket: {config.base_url.replace('http', 'ws', 1)}/ws)"
    ]
    lines.append(f"Data: {hub.store.location} (durability {config.durability})")
    if config.metrics_url is not None:
        lines.append(f"Metrics: {config.metrics_url}")
    lines.append(
        f"Foundry module: paste {config.base_url}/foundry/module.json into Foundry's Install Module dialog"
    )
    for label, (role, token) in hub.demo_tokens.items():
        lines.append(f"{label}: {config.page_url(role, token)}")
    lines.append(f"Operator token: {hub.access.operator_token()}")
    lines.append("More tokens: vigil token --table ID --role gm|player|spectator [--chars a,b]")
    print("\n".join(lines), file=sys.stdout, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if on_ready is not None:
        on_ready(hub, server)
    await stop.wait()
    log.info("shutting_down")
    collector.cancel()
    await shutdown(hub, server)


async def shutdown(hub: Hub, server: Server) -> None:
    await hub.stop()
    server.close()  # every connection gets CloseCode.GOING_AWAY (1001): clients reconnect
    await server.wait_closed()
    for listener in hub.listeners:
        listener.close()
        await listener.wait_closed()
    hub.store.close()
