"""Vigil installed as a user installs it: the built wheel in a fresh venv.

The wheel is built from this checkout, installed into a virtualenv in a
temporary folder outside the repository, and started from there with no
``PYTHONPATH`` and a cwd outside the checkout, so nothing can be found
through the source layout. Then the dashboard and the spectator page load in
Chromium: they must draw the demo table, and every ES module they import
(pages, the shared client library, its generated catalogue) must load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, Response, expect
from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv (outside the checkout) with the built wheel installed."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    # pip builds in the tree, and setuptools reuses build/lib: a file deleted
    # from the source since the last build would otherwise ride along.
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, ROOT, cwd=base)
    wheels = list(dist.glob("vigil-*.whl"))
    assert len(wheels) == 1, wheels
    venv = base / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=base)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheels[0], cwd=base)
    yield venv


def test_the_wheel_holds_every_served_file_as_in_the_source(installed: Path) -> None:
    """The package data is the repository's files, byte for byte: the pages,
    the Foundry module's runtime files (the client library among them) and
    the generated schemas; and nothing of the module's tests or tools."""
    wheel = next((installed.parent / "dist").glob("vigil-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        pairs = {
            "vigil/assets/foundry/": ROOT / "foundry-module",
            "vigil/assets/schemas/": ROOT / "schemas",
            "vigil/web/": ROOT / "server" / "vigil" / "web",
        }
        checked = 0
        for name in names:
            for prefix, source in pairs.items():
                if name.startswith(prefix):
                    assert z.read(name) == (source / name[len(prefix) :]).read_bytes(), name
                    checked += 1
    assert not [n for n in names if "/test/" in n or "/tools/" in n or "node_modules" in n]
    for required in (
        "vigil/assets/foundry/module.json",
        "vigil/assets/foundry/lang/en.json",
        "vigil/assets/foundry/scripts/core/client.js",
        "vigil/assets/foundry/scripts/core/display.js",
        "vigil/assets/schemas/codes.json",
        "vigil/web/dashboard.html",
    ):
        assert required in names
    module = ROOT / "foundry-module"
    module_scripts = {p.relative_to(module).as_posix() for p in (module / "scripts").rglob("*.js")}
    assert {f"vigil/assets/foundry/{s}" for s in module_scripts} <= names
    assert checked > 20


def test_the_installed_package_lives_in_the_venv(installed: Path, tmp_path: Path) -> None:
    where = run(installed / "bin" / "python", "-c", "import vigil; print(vigil.__file__)", cwd=tmp_path)
    assert Path(where.strip()).is_relative_to(installed), where
    assert not Path(where.strip()).is_relative_to(ROOT)


@pytest.fixture
def wheel_server(installed: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(
        data_dir=tmp_path / "data", command=[str(installed / "bin" / "vigil")], cwd=tmp_path
    ).start()
    try:
        yield server
    finally:
        server.stop()


async def load_all_modules(page: Page, url: str) -> list[str]:
    """Open ``url``; return the URL of every script it requested, failing on
    any script or stylesheet that did not load."""
    scripts: list[str] = []
    failed: list[str] = []

    def seen(reply: Response) -> None:
        if reply.request.resource_type in ("script", "stylesheet", "fetch"):
            scripts.append(reply.url)
            if reply.status != 200:
                failed.append(f"{reply.status} {reply.url}")

    page.on("response", seen)
    page.on("requestfailed", lambda req: failed.append(f"failed {req.url}"))
    await page.goto(url)
    status = "#conn" if "/watch" not in url else "#watch-conn"
    await expect(page.locator(status)).to_have_attribute("data-status", "connected", timeout=15_000)
    assert not failed, failed
    return scripts


async def test_pages_from_the_wheel_render_the_demo_table(wheel_server: ServerProcess, new_page) -> None:
    gm = await new_page()
    scripts = await load_all_modules(gm, f"{wheel_server.url}/#token={wheel_server.gm_token}")
    await expect(gm.locator("[data-char]").first).to_be_visible(timeout=15_000)
    await expect(gm.locator("body")).to_contain_text("Brannoc")
    assert any("/client/core/client.js" in s for s in scripts), scripts
    assert any("/client/core/display.js" in s for s in scripts), scripts

    watch = await new_page()
    scripts = await load_all_modules(watch, f"{wheel_server.url}/watch#token={wheel_server.spectator_token}")
    await expect(watch.locator("[data-char]").first).to_be_visible(timeout=15_000)
    await expect(watch.locator("body")).to_contain_text("Brannoc")
    assert any("/client/core/display.js" in s for s in scripts), scripts
    assert gm.vigil_errors == [] and watch.vigil_errors == [], gm.vigil_errors + watch.vigil_errors

    # The schemas and the module's files are served from the package too.
    for path in ("/schemas/codes.json", "/foundry/module.json", "/foundry/lang/en.json"):
        with urllib.request.urlopen(f"{wheel_server.url}{path}", timeout=5) as reply:
            assert reply.status == 200
            json.loads(reply.read())
