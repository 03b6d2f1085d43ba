"""The three games by name: the one place that knows which exist."""

from __future__ import annotations

from vigil.rules.dryh.system import SYSTEM as DRYH
from vigil.rules.hursagmu.system import SYSTEM as HURSAGMU
from vigil.rules.mettle.system import SYSTEM as METTLE
from vigil.rules.system import System

SYSTEMS: dict[str, System] = {s.name: s for s in (DRYH, METTLE, HURSAGMU)}


def get(name: str) -> System:
    return SYSTEMS[name]
