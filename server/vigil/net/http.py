"""Plain HTTP on the same port: health, the pages and their scripts.

Everything but ``/ws`` is answered here before any WebSocket handshake.
Tokens never travel in these URLs: pages read them from the fragment.
"""

from __future__ import annotations

import json
import mimetypes
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

import vigil
from vigil.net.hub import Hub

WEB_DIR = Path(vigil.__file__).parent / "web"
# The client core is shared with the Foundry module: one copy, served from
# the module's folder (present in the source tree and in the Docker image).
CLIENT_DIR = Path(vigil.__file__).parents[2] / "foundry-module" / "scripts"
SCHEMA_DIR = Path(vigil.__file__).parents[2] / "schemas"

PAGES = {"/": "dashboard.html", "/watch": "watch.html"}
SECURITY_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _file(path: Path) -> Response:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if path.suffix == ".js":
        kind = "text/javascript"
    body = path.read_bytes()
    headers = Headers({"Content-Type": kind, "Content-Length": str(len(body)), **SECURITY_HEADERS})
    return Response(200, "OK", headers, body)


def _status(code: int, text: str, kind: str = "text/plain; charset=utf-8") -> Response:
    body = text.encode()
    headers = Headers({"Content-Type": kind, "Content-Length": str(len(body)), **SECURITY_HEADERS})
    return Response(code, HTTPStatus(code).phrase, headers, body)


def _inside(base: Path, rel: str) -> Path | None:
    target = (base / rel).resolve()
    return target if target.is_file() and base.resolve() in target.parents else None


def route(hub: Hub, connection: ServerConnection, request: Request) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/ws":
        return None  # the WebSocket endpoint
    if path == "/healthz":
        ok = not hub.closing
        body = json.dumps({"ok": ok, "tables": len(hub.hosts)})
        return _status(200 if ok else 503, body, "application/json")
    if path in PAGES:
        page = WEB_DIR / PAGES[path]
        return _file(page) if page.is_file() else _status(404, "page not built")
    for prefix, base in (
        ("/static/", WEB_DIR),
        ("/client/", CLIENT_DIR),
        ("/schemas/", SCHEMA_DIR),
    ):
        if path.startswith(prefix):
            target = _inside(base, path[len(prefix) :])
            return _file(target) if target else _status(404, "not found")
    return _status(404, "not found")
