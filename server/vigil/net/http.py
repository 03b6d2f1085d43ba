"""Plain HTTP on the same port: health, the pages and their scripts; and
the metrics listener's one page, on a port of its own.

Everything but ``/ws`` is answered here before any WebSocket handshake.
Tokens never travel in these URLs: pages read them from the fragment.
The public port has no ``/metrics``: the operator decides where metrics
are reachable (``metrics_route``, VIGIL_METRICS_PORT).
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Callable
from http import HTTPStatus
from importlib.resources.abc import Traversable
from urllib.parse import parse_qs, urlsplit

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from vigil import event_loop, foundry_package, resources, rules_page
from vigil.net.hub import Hub

PAGES = {"/": "dashboard.html", "/watch": "watch.html", "/verify": "verify.html"}
SECURITY_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _file(path: Traversable) -> Response:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if path.name.endswith((".js", ".mjs")):
        kind = "text/javascript"
    body = path.read_bytes()
    headers = Headers({"Content-Type": kind, "Content-Length": str(len(body)), **SECURITY_HEADERS})
    return Response(200, "OK", headers, body)


def _body(body: bytes, kind: str) -> Response:
    headers = Headers({"Content-Type": kind, "Content-Length": str(len(body)), **SECURITY_HEADERS})
    return Response(200, "OK", headers, body)


def _status(code: int, text: str, kind: str = "text/plain; charset=utf-8") -> Response:
    body = text.encode()
    headers = Headers({"Content-Type": kind, "Content-Length": str(len(body)), **SECURITY_HEADERS})
    return Response(code, HTTPStatus(code).phrase, headers, body)


# URL prefix -> how a path under it becomes a packaged file (or None: 404).
# /client/ is the client library (and the module's scripts) for the pages;
# /foundry/ is the Foundry module's runtime files, as its zip holds them.
STATIC: dict[str, Callable[[str], Traversable | None]] = {
    "/static/": lambda rel: resources.lookup(resources.WEB, rel),
    "/client/": lambda rel: resources.lookup(resources.CLIENT, rel),
    "/foundry/": resources.foundry_file,
    "/schemas/": lambda rel: resources.lookup(resources.SCHEMAS, rel),
}


def route(hub: Hub, connection: ServerConnection, request: Request) -> Response | None:
    path = request.path.split("?", 1)[0]
    if len(path) > resources.MAX_PATH:
        return _status(414, "URI too long")
    if path == "/ws":
        return None  # the WebSocket endpoint
    if path == "/healthz":
        ok = not hub.closing
        health: dict[str, object] = {"ok": ok, "tables": len(hub.hosts), "loop": event_loop.current()}
        health.update(hub.placement.health())
        body = json.dumps(health)
        return _status(200 if ok else 503, body, "application/json")
    # The module's manifest and zip are made for this server (foundry_package),
    # reachable from where Foundry's server asked.
    if path in (foundry_package.MANIFEST_PATH, foundry_package.ZIP_PATH):
        base = foundry_package.package_base(hub.config.base_url, request.headers.get("Host"))
        if path == foundry_package.MANIFEST_PATH:
            return _body(foundry_package.manifest_bytes(base), "application/json")
        return _body(foundry_package.zip_bytes(base), "application/zip")
    # The rules reference an outcome's explanation links to (/rules/mettle#MET-01).
    if path in ("/rules", "/rules/") or path.startswith("/rules/"):
        # In the reader's language when the link says one (?lang=de).
        lang = parse_qs(urlsplit(request.path).query).get("lang", ["en"])[0]
        text = rules_page.render(path.removeprefix("/rules").strip("/"), lang)
        return _body(text.encode(), "text/html; charset=utf-8") if text else _status(404, "not found")
    if path in PAGES:
        page = resources.lookup(resources.WEB, PAGES[path])
        return _file(page) if page else _status(404, "page not built")
    for prefix, find in STATIC.items():
        if path.startswith(prefix):
            target = find(path[len(prefix) :])
            return _file(target) if target else _status(404, "not found")
    return _status(404, "not found")


def metrics_route(registry: CollectorRegistry, connection: ServerConnection, request: Request) -> Response:
    """The metrics listener: ``/metrics`` in the format the scraper asks for
    (Prometheus text unless its Accept header names OpenMetrics); anything
    else, a WebSocket handshake included, is not found."""
    if request.path.split("?", 1)[0] != "/metrics":
        return _status(404, "not found")
    encode, kind = choose_encoder(request.headers.get("Accept", ""))
    return _body(encode(registry), kind)
