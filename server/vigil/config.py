"""Server settings: every limit of docs/design.md "Limits" is one of these, set by a
flag or a ``VIGIL_*`` environment variable."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class Config:
    # The address to listen on. A table served is a "host" at the edge
    # (vigil.net.host); the flag and variable keep the name operators know
    # (--host, VIGIL_HOST: ``env``).
    address: str = field(default="127.0.0.1", metadata={"env": "HOST"})
    port: int = 8765
    data_dir: Path = Path("./vigil-data")
    # Where the data is: empty for the SQLite file in data_dir, or a
    # postgresql:// URL (README "Stores and durability").
    store: str = ""
    durability: str = "normal"  # or "full": fsync per commit group
    public_url: str = ""  # how browsers reach us, for printed links
    origins: list[str] = field(default_factory=list)  # empty = any Origin
    demo: bool = True  # create a demo table on first start
    log_format: str = "auto"  # auto | json | console
    # info: connections, refusals, warnings; debug adds a line per applied
    # change (the table's history is the audit of what was applied).
    log_level: str = "info"
    event_loop: str = "auto"  # auto (uvloop if installed) | uvloop | asyncio
    max_message: int = 64 * 1024
    rate_per_s: float = 20.0
    rate_burst: int = 40
    # Connections per table, every role; spectators take at most
    # max_spectators_per_table of them (the rest are kept for the GM and
    # players), and at most max_spectators_per_token on one spectator link.
    max_connections_per_table: int = 200
    max_spectators_per_table: int = 150
    max_spectators_per_token: int = 20
    # Patches kept per table for resume: at most this many revs and this
    # many bytes of encoded messages, whichever bound comes first.
    replay_buffer: int = 1000
    replay_buffer_bytes: int = 1024 * 1024
    # A table's changes between snapshots: a restart replays at most this
    # many per table (a snapshot of a table costs about 10 µs on the loop
    # and one write in a thread; 100,000 entries restart in well under a
    # second at 200, not at 1,000: docs/design.md "Cost of a command").
    snapshot_every: int = 200
    undo_depth: int = 20
    backlog_bytes: int = 1024 * 1024
    stall_seconds: float = 5.0
    hello_timeout: float = 10.0
    # While a GM is connected to a running clock, the moment is written this
    # often: after a crash the clock stops where it stood then.
    presence_mark_seconds: float = 10.0
    gm_token_days: float = 30.0
    player_token_days: float = 30.0
    spectator_token_days: float | None = None  # until revoked
    max_effects_per_advance: int = 100_000
    # Prometheus metrics (GET /metrics) on a listener of their own, never
    # on the public port: off unless a port is given (0: any free port,
    # printed), on the loopback interface unless told otherwise.
    metrics_port: int | None = None
    metrics_address: str = field(default="127.0.0.1", metadata={"env": "METRICS_HOST"})
    # A cluster (README "Many nodes"): a redis:// URL makes this process one
    # node of several sharing the PostgreSQL store; empty, it is alone.
    bus: str = ""
    # This node's name in the cluster (owners, logs, /healthz); empty: the
    # host's name and the port, the same again after a restart, so that a
    # node restarted takes back its own tables at once.
    node_id: str = ""
    # How long a node's lease on a table lasts without renewal (renewed
    # every third of it): a dead node's tables are taken over after at most
    # this long and one sweep more.
    lease_seconds: float = 10.0
    # How often an owner tells the other nodes how far each of its tables
    # is (they catch up what pub/sub dropped).
    beacon_seconds: float = 1.0

    @property
    def db_path(self) -> Path:
        return self.data_dir / "vigil.sqlite3"

    @property
    def base_url(self) -> str:
        return self.public_url or f"http://{self.address}:{self.port}"

    @property
    def metrics_url(self) -> str | None:
        """Where Prometheus scrapes (None: no metrics listener)."""
        if self.metrics_port is None:
            return None
        return f"http://{self.metrics_address}:{self.metrics_port}/metrics"

    def page_url(self, role: str, token: str) -> str:
        """The page a token opens: the spectator view for a spectator's, the
        dashboard for any other (the token in the fragment, never sent)."""
        page = "/watch" if role == "spectator" else "/"
        return f"{self.base_url}{page}#token={token}"

    def token_days(self, role: str) -> float | None:
        """How long a new token of ``role`` lives by default (docs/design.md
        "Security": GM and player 30 days, spectator until revoked; None:
        until revoked)."""
        return {
            "gm": self.gm_token_days,
            "player": self.player_token_days,
            "spectator": self.spectator_token_days,
        }.get(role)

    def check(self) -> None:
        """Refuse settings that would keep no place for the GM and players
        (spectators alone could then fill a table and lock them out), or
        that would put the metrics on the public port."""
        if self.max_spectators_per_table >= self.max_connections_per_table:
            raise ValueError(
                f"VIGIL_MAX_SPECTATORS_PER_TABLE ({self.max_spectators_per_table}) must be less than "
                f"VIGIL_MAX_CONNECTIONS_PER_TABLE ({self.max_connections_per_table}), "
                "so that places are kept for the GM and players"
            )
        if self.bus and not self.store:
            raise ValueError(
                "VIGIL_BUS needs VIGIL_STORE: the nodes of a cluster share a PostgreSQL store "
                "(postgresql://…)"
            )
        if self.bus and not self.bus.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"VIGIL_BUS must be a redis:// URL, not {self.bus!r}")
        if self.lease_seconds <= 0 or self.beacon_seconds <= 0:
            raise ValueError("VIGIL_LEASE_SECONDS and VIGIL_BEACON_SECONDS must be positive")
        if self.metrics_port is not None and self.metrics_port == self.port != 0:
            raise ValueError(
                f"VIGIL_METRICS_PORT ({self.metrics_port}) must differ from VIGIL_PORT: "
                "metrics are served on a listener of their own, never on the public port"
            )

    @property
    def node(self) -> str:
        """This node's name (:attr:`node_id`, or the host's name and port)."""
        return self.node_id or f"{socket.gethostname()}:{self.port}"

    @property
    def forward_seconds(self) -> float:
        """How long a node waits for the answer to a request it forwarded
        before telling the client the outcome is unknown: long enough for
        the owner to commit, short of the client's own patience."""
        return self.lease_seconds + 5.0

    @classmethod
    def from_env(cls, overrides: dict[str, Any] | None = None) -> Config:
        """Defaults, then ``VIGIL_<NAME>`` variables, then explicit flags."""
        config = cls()
        for f in fields(cls):
            raw = os.environ.get(f"VIGIL_{f.metadata.get('env', f.name.upper())}")
            if raw is not None:
                setattr(config, f.name, _parse(f.name, getattr(config, f.name), raw))
        for name, value in (overrides or {}).items():
            if value is not None:
                setattr(config, name, value)
        config.data_dir = Path(config.data_dir)
        return config


def _parse(name: str, current: Any, raw: str) -> Any:
    if isinstance(current, bool):
        return raw.lower() in ("1", "true", "yes", "on")
    if name == "metrics_port":  # optional: empty, "none" or "off" is no listener
        return None if raw.lower() in ("", "none", "off") else int(raw)
    if isinstance(current, int):
        return int(raw)
    if isinstance(current, float) or name.endswith("_days"):
        return None if raw.lower() in ("", "none") else float(raw)
    if isinstance(current, list):
        return [item.strip() for item in raw.split(",") if item.strip()]
    if isinstance(current, Path):
        return Path(raw)
    return raw
