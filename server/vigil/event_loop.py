"""Which asyncio event loop runs the server.

uvloop (libuv, written in C) where it is installed and the platform has it,
else the standard library's loop. Under load a Vigil server spends a large
part of each command in the loop itself — polling, socket reads and writes
for every connection a patch reaches — and uvloop does that work in C: the
same code, the same guarantees, less CPU per command (README "Performance").
The choice is a setting (``VIGIL_EVENT_LOOP``) so an operator can rule the
loop out when chasing a problem, and the bench runs its baseline server on
the same loop as Vigil so that the ratio between them stays honest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# "auto": uvloop if it can be imported, else asyncio.
LOOPS = ("auto", "uvloop", "asyncio")

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def factory(name: str) -> tuple[str, LoopFactory | None]:
    """The loop ``name`` asks for, as (the loop's name, its factory; None
    for the standard library's). Raises ValueError for a name not in
    :data:`LOOPS`, or for "uvloop" where it is not installed."""
    if name not in LOOPS:
        raise ValueError(f"unknown event loop {name!r}; choose one of {', '.join(LOOPS)}")
    if name == "asyncio":
        return "asyncio", None
    try:
        import uvloop
    except ImportError:
        if name == "uvloop":
            raise ValueError("the uvloop event loop is not installed (pip install uvloop)") from None
        return "asyncio", None
    return "uvloop", uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], name: str = "auto") -> T:
    """Run ``main`` to completion on the loop ``name`` asks for."""
    _, make = factory(name)
    with asyncio.Runner(loop_factory=make) as runner:
        return runner.run(main)


def current() -> str:
    """The name of the running loop's implementation ("uvloop" or "asyncio")."""
    module = type(asyncio.get_running_loop()).__module__
    return "uvloop" if module.startswith("uvloop") else "asyncio"
