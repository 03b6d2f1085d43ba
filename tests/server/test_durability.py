"""Kill -9 at seeded random moments under a stream of commands: after each
restart every acknowledged command is there, nothing unacknowledged is half
applied, and the history agrees with the state — on SQLite (committing on
the loop) and on PostgreSQL (committing from a worker thread)."""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
import time

import pytest
from tests.support.client import WAIT, Client
from tests.support.server import ServerProcess
from websockets.asyncio.client import connect

from vigil.protocol import PROTOCOL_VERSION

# Kills per store: PostgreSQL's run checks the same path through another
# commit (a thread, a network round trip) in fewer rounds.
KILLS = {"sqlite": 20, "postgresql": 10}
SEED = 20261130
WINDOW = 8  # commands in flight at once, so commit groups form


async def _stream(
    url: str, token: str, table: str, stop_after: float, first_ack: asyncio.Event
) -> tuple[int, int]:
    """Send injury_add with labels 0, 1, 2, … until the connection dies;
    return (highest acknowledged label + 1, labels sent). ``first_ack`` is
    set when the first command is acknowledged: the stream is running."""
    acked: set[int] = set()
    sent = 0
    deadline = time.monotonic() + stop_after + 10
    try:
        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token}))
            await ws.recv()
            await ws.recv()
            in_flight = 0
            while time.monotonic() < deadline and sent < 900:
                while in_flight < WINDOW and sent < 900:
                    body = {"type": "mettle.injury_add", "char": "c", "label": str(sent), "penalty": 1}
                    await ws.send(json.dumps({"type": "cmd", "id": str(sent), "table": table, "body": body}))
                    sent += 1
                    in_flight += 1
                msg = json.loads(await ws.recv())
                if msg["type"] == "ack":
                    acked.add(int(msg["id"]))
                    first_ack.set()
                    in_flight -= 1
                elif msg["type"] == "error":
                    raise AssertionError(msg)
    except Exception as exc:  # the kill ends the stream
        if isinstance(exc, AssertionError):
            raise
    contiguous = 0
    while contiguous in acked:
        contiguous += 1
    assert len(acked) == contiguous, "acks arrive for a prefix of the stream"
    return contiguous, sent


@pytest.mark.parametrize("store", list(KILLS))
async def test_acknowledged_commands_survive_sigkill(
    tmp_path: pathlib.Path, store: str, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(SEED)
    # A stream far above a person's pace; the rate limit is tested elsewhere.
    env = {"VIGIL_RATE_PER_S": "100000", "VIGIL_RATE_BURST": "100000"}
    if store == "postgresql":
        env["VIGIL_STORE"] = request.getfixturevalue("postgres_url")
    server = ServerProcess(data_dir=tmp_path / "d", env=env).start()
    operator = server.operator_token
    tables: dict[str, int] = {}
    try:
        for round_no in range(KILLS[store]):
            op = await Client.open(server.ws_url, operator, expect_state=False)
            created = await op.ok({"type": "table.create", "system": "mettle", "name": f"k{round_no}"})
            await op.close()
            gm = await Client.open(server.ws_url, created["gm_token"])
            await gm.ok({"type": "character.create", "id": "c", "name": "C", "sheet": {"mettle": 9}})
            await gm.close()
            table = created["table"]
            kill_after = rng.uniform(0.05, 0.5)
            running = asyncio.Event()
            stream = asyncio.create_task(
                _stream(server.ws_url, created["gm_token"], table, kill_after, running)
            )
            # The kill falls at a random moment of a stream that is running:
            # measured from its first acknowledgement, not from its start, so
            # that a slow start (a busy machine) cannot leave nothing to kill.
            waiting = asyncio.create_task(running.wait())
            await asyncio.wait([waiting, stream], timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            assert running.is_set(), "the stream got its first acknowledgement"
            await asyncio.sleep(kill_after)
            server.kill()
            acked, sent = await stream
            assert acked >= 1, "the stream really ran before the kill"
            server.start()
            tables[table] = acked
            gm = await Client.open(server.ws_url, created["gm_token"])
            assert gm.state is not None
            labels = [i["label"] for i in gm.state["characters"]["c"]["sheet"]["injuries"]]
            count = len(labels)
            assert labels == [str(i) for i in range(count)], "applied in order, none half-applied"
            assert acked <= count <= sent, (acked, count, sent)
            page = await gm.request({"type": "history", "table": table, "limit": 200})
            injuries_logged = sum(
                1 for e in page["entries"] for ev in e["events"] if ev["code"] == "injury_added"
            )
            assert injuries_logged == count or len(page["entries"]) == 200
            await gm.close()
        # Every earlier table is still whole after all the kills.
        op = await Client.open(server.ws_url, operator, expect_state=False)
        listed = {t["id"]: t for t in await op.ok({"type": "table.list"})}
        await op.close()
        assert set(tables) <= set(listed)
    finally:
        server.stop()
