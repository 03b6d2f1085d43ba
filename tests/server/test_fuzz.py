"""Fuzzing frames and fields (hypothesis): whatever arrives, the server
answers with an error, changes nothing, and keeps serving."""

from __future__ import annotations

import asyncio
import json
import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.server.conftest import make_config
from tests.support.client import WAIT
from tests.support.samples import sample
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from vigil.close_codes import CloseCode
from vigil.net.app import shutdown, start
from vigil.protocol import ALL_COMMANDS, PROTOCOL_VERSION, client_decoder


class ThreadServer:
    """A real server on its own loop in a thread, so that hypothesis (which
    is synchronous) can drive it with a blocking client."""

    def __init__(self, tmp: pathlib.Path) -> None:
        self.config = make_config(tmp)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.hub, self.server = self.call(start(self.config))

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def close(self) -> None:
        self.call(shutdown(self.hub, self.server))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def _hello(url: str, token: str) -> ClientConnection:
    ws = connect(url, max_size=2**22)
    ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token}))
    assert json.loads(ws.recv(WAIT))["type"] == "welcome"
    return ws


@pytest.fixture(scope="module")
def fuzz_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    srv = ThreadServer(tmp_path_factory.mktemp("fuzz"))
    url = f"ws://127.0.0.1:{srv.config.port}/ws"
    op = _hello(url, srv.hub.access.operator_token())
    op.send(
        json.dumps(
            {
                "type": "cmd",
                "id": "c",
                "body": {"type": "table.create", "system": "mettle", "name": "F", "id": "fz"},
            }
        )
    )
    created = json.loads(op.recv(WAIT))["result"]
    gm = _hello(url, created["gm_token"])
    gm.recv(WAIT)  # snapshot
    gm.send(
        json.dumps(
            {
                "type": "cmd",
                "id": "a",
                "table": "fz",
                "body": {"type": "character.create", "id": "a", "name": "A", "sheet": {"mettle": 5}},
            }
        )
    )
    ack = json.loads(gm.recv(WAIT))
    assert ack["type"] == "ack", ack
    # Drain up to the patch of that change (it follows its ack), so that the
    # next message on this connection is the answer to the next frame.
    while (msg := json.loads(gm.recv(WAIT)))["type"] != "patch" or msg["rev"] < ack["rev"]:
        pass
    yield {"srv": srv, "gm": gm, "url": url}
    gm.close()
    op.close()
    srv.close()


def _valid(frame: bytes) -> bool:
    try:
        client_decoder.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return True


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_commands(draw: st.DrawFn) -> bytes:
    """A valid command with one field broken: removed, retyped, or extra."""
    cls = draw(st.sampled_from(ALL_COMMANDS))
    body = sample(cls, "a")
    action = draw(st.sampled_from(["retype", "extra", "drop", "body_type"]))
    keys = [k for k in body if k != "type"]
    if action == "retype" and keys:
        body[draw(st.sampled_from(keys))] = draw(json_values)
    elif action == "drop" and keys:
        body.pop(draw(st.sampled_from(keys)))
    elif action == "body_type":
        # Not the words JavaScript prints for a missing value: the words
        # check takes them, echoed in the refusal, for a client's bug.
        body["type"] = draw(st.text(max_size=20).filter(lambda t: t not in ("undefined", "NaN")))
    else:
        body[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
    return json.dumps({"type": "cmd", "id": "f", "table": "fz", "body": body}).encode()


frames = (
    mutated_commands()
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=200)
    | st.dictionaries(st.sampled_from(["type", "id", "table", "body", "token"]), json_values).map(
        lambda d: json.dumps(d).encode()
    )
)


@settings(max_examples=400)
@given(frame=frames)
def test_fuzzed_frames_get_an_error_and_change_nothing(fuzz_target: dict[str, Any], frame: bytes) -> None:
    if _valid(frame):
        return  # a mutation that happens to be valid is not what this test is about
    srv = fuzz_target["srv"]
    rev_before = srv.hub.hosts["fz"].table.rev
    ws: ClientConnection = fuzz_target["gm"]
    ws.send(frame, text=True) if _is_text(frame) else ws.send(frame)
    reply = json.loads(ws.recv(WAIT))
    assert reply["type"] == "error" and reply["code"] in ("bad_message", "bad_input"), reply
    assert srv.hub.hosts["fz"].table.rev == rev_before


def _is_text(frame: bytes) -> bool:
    try:
        frame.decode()
    except UnicodeDecodeError:
        return False
    return True


def test_server_still_serves_after_fuzzing(fuzz_target: dict[str, Any]) -> None:
    ws: ClientConnection = fuzz_target["gm"]
    ws.send(
        json.dumps(
            {
                "type": "cmd",
                "id": "ok",
                "table": "fz",
                "body": {"type": "mettle.rattle", "char": "a", "amount": 1},
            }
        )
    )
    assert json.loads(ws.recv(WAIT))["type"] == "ack"


# Tokens of every shape a mistyped, truncated or forged link gives: not
# three dot-separated parts, an empty or unknown scope, another version, a
# real scope with a body that is not signed by its key.
MALFORMED_TOKENS = [
    "",
    "x",
    "garbage",
    "v1",
    "v1.",
    "v1.garbage",
    "v1..x",
    "v2.demo.x",
    "v1.fz",
    "v1.fz.x",
    "..",
    "v1.fz..",
]
tokens = (
    st.sampled_from(MALFORMED_TOKENS)
    | st.text(max_size=60)
    | st.builds(
        lambda scope, body: f"v1.{scope}.{body}",
        st.sampled_from(["fz", "~operator", "nope", ""]),
        st.text(max_size=40),
    )
)


@settings(max_examples=150)
@given(token=tokens)
def test_fuzzed_hello_tokens_are_refused_with_a_final_close(fuzz_target: dict[str, Any], token: str) -> None:
    """A hello whose token is not a valid one, whatever its shape, is
    refused ``bad_token`` and closed 4001 (final: the client library stops
    reconnecting and the page says the link is not valid), never failed
    inside the server (1011, which a client retries for ever)."""
    ws = connect(fuzz_target["url"])
    try:
        ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": token}))
        reply = json.loads(ws.recv(WAIT))
        # An empty token is no hello the schema reads (bad_message, naming
        # the field); every other one is a token that is not valid.
        expected = "bad_message" if not token else "bad_token"
        assert reply["type"] == "error" and reply["code"] == expected, (token, reply)
        with pytest.raises(ConnectionClosed):
            ws.recv(WAIT)
        assert ws.close_code == CloseCode.REFUSED, (token, ws.close_code)
    finally:
        ws.close()
