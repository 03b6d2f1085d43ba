"""WebSocket client of the Docker smoke tests (docker/smoke.sh, docker/cluster-smoke.sh).

Runs inside a Vigil image (its venv has websockets), fed on stdin:
``docker exec -i CONTAINER python3 - MODE ARGS... < docker/smoke_client.py``.
With host networking its 127.0.0.1 is the host's.

  setup URL OPERATOR_TOKEN               create a Pain & Mettle table, a character "hero"
                                         (mettle 5) and 3 pain; prints {"table", "gm_token", "rev"}
  check URL GM_TOKEN TABLE REV [CHAR..]  the snapshot is that table at rev REV, hero has 3 pain,
                                         and each CHAR exists; prints {"table", "rev", "pain", "characters"}
  apply URL GM_TOKEN TABLE ID BODY SECS  send command BODY (JSON) with message id ID; while the
                                         table's node is changing (no answer, a dropped connection,
                                         table_unavailable, outcome_unknown) send it again with the
                                         same id, for at most SECS seconds; prints {"rev", "attempts",
                                         "before": the answers before the ack, by kind}

Exits non-zero with the reason on any refusal or mismatch.
"""

import asyncio
import json
import sys
import time

import websockets

TIMEOUT = 10.0
# The answers after which the same command, with the same id, is sent again
# (the owner deduplicates by token and message id, so it applies once).
RETRY_CODES = {"table_unavailable", "outcome_unknown"}


class Retry(Exception):
    """The command may be sent again: its table's node is changing."""


async def recv(ws):
    return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))


async def session(url, token, cmds=(), table=None):
    """Hello with ``token``, then each (id, body) of ``cmds`` in turn; returns
    the snapshot (None for the operator, who has no table) and the acks."""
    async with websockets.connect(url, open_timeout=TIMEOUT, close_timeout=5) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
        snapshot = None
        for _ in range(5):
            msg = await recv(ws)
            if msg["type"] == "error":
                if msg.get("code") in RETRY_CODES:
                    raise Retry(msg["code"])
                sys.exit(f"hello refused: {msg}")
            if msg["type"] == "snapshot":
                snapshot = msg
                break
            if msg["type"] == "welcome" and table is None and cmds:
                break  # operator: no table, no snapshot
        acks = []
        for cmd_id, body in cmds:
            cmd = {"type": "cmd", "id": cmd_id, "body": body}
            if table:
                cmd["table"] = table
            await ws.send(json.dumps(cmd))
            for _ in range(50):
                msg = await recv(ws)
                if msg.get("id") == cmd_id and msg["type"] in ("ack", "error"):
                    break
            else:
                sys.exit(f"no reply to {cmd}")
            if msg["type"] == "error" and msg.get("code") in RETRY_CODES:
                raise Retry(msg["code"])
            if msg["type"] != "ack":
                sys.exit(f"refused: {body} -> {msg}")
            acks.append(msg)
        return snapshot, acks


async def setup(url, operator):
    create = {"type": "table.create", "system": "mettle", "name": "Smoke"}
    _, (made,) = await session(url, operator, [("1", create)])
    table, gm = made["result"]["table"], made["result"]["gm_token"]
    hero = {"type": "character.create", "id": "hero", "name": "Hero", "kind": "pc", "sheet": {"mettle": 5}}
    pain = {"type": "mettle.pain", "char": "hero", "amount": 3}
    _, acks = await session(url, gm, [("1", hero), ("2", pain)], table=table)
    print(json.dumps({"table": table, "gm_token": gm, "rev": acks[-1]["rev"]}))


async def check(url, gm, table, rev, *chars):
    snap, _ = await session(url, gm)
    characters = snap["state"]["characters"]
    pain = characters["hero"]["sheet"]["pain"]
    print(
        json.dumps(
            {"table": snap["table"], "rev": snap["rev"], "pain": pain, "characters": sorted(characters)}
        )
    )
    missing = [c for c in chars if c not in characters]
    if snap["table"] != table or snap["rev"] != int(rev) or pain != 3 or missing:
        sys.exit(
            f"state lost: table {snap['table']} rev {snap['rev']} (want {rev}) pain {pain} (want 3)"
            + (f", no character {', '.join(missing)}" if missing else "")
        )


async def apply(url, gm, table, cmd_id, body, seconds):
    deadline = time.monotonic() + float(seconds)
    attempts = 0
    answers = {}  # what came instead of an ack, by kind: how often
    while True:
        attempts += 1
        try:
            _, (ack,) = await session(url, gm, [(cmd_id, json.loads(body))], table=table)
        except (TimeoutError, Retry, OSError, websockets.exceptions.WebSocketException) as exc:
            kind = str(exc) if isinstance(exc, Retry) else type(exc).__name__
            answers[kind] = answers.get(kind, 0) + 1
            if time.monotonic() >= deadline:
                sys.exit(f"no ack after {attempts} attempts in {seconds}s; answers {answers}; last: {exc!r}")
            await asyncio.sleep(0.5)
            continue
        print(json.dumps({"rev": ack["rev"], "attempts": attempts, "before": answers}))
        return


MODES = {"setup": setup, "check": check, "apply": apply}

if __name__ == "__main__":
    asyncio.run(MODES[sys.argv[1]](*sys.argv[2:]))
