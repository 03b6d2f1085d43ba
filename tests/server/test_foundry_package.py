"""Foundry installs the module from Vigil itself: /foundry/module.json is the
packaged manifest completed for this server (its public URL, its version),
and /foundry/vigil.zip, built by the server, holds the module's runtime files
with that same module.json inside."""

from __future__ import annotations

import io
import json
import pathlib
import urllib.request
import zipfile
from collections.abc import Iterator

import pytest
from tests.support.server import ServerProcess

from vigil import __version__, foundry_package, resources

PUBLIC = "https://vigil.example.org"


def fetch(server: ServerProcess, path: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(f"{server.url}{path}", timeout=10) as reply:
        return reply.headers["Content-Type"], reply.read()


@pytest.fixture
def public_server(tmp_path: pathlib.Path) -> Iterator[ServerProcess]:
    server = ServerProcess(data_dir=tmp_path / "data", extra_args=["--public-url", PUBLIC]).start()
    try:
        yield server
    finally:
        server.stop()


def test_served_manifest_points_at_this_server_and_the_zip_holds_it(public_server: ServerProcess) -> None:
    kind, body = fetch(public_server, "/foundry/module.json")
    assert kind == "application/json"
    served = json.loads(body)
    assert served["version"] == __version__
    assert served["manifest"] == f"{PUBLIC}/foundry/module.json"
    assert served["download"] == f"{PUBLIC}/foundry/vigil.zip"
    assert served["id"] == "vigil"
    assert "OWNER" not in body.decode()

    kind, blob = fetch(public_server, "/foundry/vigil.zip")
    assert kind == "application/zip"
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        assert archive.testzip() is None
        assert json.loads(archive.read("module.json")) == served
        assert sorted(archive.namelist()) == sorted(resources.foundry_files())
        main = resources.foundry_file("scripts/main.js")
        assert main is not None
        assert archive.read("scripts/main.js") == main.read_bytes()
        for name in archive.namelist():
            assert not name.startswith(("test/", "tools/", "node_modules/")), name

    assert public_server.banner["Foundry module"] == (
        f"paste {PUBLIC}/foundry/module.json into Foundry's Install Module dialog"
    )


def test_zip_is_the_same_bytes_for_the_same_files() -> None:
    foundry_package.zip_bytes.cache_clear()
    first = foundry_package.zip_bytes("http://a.test")
    foundry_package.zip_bytes.cache_clear()
    assert foundry_package.zip_bytes("http://a.test") == first
    assert foundry_package.manifest("http://a.test/")["download"] == "http://a.test/foundry/vigil.zip"
