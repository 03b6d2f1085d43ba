"""What plain HTTP serves: packaged files only, and any other path a 404
(or 414 when too long), never a 500 or a file outside the package data."""

from __future__ import annotations

import http.client

import pytest
from tests.support.server import ServerProcess


def status(server: ServerProcess, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        reply.read()
        return reply.status
    finally:
        conn.close()


def test_packaged_files_are_served(vigil_server: ServerProcess) -> None:
    for path in (
        "/",
        "/watch",
        "/static/render.js",
        "/client/core/client.js",
        "/client/core/display.js",
        "/foundry/module.json",
        "/foundry/lang/en.json",
        "/foundry/scripts/main.js",
        "/schemas/codes.json",
    ):
        assert status(vigil_server, path) == 200, path


@pytest.mark.parametrize(
    "path",
    [
        "/client/../../pyproject.toml",
        "/client/%2e%2e/%2e%2e/pyproject.toml",
        "/static/../net/http.py",
        "/foundry/test/core.test.mjs",  # the module's tests are not runtime files
        "/foundry/tools/build-vendor.mjs",
        "/foundry/package.json",
        "/foundry/node_modules/pixi.js/package.json",
        "/client/.eslintrc",
        "/schemas/",
        "/static/" + "a" * 300,  # once an OSError (file name too long) and a 500
        "/schemas/" + "b" * 256,
        "/nothing-here",
    ],
)
def test_other_paths_are_not_found(vigil_server: ServerProcess, path: str) -> None:
    assert status(vigil_server, path) == 404


def test_an_over_long_path_is_refused_as_too_long(vigil_server: ServerProcess) -> None:
    assert status(vigil_server, "/static/" + "c/" * 400) == 414
