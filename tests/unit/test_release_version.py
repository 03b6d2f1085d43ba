"""The release version is defined once, as ``vigil.__version__`` (the
package's metadata reads it: pyproject.toml ``dynamic``); the Foundry
module's manifests, which JSON cannot point at it, must say the same (the
served manifest is stamped with it anyway, vigil.foundry_package)."""

from __future__ import annotations

import json
import pathlib
from importlib import metadata

import vigil

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_installed_package_has_the_servers_version() -> None:
    assert metadata.version("vigil") == vigil.__version__


def test_the_foundry_modules_manifests_say_the_servers_version() -> None:
    for name in ("module.json", "package.json"):
        manifest = json.loads((ROOT / "foundry-module" / name).read_text())
        assert manifest["version"] == vigil.__version__, name
