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


def test_a_loopback_public_url_gives_way_to_the_host_foundry_asked_by() -> None:
    """Foundry's server downloads the zip, often from another container or
    host: a manifest naming localhost or 0.0.0.0 would send it nowhere."""
    base = foundry_package.package_base
    assert base("http://localhost:8765", "vigil.lan:8765") == "http://vigil.lan:8765"
    assert base("http://0.0.0.0:8765", "10.0.0.5:8765") == "http://10.0.0.5:8765"
    assert base("http://127.0.0.1:8765", "[fd00::5]:8765") == "http://[fd00::5]:8765"
    assert base(PUBLIC, "evil.test") == PUBLIC, "a public URL the operator set is kept"
    assert base("http://localhost:8765", None) == "http://localhost:8765"
    assert base("http://localhost:8765", "a b/c") == "http://localhost:8765", "no odd Host echoed"


def test_served_manifest_is_reachable_from_where_foundry_asked(vigil_server: ServerProcess) -> None:
    """A server on a loopback address with no public URL (the Docker
    defaults' case) names the host Foundry used, in the manifest and the zip."""
    ask = urllib.request.Request(
        f"{vigil_server.url}/foundry/module.json", headers={"Host": "vigil.lan:8765"}
    )
    with urllib.request.urlopen(ask, timeout=10) as reply:
        served = json.loads(reply.read())
    assert served["download"] == "http://vigil.lan:8765/foundry/vigil.zip"
    assert served["manifest"] == "http://vigil.lan:8765/foundry/module.json"


def test_licence_in_manifest_and_zip_and_dice_so_nice_recommended(public_server: ServerProcess) -> None:
    _, body = fetch(public_server, "/foundry/module.json")
    served = json.loads(body)
    assert served["license"] == f"{PUBLIC}/foundry/LICENSE"
    assert {"id": "dice-so-nice", "type": "module"}.items() <= served["relationships"]["recommends"][
        0
    ].items()
    _, licence = fetch(public_server, "/foundry/LICENSE")
    assert b"MIT License" in licence
    _, blob = fetch(public_server, "/foundry/vigil.zip")
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        assert archive.read("LICENSE") == licence, "the module's own licence ships in the zip"
