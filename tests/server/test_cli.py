"""The ``vigil`` command a GM or operator types: tokens minted while the
server runs are accepted at once, tables can be created from the shell, and
the schema files are written."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from tests.support.client import Client
from tests.support.server import ServerProcess


def vigil(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vigil.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )


async def test_tokens_and_tables_from_the_shell(tmp_path: pathlib.Path) -> None:
    server = ServerProcess(data_dir=tmp_path / "d").start()
    try:
        data = str(server.data_dir)
        operator = vigil("token", "--operator", "--data-dir", data)
        assert operator.returncode == 0
        assert operator.stdout.strip() == server.operator_token, "one stable operator token"
        spectator = vigil(
            "token", "--data-dir", data, "--table", "demo", "--role", "spectator", "--label", "stream"
        )
        assert spectator.returncode == 0
        watcher = await Client.open(server.ws_url, spectator.stdout.strip())
        assert watcher.welcome is not None and watcher.welcome["role"] == "spectator"
        await watcher.close()
        player = vigil(
            "token", "--data-dir", data, "--table", "demo", "--role", "player", "--chars", "ysolde"
        )
        brannoc = await Client.open(server.ws_url, player.stdout.strip())
        assert brannoc.welcome is not None and brannoc.welcome["characters"] == ["ysolde"]
        await brannoc.close()
        missing = vigil("token", "--data-dir", data, "--table", "nope")
        assert missing.returncode == 2 and "demo" in missing.stderr
        created = vigil(
            "table",
            "create",
            "--system",
            "dryh",
            "--name",
            "Friday",
            "--id",
            "friday",
            "--url",
            server.ws_url,
            "--data-dir",
            data,
        )
        assert created.returncode == 0, created.stderr
        result = json.loads(created.stdout)
        assert result["table"] == "friday"
        gm = await Client.open(server.ws_url, result["gm_token"])
        assert gm.state is not None and gm.state["system"] == "dryh"
        await gm.close()
    finally:
        server.stop()


def test_schema_command_writes_both_files(tmp_path: pathlib.Path) -> None:
    done = vigil("schema", "--out", str(tmp_path))
    assert done.returncode == 0
    assert {p.name for p in tmp_path.iterdir()} == {"protocol.schema.json", "codes.json"}
    assert json.loads((tmp_path / "codes.json").read_text())["protocol"] == 1
