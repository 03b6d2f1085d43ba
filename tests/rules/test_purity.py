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


def _sources() -> list[pathlib.Path]:
    files = sorted(RULES_DIR.rglob("*.py"))
    assert files, "no rules sources found"
    return files


def test_rules_import_no_io_or_clock_modules() -> None:
    offenders = []
    for path in _sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module == "random":
                    bad = {a.name for a in node.names} - ALLOWED_RANDOM
                    if bad:
                        offenders.append(f"{path.name}: from random import {bad}")
            for name in names:
                if name.split(".")[0] in BANNED_MODULES:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_rules_use_no_global_random_functions() -> None:
    offenders = []
    for path in _sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr not in ALLOWED_RANDOM
            ):
                offenders.append(f"{path.name}:{node.lineno} random.{node.attr}")
    assert offenders == []


def test_the_ban_detects_an_offender(tmp_path: pathlib.Path) -> None:
    """Guard the guard: the scanner really flags a banned import."""
    bad = tmp_path / "bad.py"
    bad.write_text("import time\nfrom random import randint\nx = random.random()\n")
    tree = ast.parse(bad.read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert any(isinstance(n, ast.Import) and n.names[0].name == "time" for n in imports)
    assert any(n.attr == "random" for n in calls)
