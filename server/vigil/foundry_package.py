"""The Foundry module as Vigil serves it, to be installed from Vigil itself.

Foundry installs a module from a manifest URL: it reads ``module.json``
there, downloads the zip its ``download`` names, and later compares the
``version`` of the manifest at ``manifest`` with the installed one. So the
server generates both from the packaged module files: ``manifest`` and
``download`` point at its own public URL (config ``public_url``), and
``version`` is the server's, so a module always matches the server that
served it. The zip is built with :mod:`zipfile` (the image has no ``zip``
command) and holds that same ``module.json`` and the module's licence.

Foundry's server, not a browser, downloads the zip and checks for updates,
often from another container or host. A public URL on a loopback or
unspecified address (the Docker defaults' ``localhost``, or ``0.0.0.0``
when no public URL is set) cannot reach Vigil from there, so the manifest
then names the host Foundry asked by (its ``Host`` header): that one
reached Vigil a moment ago (:func:`package_base`).
"""

from __future__ import annotations

import functools
import io
import ipaddress
import json
import re
import zipfile
from typing import Any, Final
from urllib.parse import urlsplit

from vigil import __version__, resources

MANIFEST_PATH: Final = "/foundry/module.json"
ZIP_PATH: Final = "/foundry/vigil.zip"
# A fixed timestamp: the same files give the same zip, byte for byte.
_ZIP_DATE: Final = (1980, 1, 1, 0, 0, 0)
# A Host header worth echoing: a name or IPv4 address, or a bracketed IPv6
# one, with an optional port (anything else keeps the configured URL).
_HOST: Final = re.compile(r"(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


def _unreachable(hostname: str) -> bool:
    """Whether a URL on ``hostname`` can only be reached from Vigil's own
    host: a loopback name or address, or the unspecified address."""
    if hostname == "localhost" or hostname.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(hostname)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def package_base(base_url: str, host: str | None) -> str:
    """The base URL the manifest and zip name for a request that came with
    ``host`` (its Host header): ``base_url``, unless that only works on
    Vigil's own host and the request names a usable host."""
    split = urlsplit(base_url)
    if not _unreachable(split.hostname or "") or not host or not _HOST.fullmatch(host):
        return base_url
    return f"{split.scheme or 'http'}://{host}{split.path.rstrip('/')}"


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
    data["license"] = f"{base}/foundry/LICENSE"
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
