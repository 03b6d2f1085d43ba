"""An in-process Vigil server on a real socket, one per test."""

from __future__ import annotations

import pathlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio
from tests.support.client import Client

from vigil.config import Config
from vigil.net.app import shutdown, start
from vigil.net.hub import Hub


@dataclass
class Running:
    config: Config
    hub: Hub
    server: Any
    clients: list[Client] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.config.port}/ws"

    async def connect(self, token: str, **kwargs: Any) -> Client:
        client = await Client.open(self.url, token, **kwargs)
        self.clients.append(client)
        return client

    async def operator(self) -> Client:
        return await self.connect(self.hub.access.operator_token(), expect_state=False)

    async def table(
        self,
        system: str = "mettle",
        chars: dict[str, dict[str, Any]] | None = None,
        table_id: str | None = None,
        **visibility: str,
    ) -> tuple[str, Client]:
        """A new table with characters; returns its id and a connected GM."""
        op = await self.operator()
        body: dict[str, Any] = {"type": "table.create", "system": system, "name": "Test"}
        if table_id:
            body["id"] = table_id
        created = await op.ok(body)
        gm = await self.connect(created["gm_token"])
        for cid, sheet in (chars or {}).items():
            spec: dict[str, Any] = {
                "type": "character.create",
                "id": cid,
                "name": cid.title(),
                "sheet": sheet,
            }
            if cid in visibility:
                spec["visibility"] = visibility[cid]
            await gm.ok(spec)
        return created["table"], gm

    async def mint(self, gm: Client, role: str, chars: list[str] | None = None, **extra: Any) -> str:
        result = await gm.ok({"type": "token.mint", "role": role, "chars": chars or [], **extra})
        return str(result["token"])


def make_config(tmp_path: pathlib.Path, **overrides: Any) -> Config:
    # Tests send bursts far above a person's pace; the rate limit itself is
    # tested with its default values in test_limits.
    settings: dict[str, Any] = {"rate_per_s": 10_000.0, "rate_burst": 10_000, **overrides}
    return Config(
        address="127.0.0.1", port=0, data_dir=tmp_path / "data", demo=False, log_format="json", **settings
    )


@pytest_asyncio.fixture
async def running(tmp_path: pathlib.Path) -> AsyncIterator[Running]:
    config = make_config(tmp_path)
    hub, server = await start(config)
    run = Running(config, hub, server)
    try:
        yield run
    finally:
        for client in run.clients:
            await client.close()
        await shutdown(hub, server)
