"""The pure modules at the edge stay pure: no I/O, no event loop, no wall
clock, and nothing from the store or the network layer — which is what lets
the unit tests beside this one run them without a socket.

The rules package has its own, stricter guard (tests/rules/test_purity.py).
"""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

PURE = (
    "vigil.auth",
    "vigil.changes",
    "vigil.clock_anchor",
    "vigil.export",
    "vigil.history_view",
    "vigil.jsonpatch",
    "vigil.net.admission",
    "vigil.net.follower",
    "vigil.net.presence",
    "vigil.net.rate",
    "vigil.net.routing",
    "vigil.permissions",
    "vigil.protocol",
    "vigil.table",
    "vigil.table_commands",
    "vigil.table_views",
    "vigil.treepatch",
    "vigil.views",
)
BANNED = ("asyncio", "websockets", "socket", "sqlite3", "time", "datetime", "os", "vigil.store", "vigil.net")


def imports(source: str) -> list[str]:
    """Every module one source text imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
    return found


def banned(source: str) -> list[str]:
    return [m for m in imports(source) if any(m == b or m.startswith(b + ".") for b in BANNED)]


@pytest.mark.parametrize("name", PURE)
def test_a_pure_edge_module_imports_no_io_loop_store_or_network(name: str) -> None:
    module = importlib.import_module(name)
    assert banned(pathlib.Path(str(module.__file__)).read_text()) == []


def test_the_scanner_flags_each_kind_of_import() -> None:
    """Guard the guard."""
    source = (
        "import time\nimport asyncio.subprocess\nfrom vigil.store.base import LogEntry\n"
        "from vigil.net import hub\nimport vigil.network_ok\nfrom vigil import jsonpatch\n"
    )
    assert banned(source) == ["time", "asyncio.subprocess", "vigil.store.base", "vigil.net"]
