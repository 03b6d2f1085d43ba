"""Nothing is applied twice: a command sent again with its token, session
and id within the client's resend window is answered with its first ack,
however many commands the table applied meanwhile — also after a restart,
from the log (vigil.net.applied)."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest
from tests.server.conftest import Running, make_config
from tests.support.client import Client

from vigil.net.app import shutdown, start

pytestmark = pytest.mark.asyncio

OTHERS = 2000  # far more than the 1,000 commands the memory held before
RATTLE = {"type": "mettle.rattle", "char": "a", "amount": 1}


async def _pipelined(gm: Client, count: int, prefix: str) -> None:
    """``count`` commands, 50 in flight at a time, each acked."""
    for start_at in range(0, count, 50):
        replies = await asyncio.gather(
            *(
                gm.request(_cmd(gm, f"{prefix}{i}", RATTLE))
                for i in range(start_at, min(count, start_at + 50))
            )
        )
        assert all(r["type"] == "ack" for r in replies), [r for r in replies if r["type"] != "ack"][:1]


def _cmd(gm: Client, msg_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "cmd", "id": msg_id, "table": gm.table, "body": dict(body)}


async def test_a_resend_after_thousands_of_other_commands_gets_its_first_ack(tmp_path: pathlib.Path) -> None:
    config = make_config(tmp_path)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        table, first_gm = await run.table("mettle", {"a": {"mettle": 5}})
        gm_token = await run.mint(first_gm, "gm")
        gm = await run.connect(gm_token, session="browser-1")
        first = await gm.request(_cmd(gm, "X", {"type": "mettle.pain", "char": "a", "amount": 1}))
        assert first["type"] == "ack"
        await _pipelined(gm, OTHERS, "o")
        again = await gm.request(_cmd(gm, "X", {"type": "mettle.pain", "char": "a", "amount": 1}))
        assert again == first  # its first ack: same rev, nothing applied
        await gm.wait_rev(first["rev"] + OTHERS)
        assert gm.rev == first["rev"] + OTHERS
        # Another session's command with the same id is its own command.
        other = await run.connect(gm_token, session="browser-2")
        theirs = await other.request(_cmd(other, "X", {"type": "mettle.pain", "char": "a", "amount": 1}))
        assert theirs["type"] == "ack" and theirs["rev"] == first["rev"] + OTHERS + 1
        for client in run.clients:
            await client.close()
        run.clients.clear()
        await shutdown(hub, server)
        # After a restart the memory is read back from the log, by time.
        hub, server = await start(config)
        run = Running(config, hub, server)
        gm = await run.connect(gm_token, session="browser-1")
        assert len(hub.hosts[table].applied) >= OTHERS + 1
        again = await gm.request(_cmd(gm, "X", {"type": "mettle.pain", "char": "a", "amount": 1}))
        assert again == first
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(run.hub, run.server)
