"""The files the server serves, as package data.

Pages, the shared client library, the Foundry module's runtime files and the
generated schemas are all found through :mod:`importlib.resources`, never
through the source layout, so an editable install, the built wheel and the
Docker image (which installs that wheel) serve the same bytes.
``vigil/assets/foundry`` and ``vigil/assets/schemas`` are symbolic links to
the repository's ``foundry-module/`` and ``schemas/`` folders: the source
stays where developers edit it and the wheel build copies it
(``pyproject.toml`` lists the runtime files).

A URL path becomes a resource by its parts, each checked here, so no
request can climb out of a folder, read a dotfile, or make the OS raise on
an over-long name.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Final

PACKAGE: Final = files("vigil")
WEB: Final = PACKAGE / "web"
FOUNDRY: Final = PACKAGE / "assets" / "foundry"
SCHEMAS: Final = PACKAGE / "assets" / "schemas"
# The client library shared by the pages and the module lives in the
# module's scripts/ folder (core/ is the library, the rest the module).
CLIENT: Final = FOUNDRY / "scripts"

# The Foundry module's runtime files: what /foundry/ serves and the zip
# holds. Tests, tools and node_modules stay out (in an editable install
# they sit beside these files).
FOUNDRY_TOP_FILES: Final = frozenset({"module.json", "README.md", "LICENSE"})
FOUNDRY_FOLDERS: Final = frozenset({"scripts", "styles", "lang"})

MAX_PATH: Final = 512  # characters of a URL path; longer is answered 414
_MAX_PART: Final = 128  # below every file system's name limit (255 bytes)


def parts(rel: str) -> list[str] | None:
    """The parts of a relative URL path, or None when one may not be served
    (empty, ``.``/``..``, a dotfile, a backslash or NUL, too long)."""
    out = rel.split("/")
    for part in out:
        if not part or part.startswith(".") or len(part) > _MAX_PART or "\\" in part or "\0" in part:
            return None
    return out


def lookup(base: Traversable, rel: str) -> Traversable | None:
    """The file ``rel`` under ``base``, or None when it is not one."""
    names = parts(rel)
    if names is None:
        return None
    node = base
    try:
        for name in names:
            node = node / name
        return node if node.is_file() else None
    except OSError:
        return None


def foundry_file(rel: str) -> Traversable | None:
    """A runtime file of the Foundry module, or None (tests, tools, …)."""
    names = parts(rel)
    if names is None:
        return None
    if len(names) == 1 and names[0] not in FOUNDRY_TOP_FILES:
        return None
    if len(names) > 1 and names[0] not in FOUNDRY_FOLDERS:
        return None
    return lookup(FOUNDRY, rel)


def foundry_files() -> list[str]:
    """Every runtime file of the Foundry module, as relative paths, sorted."""
    out: list[str] = [name for name in sorted(FOUNDRY_TOP_FILES) if (FOUNDRY / name).is_file()]

    def walk(node: Traversable, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.name.startswith("."):
                continue
            rel = f"{prefix}/{child.name}"
            if child.is_dir():
                walk(child, rel)
            elif child.is_file():
                out.append(rel)

    for folder in sorted(FOUNDRY_FOLDERS):
        node = FOUNDRY / folder
        if node.is_dir():
            walk(node, folder)
    return out
