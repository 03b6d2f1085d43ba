"""The rules package stays pure: no I/O, no wall clock, no global dice.

A test, not a convention, because one stray ``import time`` would make the
"same result in one step or many" promise silently false.
"""

import ast
import pathlib

import vigil.rules

RULES_DIR = pathlib.Path(vigil.rules.__file__).parent
BANNED_MODULES = {"asyncio", "websockets", "socket", "sqlite3", "time", "datetime", "os"}
# random.Random / SystemRandom instances are injected; the module-level
# functions share hidden global state and are banned.
ALLOWED_RANDOM = {"Random", "SystemRandom"}


def offenders(source: str, name: str) -> list[str]:
    """Every banned import or global random call in one source text."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == "random":
                bad = {a.name for a in node.names} - ALLOWED_RANDOM
                if bad:
                    found.append(f"{name}: from random import {sorted(bad)}")
        found += [f"{name}: import {m}" for m in modules if m.split(".")[0] in BANNED_MODULES]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr not in ALLOWED_RANDOM
        ):
            found.append(f"{name}:{node.lineno} random.{node.attr}")
    return found


def test_rules_import_no_io_clock_or_global_random() -> None:
    sources = sorted(RULES_DIR.rglob("*.py"))
    assert len(sources) > 20, "the rules sources were found"
    found = [o for path in sources for o in offenders(path.read_text(), path.name)]
    assert found == []


def test_the_scanner_flags_each_kind_of_offender() -> None:
    """Guard the guard: the same scanner really flags what it must."""
    bad = (
        "import time\nimport asyncio.subprocess\nfrom sqlite3 import connect\n"
        "from random import randint, Random\nx = random.random()\ny = random.Random(1)\n"
    )
    found = offenders(bad, "bad.py")
    assert found == [
        "bad.py: import time",
        "bad.py: import asyncio.subprocess",
        "bad.py: import sqlite3",
        "bad.py: from random import ['randint']",
        "bad.py:5 random.random",
    ]
