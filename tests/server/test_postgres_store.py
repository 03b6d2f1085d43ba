"""``vigil serve --store postgresql://…`` over real sockets, on a real
PostgreSQL: a table made and played, its commands acknowledged only once
PostgreSQL has committed them, and everything there after a SIGKILL and a
start that names the store by ``VIGIL_STORE`` instead."""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys
import time

import psycopg
from tests.support.client import WAIT, Client
from tests.support.server import ServerProcess


def vigil(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vigil.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )


async def _waiting_on_a_lock(url: str) -> None:
    """Until one of Vigil's connections waits for a lock (its commit)."""
    deadline = time.monotonic() + WAIT
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE application_name = 'vigil' AND wait_event_type = 'Lock'"
            ).fetchone()
            if row is not None and row[0] > 0:
                return
            await asyncio.sleep(0.02)
    raise AssertionError("Vigil's commit never reached PostgreSQL")


def _logged(url: str, table: str) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT rev FROM log WHERE table_id = %s ORDER BY rev", (table,)).fetchall()
    return [r[0] for r in rows]


async def test_a_server_on_postgresql_acks_after_the_commit_and_keeps_everything_across_a_kill(
    tmp_path: pathlib.Path, postgres_url: str
) -> None:
    server = ServerProcess(data_dir=tmp_path / "d", extra_args=["--store", postgres_url]).start()
    try:
        assert server.banner["Data"].startswith("postgresql://vigil@127.0.0.1:"), server.banner["Data"]
        assert not (server.data_dir / "vigil.sqlite3").exists(), "no SQLite file beside it"
        op = await Client.open(server.ws_url, server.operator_token, expect_state=False)
        body = {"type": "table.create", "system": "mettle", "name": "Friday", "id": "friday"}
        created = await op.ok(body)
        await op.close()
        gm = await Client.open(server.ws_url, created["gm_token"])
        await gm.ok({"type": "character.create", "id": "c", "name": "Cara", "sheet": {"mettle": 9}})
        for label in ("cut", "bruise"):
            await gm.ok({"type": "mettle.injury_add", "char": "c", "label": label, "penalty": 1})
        assert _logged(postgres_url, "friday") == [1, 2, 3]

        # PostgreSQL holds the log locked: the command's commit waits, and
        # so does its ack (and its patch); both come once the commit is made.
        rev = gm.rev
        with psycopg.connect(postgres_url) as locker:
            locker.execute("LOCK TABLE log IN EXCLUSIVE MODE")
            graze = {"type": "mettle.injury_add", "char": "c", "label": "graze", "penalty": 1}
            sent = asyncio.create_task(gm.ok(graze))
            await _waiting_on_a_lock(postgres_url)
            assert not sent.done() and gm.rev == rev, "nothing acknowledged before the commit"
            locker.rollback()
        await asyncio.wait_for(sent, WAIT)
        assert _logged(postgres_url, "friday") == [1, 2, 3, 4]
        await gm.close()

        server.kill()
        server.extra_args = []
        server.env = {"VIGIL_STORE": postgres_url}
        server.start()
        gm = await Client.open(server.ws_url, created["gm_token"])
        assert gm.state is not None and gm.rev == 4
        injuries = gm.state["characters"]["c"]["sheet"]["injuries"]
        assert [i["label"] for i in injuries] == ["cut", "bruise", "graze"]
        page = await gm.request({"type": "history", "table": "friday", "limit": 10})
        assert [e["rev"] for e in page["entries"]] == [4, 3, 2, 1]
        assert gm.state["undo"]["command"] == "mettle.injury_add", "the undo stack, from the log"
        await gm.ok({"type": "undo"})
        labels = [i["label"] for i in gm.state["characters"]["c"]["sheet"]["injuries"]]
        assert labels == ["cut", "bruise"]

        # A token minted offline against the same store is accepted at once.
        minted = vigil(
            "token", "--store", postgres_url, "--table", "friday", "--role", "spectator", "--label", "late"
        )
        assert minted.returncode == 0, minted.stderr
        watcher = await Client.open(server.ws_url, minted.stdout.strip())
        assert watcher.state is not None and watcher.rev == gm.rev
        listed = {t["label"] for t in await gm.ok({"type": "token.list"})}
        assert "late" in listed
        operator = vigil("token", "--operator", "--store", postgres_url)
        assert operator.stdout.strip() == server.operator_token, "one operator token per store"
        await watcher.close()
        await gm.close()
    finally:
        server.stop()


def test_a_store_that_cannot_be_opened_is_said_plainly(tmp_path: pathlib.Path) -> None:
    refused = vigil("serve", "--data-dir", str(tmp_path), "--store", "mysql://somewhere/vigil")
    assert refused.returncode == 2 and "unknown store 'mysql://somewhere/vigil'" in refused.stderr
