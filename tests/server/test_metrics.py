"""``/metrics`` on its own listener, scraped from a real server over real
sockets and read with prometheus_client's own parser.

Every expected value is what the test itself saw happen: the acks and
error answers its clients got, the bytes they read, the revs the table
went through, the connections it opened. No timing is asserted: the timer
lag is only checked to have been observed.
"""

from __future__ import annotations

import asyncio
import collections
import json
import pathlib
import time
import urllib.error
import urllib.request
from typing import Any, cast

import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from tests.server.conftest import Running, make_config
from tests.server.test_slow_client import NOTES, _server_conns, _stalled_client
from tests.support.client import WAIT, Client
from tests.support.server import ServerProcess
from websockets.asyncio.client import ClientConnection

from vigil import auth, cli
from vigil.config import Config
from vigil.net.app import shutdown, start
from vigil.protocol import ALL_COMMANDS
from vigil.rules import words

RATE = 60.0  # one game minute per wall second: the raider (Mettle 3) departs 3 s after dying
TAGS = {str(c.__struct_config__.tag) for c in ALL_COMMANDS}


class Counting(ClientConnection):
    """A client connection that adds up the bytes of every message it reads."""

    received = 0

    async def recv(self, decode: bool | None = None) -> Any:
        message = await super().recv(decode)
        self.received += len(message.encode() if isinstance(message, str) else message)
        return message


def scrape(url: str) -> list[Sample]:
    """Every sample the metrics listener serves, parsed as Prometheus does."""
    with urllib.request.urlopen(url, timeout=WAIT) as reply:
        assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = reply.read().decode()
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def value(samples: list[Sample], name: str, **labels: str) -> float:
    (found,) = [s.value for s in samples if s.name == name and s.labels == labels]
    return found


def by_label(samples: list[Sample], name: str, label: str) -> dict[str, float]:
    return {s.labels[label]: s.value for s in samples if s.name == name}


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def healthz(server: ServerProcess) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/healthz", timeout=WAIT) as reply:
        body: dict[str, Any] = json.loads(reply.read())
        return body


def _status(gm: Client, char: str) -> str:
    assert gm.state is not None
    return str(gm.state["characters"][char]["sheet"]["status"])


async def test_metrics_follow_connections_commands_refusals_and_timers(tmp_path: pathlib.Path) -> None:
    server = ServerProcess(data_dir=tmp_path / "d", extra_args=["--metrics-port", "0"]).start()
    metrics_url = server.banner["Metrics"]
    clients: list[Client] = []
    try:
        assert metrics_url.startswith("http://127.0.0.1:"), "loopback unless told otherwise"
        before = scrape(metrics_url)
        assert value(before, "vigil_tables_loaded") == healthz(server)["tables"]
        assert set(by_label(before, "vigil_connections", "role").values()) == {0}

        async def open_client(token: str, **kwargs: Any) -> Client:
            client = await Client.open(server.ws_url, token, create_connection=Counting, **kwargs)
            clients.append(client)
            return client

        roles = {
            "gm": server.gm_token,
            "player": server.player_token,
            "spectator": server.spectator_token,
            "operator": server.operator_token,
        }
        assert set(roles) == set(auth.ROLES), "a connection of every role"
        by_role = {
            role: await open_client(token, expect_state=role != "operator") for role, token in roles.items()
        }
        gm, player, operator = by_role["gm"], by_role["player"], by_role["operator"]
        first_rev = gm.rev
        refused_hello = await open_client("v1.demo.not-a-signed-token")
        connected = scrape(metrics_url)
        assert by_label(connected, "vigil_connections", "role") == dict.fromkeys(auth.ROLES, 1)

        acked: collections.Counter[str] = collections.Counter()

        async def send(client: Client, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            reply = await client.cmd(body, **kwargs)
            if reply["type"] == "ack":
                acked[body["type"]] += 1
            return reply

        created = await send(
            operator, {"type": "table.create", "system": "dryh", "name": "Secret Name", "id": "hidden-table"}
        )
        assert created["type"] == "ack"
        assert (await send(player, {"type": "mettle.pain", "char": "raider", "amount": 1}))["type"] == "error"
        assert (await send(gm, {"type": "mettle.heal", "char": "nobody", "amount": 1}))["type"] == "error"
        for body in (
            {"type": "table.options", "options": {"pause_without_gm": False}},
            {"type": "clock.run", "rate": RATE},
            {"type": "mettle.pain", "char": "raider", "amount": 5},  # dying: departs on the clock
        ):
            assert (await send(gm, body))["type"] == "ack", body
        # From here no command: only the table's timer can make the raider depart.
        await gm.wait_for(lambda c: _status(c, "raider") == "departed")
        for client in clients:
            if client.table:
                await client.wait_rev(gm.rev)
        after = scrape(metrics_url)

        assert value(after, "vigil_tables_loaded") == healthz(server)["tables"] == 2
        commands = by_label(after, "vigil_commands_total", "command")
        assert set(commands) == TAGS
        assert {tag: n for tag, n in commands.items() if n} == dict(acked)
        errors = collections.Counter(e["code"] for c in clients for e in c.errors)
        assert refused_hello.errors and errors["forbidden"] >= 1
        refusals = by_label(after, "vigil_refusals_total", "code")
        assert {code: n for code, n in refusals.items() if n} == dict(errors)
        assert set(refusals) <= {*words.catalogue()[1], "other"}
        # Every message a client read was counted, once, on the path it took.
        sent = by_label(after, "vigil_sent_bytes_total", "path")
        assert sent["fanout"] > 0 and sent["reply"] > 0
        assert sent["fanout"] + sent["reply"] == sum(cast(Counting, c.ws).received for c in clients)
        # Each commit group holds at least one of the table's new entries.
        commits = value(after, "vigil_commit_seconds_count") - value(before, "vigil_commit_seconds_count")
        assert 1 <= commits <= gm.rev - first_rev
        assert value(after, "vigil_commit_seconds_sum") > value(before, "vigil_commit_seconds_sum")
        lag = value(after, "vigil_timer_lag_seconds_count")
        assert lag >= 1 and value(after, "vigil_timer_lag_seconds_bucket", le="+Inf") == lag
        assert value(after, "vigil_timer_lag_seconds_sum") >= 0
        assert value(after, "vigil_backlog_drops_total") == 0
        assert value(after, "process_resident_memory_bytes") > 0, "the process basics come with it"

        # Labels are roles, command types and codes: no table, character or token.
        assert gm.state is not None
        secrets = {"demo", "hidden-table", "Secret Name", "Demo table", *gm.state["characters"]}
        secrets |= {ch["name"] for ch in gm.state["characters"].values()}
        secrets |= {c.welcome["token_id"] for c in clients if c.welcome}
        for sample in after:
            for label in sample.labels.values():
                assert not any(s in label for s in secrets), sample

        for client in clients:
            await client.close()
        deadline = time.monotonic() + WAIT
        while set(by_label(scrape(metrics_url), "vigil_connections", "role").values()) != {0}:
            assert time.monotonic() < deadline, "every closed connection leaves the gauge"
            await asyncio.sleep(0.1)

        # Only the metrics listener has /metrics, and it has nothing else.
        assert status_of(f"{server.url}/metrics") == 404
        assert status_of(metrics_url.replace("/metrics", "/healthz")) == 404
        assert status_of(f"{server.url}/healthz") == 200 and healthz(server)["ok"]
    finally:
        for client in clients:
            await client.close()
        server.stop()


async def test_a_dropped_slow_client_is_counted(tmp_path: pathlib.Path) -> None:
    """The in-process server of the slow-client tests, whose socket buffers
    a test can shrink; counters belong to the process, so these are deltas."""
    config = make_config(tmp_path, backlog_bytes=32 * 1024, stall_seconds=1.0, metrics_port=0)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        assert config.metrics_url is not None
        assert hub.listeners[0].sockets[0].getsockname()[0] == "127.0.0.1"
        before = await asyncio.to_thread(scrape, config.metrics_url)
        _table, gm = await run.table("mettle", {"a": {"mettle": 5}})
        stalled = await _stalled_client(run, await run.mint(gm, "gm"))
        for i in range(60):
            await gm.ok({"type": "character.meta", "char": "a", "notes": f"{i}{NOTES}"})
        deadline = time.monotonic() + WAIT
        while _server_conns(run, stalled):
            assert time.monotonic() < deadline, "the stalled client was not dropped"
            await asyncio.sleep(0.1)
        after = await asyncio.to_thread(scrape, config.metrics_url)
        for name in ("vigil_backlog_exceeded_total", "vigil_backlog_drops_total"):
            assert value(after, name) - value(before, name) == 1, name
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
    assert not any(listener.is_serving() for listener in hub.listeners), "closed with the server"


def test_the_metrics_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    """Off by default; VIGIL_METRICS_PORT turns it on (empty or "off": off);
    never the public port."""
    assert Config().metrics_port is None and Config().metrics_url is None
    monkeypatch.setenv("VIGIL_METRICS_PORT", "9464")
    config = Config.from_env()
    assert config.metrics_port == 9464 and config.metrics_url == "http://127.0.0.1:9464/metrics"
    monkeypatch.setenv("VIGIL_METRICS_PORT", "off")
    assert Config.from_env().metrics_port is None
    with pytest.raises(ValueError, match="VIGIL_METRICS_PORT"):
        Config(port=9464, metrics_port=9464).check()
    args = ["serve", "--data-dir", str(tmp_path), "--port", "9470", "--metrics-port", "9470"]
    assert cli.main(args) == 2
