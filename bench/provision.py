"""Tables, characters and tokens for a run, made through the servers' own
front doors: Vigil's operator and GM commands, the baseline's plain tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect

from bench import workload
from bench.loadgen import TableRun
from bench.procs import ServerProc
from vigil.protocol import PROTOCOL_VERSION

_enc = msgspec.json.Encoder()


def layout(tables: int, players: int, chars: int) -> list[tuple[str, list[str], dict[str, int]]]:
    """(system, character ids, char -> owning player index) per table:
    systems in turn; player i owns character i (the rest are NPCs)."""
    plan = []
    for i in range(tables):
        system = workload.SYSTEM_ORDER[i % len(workload.SYSTEM_ORDER)]
        ids = [f"c{j}" for j in range(chars)]
        owners = {ids[j]: j for j in range(min(players, chars))}
        plan.append((system, ids, owners))
    return plan


class Rpc:
    """A request/response client for provisioning (sequential use)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.n = 0

    @classmethod
    async def open(cls, url: str, token: str) -> Rpc:
        ws = await connect(url, compression=None, max_size=2**24, ping_interval=None, open_timeout=30)
        await ws.send(_enc.encode({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token}), text=True)
        welcome = msgspec.json.decode(await ws.recv(decode=False))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"refused: {welcome}")
        return cls(ws)

    async def cmd(self, body: dict[str, Any], table: str | None = None) -> Any:
        self.n += 1
        msg_id = f"p{self.n}"
        message: dict[str, Any] = {"type": "cmd", "id": msg_id, "body": body}
        if table:
            message["table"] = table
        await self.ws.send(_enc.encode(message), text=True)
        while True:
            reply = msgspec.json.decode(await self.ws.recv(decode=False))
            if reply.get("id") == msg_id:
                if reply["type"] != "ack":
                    raise RuntimeError(f"{body['type']}: {reply}")
                return reply.get("result")

    async def close(self) -> None:
        await self.ws.close()


async def vigil_tables(
    server: ServerProc, tables: int, players: int, chars: int, indexes: Sequence[int] | None = None
) -> list[TableRun]:
    """The plan's tables (only those at ``indexes``, if given: a cluster
    run makes each node's share through that node), made and filled
    through ``server``."""
    op = await Rpc.open(server.ws_url, server.operator_token)
    whole = layout(tables, players, chars)
    plan = [whole[i] for i in (range(tables) if indexes is None else indexes)]
    names = [f"Bench {i}" for i in (range(tables) if indexes is None else indexes)]
    try:
        created = []
        for (system, _ids, _owners), name in zip(plan, names, strict=True):
            created.append(await op.cmd({"type": "table.create", "system": system, "name": name}))
    finally:
        await op.close()
    gate = asyncio.Semaphore(8)

    async def fill(entry: dict[str, Any], spec: tuple[str, list[str], dict[str, int]]) -> TableRun:
        system, ids, owners = spec
        async with gate:
            gm = await Rpc.open(server.ws_url, entry["gm_token"])
            try:
                for cid in ids:
                    kind = "pc" if cid in owners else "npc"
                    body = {
                        "type": "character.create",
                        "id": cid,
                        "name": f"Char {cid}",
                        "kind": kind,
                        "sheet": workload.SHEETS[system],
                    }
                    await gm.cmd(body, entry["table"])
                player_tokens: list[tuple[str, str | None]] = []
                for p in range(players):
                    char = ids[p] if p < len(ids) else None
                    chars_ = [char] if char else ids[:1]
                    minted = await gm.cmd(
                        {"type": "token.mint", "role": "player", "chars": chars_, "label": f"player {p}"},
                        entry["table"],
                    )
                    player_tokens.append((minted["token"], char))
                spectator = await gm.cmd(
                    {"type": "token.mint", "role": "spectator", "label": "stream"}, entry["table"]
                )
            finally:
                await gm.close()
        return TableRun(
            id=entry["table"],
            system=system,
            chars=ids,
            owners={},
            gm_token=entry["gm_token"],
            spectator_token=spectator["token"],
            player_tokens=player_tokens,
        )

    runs = await asyncio.gather(*(fill(e, s) for e, s in zip(created, plan, strict=True)))
    return list(runs)


def baseline_tables(tables: int, players: int, chars: int) -> list[TableRun]:
    runs = []
    for i, (system, ids, _owners) in enumerate(layout(tables, players, chars)):
        tid = f"t{i:04d}"
        runs.append(
            TableRun(
                id=tid,
                system=system,
                chars=ids,
                owners={},
                gm_token=f"{tid}|gm",
                spectator_token=f"{tid}|spectator",
                player_tokens=[(f"{tid}|player", ids[p] if p < len(ids) else None) for p in range(players)],
            )
        )
    return runs
