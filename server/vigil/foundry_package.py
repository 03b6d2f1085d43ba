"""The Foundry module as Vigil serves it, to be installed from Vigil itself.

Foundry installs a module from a manifest URL: it reads ``module.json``
there, downloads the zip its ``download`` names, and later compares the
``version`` of the manifest at ``manifest`` with the installed one. So the
server generates both from the packaged module files: ``manifest`` and
``download`` point at its own public URL (config ``public_url``), and
``version`` is the server's, so a module always matches the server that
served it. The zip is built with :mod:`zipfile` (the image has no ``zip``
command) and holds that same ``module.json``.
"""

from __future__ import annotations

import functools
import io
import json
import zipfile
from typing import Any, Final

from vigil import __version__, resources

MANIFEST_PATH: Final = "/foundry/module.json"
ZIP_PATH: Final = "/foundry/vigil.zip"
# A fixed timestamp: the same files give the same zip, byte for byte.
_ZIP_DATE: Final = (1980, 1, 1, 0, 0, 0)


def manifest(base_url: str) -> dict[str, Any]:
    """The packaged module.json, completed for the server at ``base_url``."""
    source = resources.foundry_file("module.json")
    if source is None:
        raise FileNotFoundError("the Foundry module's module.json is not packaged")
    data: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    base = base_url.rstrip("/")
    data["version"] = __version__
    data["url"] = base
    data["manifest"] = f"{base}{MANIFEST_PATH}"
    data["download"] = f"{base}{ZIP_PATH}"
    data["readme"] = f"{base}/foundry/README.md"
    return data


def manifest_bytes(base_url: str) -> bytes:
    return (json.dumps(manifest(base_url), indent=2, ensure_ascii=False) + "\n").encode()


@functools.lru_cache(maxsize=4)
def zip_bytes(base_url: str) -> bytes:
    """The installable zip: every runtime file of the module, module.json at
    its root being the generated one. Cached: package data does not change
    while the server runs."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for rel in resources.foundry_files():
            if rel == "module.json":
                body = manifest_bytes(base_url)
            else:
                found = resources.foundry_file(rel)
                if found is None:
                    continue
                body = found.read_bytes()
            info = zipfile.ZipInfo(rel, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, body)
    return out.getvalue()
