"""Who may connect (vigil.net.access), as a service on a real SQLite store
without a socket: a token minted is known at once, one minted offline is
learnt from the store at its first hello, and a revoked or foreign one is
refused."""

from __future__ import annotations

import pathlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from tests.server.conftest import make_config

from vigil import auth, tokens
from vigil.net.hub import Hub
from vigil.store.sqlite import SqliteStore


@pytest_asyncio.fixture
async def hub(tmp_path: pathlib.Path) -> AsyncIterator[Hub]:
    config = make_config(tmp_path)
    store = SqliteStore(config.data_dir / "vigil.db", "normal")
    made = Hub(config, store)
    await made.start()
    try:
        yield made
    finally:
        await made.stop()
        store.close()


async def test_a_minted_token_lets_its_holder_in_as_minted(hub: Hub) -> None:
    host = await hub.create_table("dryh", "Night", {}, "night")
    token, record = await hub.access.mint(host, "player", ["ann"], "Ann's player", None)
    claims, known = await hub.access.authenticate(token)
    assert (claims.role, claims.table, claims.token_id, claims.label) == (
        "player",
        "night",
        record.token_id,
        "Ann's player",
    )
    assert known == record


async def test_a_token_minted_offline_is_learnt_from_the_store(hub: Hub) -> None:
    host = await hub.create_table("dryh", "Night", {}, "night")
    token, record = tokens.issue(hub.store, host.record.key, "night", "spectator", [], "stream", None)
    assert record.token_id not in host.tokens
    claims, _known = await hub.access.authenticate(token)
    assert claims.token_id == record.token_id
    assert record.token_id in host.tokens


async def test_a_revoked_token_is_refused(hub: Hub) -> None:
    host = await hub.create_table("dryh", "Night", {}, "night")
    token, record = tokens.issue(hub.store, host.record.key, "night", "gm", [], "gm", None)
    hub.store.revoke("night", record.token_id)
    with pytest.raises(auth.TokenError) as refused:
        await hub.access.authenticate(token)
    assert refused.value.code == "token_revoked"


async def test_a_token_of_a_table_not_served_here_is_refused(hub: Hub) -> None:
    host = await hub.create_table("dryh", "Night", {}, "night")
    token, _record = await hub.access.mint(host, "gm", [], "gm", None)
    hub.drop(host)
    with pytest.raises(auth.TokenError) as refused:
        await hub.access.authenticate(token)
    assert refused.value.code == "bad_token"


async def test_the_operator_token_is_the_operators(hub: Hub) -> None:
    claims, _known = await hub.access.authenticate(hub.access.operator_token())
    assert claims.role == "operator"
