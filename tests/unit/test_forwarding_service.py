"""A request forwarded to another node's table, without a bus or a socket
(vigil.net.forwarding): what is answered for each way the forwarding can
end, and that nothing is kept once it has ended."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from vigil.net import bus as busmod
from vigil.net import cluster_wire as wire
from vigil.net.forwarding import Forwarding
from vigil.net.host import Conn


class Fanout:
    """What the forwarding writes to this node's connections."""

    def __init__(self) -> None:
        self.sent: list[tuple[Conn, dict[str, Any]]] = []

    def send(self, conn: Conn, data: bytes) -> None:
        self.sent.append((conn, json.loads(data)))


class Bus:
    """A bus whose request ends as told: how many nodes got it, or an error;
    ``then`` runs once the request is out (the owner's answer arriving)."""

    def __init__(self, got: int | BaseException, then: Any = None) -> None:
        self.got, self.then = got, then
        self.requests: list[tuple[str, wire.Message]] = []

    async def request(self, channel: str, data: bytes) -> int:
        self.requests.append((channel, wire.decoder.decode(data)))
        if isinstance(self.got, BaseException):
            raise self.got
        if self.then is not None:
            asyncio.get_running_loop().call_soon(self.then)
        return self.got


def conn(ref: int) -> Conn:
    return Conn(ws=None, sockets=None, ref=ref, role="operator", token_id="op")  # type: ignore[arg-type]


def forwarding(bus: Bus, fanout: Fanout, seconds: float = 30.0) -> Forwarding:
    return Forwarding("here", bus, fanout, seconds)  # type: ignore[arg-type]


async def test_an_answer_ends_the_wait_and_nothing_is_kept() -> None:
    fanout = Fanout()
    bus = Bus(1)
    fwd = forwarding(bus, fanout)
    bus.then = lambda: fwd.answered(7, "m1")
    asker = conn(7)
    await fwd.send(asker, "there", "t1", "m1", b"{}", "op", lambda: None)
    assert fanout.sent == []  # the answer itself is written by whoever received it
    assert fwd.waiting() == 0
    ((channel, sent),) = bus.requests
    assert channel == busmod.inbox("there")
    assert isinstance(sent, wire.Forward)
    assert (sent.t, sent.node, sent.ref, sent.operator) == ("t1", "here", 7, "op")


async def test_an_operator_waiting_is_found_by_its_ref_until_answered() -> None:
    fanout = Fanout()
    seen: list[Conn | None] = []
    bus = Bus(1)
    fwd = forwarding(bus, fanout)
    asker = conn(3)

    def answer() -> None:
        seen.append(fwd.operator(3))
        fwd.answered(3, "m1")

    bus.then = answer
    await fwd.send(asker, "there", "t1", "m1", b"{}", "op", lambda: None)
    assert seen == [asker]
    assert fwd.operator(3) is None


@pytest.mark.parametrize(
    ("error", "code"),
    [(busmod.NotSent("down"), "bus_unavailable"), (OSError("reset"), "outcome_unknown")],
)
async def test_a_bus_failure_is_answered_by_what_is_known(error: BaseException, code: str) -> None:
    fanout = Fanout()
    fwd = forwarding(Bus(error), fanout)
    asker = conn(4)
    await fwd.send(asker, "there", "t1", "m9", b"{}", None, lambda: None)
    assert [(c, m["code"], m["id"]) for c, m in fanout.sent] == [(asker, code, "m9")]
    assert fwd.waiting() == 0


async def test_nobody_listening_is_the_owner_gone_and_no_answer() -> None:
    fanout = Fanout()
    gone: list[str] = []
    fwd = forwarding(Bus(0), fanout)
    await fwd.send(conn(5), "there", "t1", "m2", b"{}", None, lambda: gone.append("t1"))
    assert gone == ["t1"]
    assert fanout.sent == []
    assert fwd.waiting() == 0


async def test_no_answer_in_time_is_outcome_unknown() -> None:
    fanout = Fanout()
    fwd = forwarding(Bus(1), fanout, seconds=0.0)
    asker = conn(6)
    await fwd.send(asker, "there", "t1", "m3", b"{}", "op", lambda: None)
    assert [(m["code"], m["id"]) for _c, m in fanout.sent] == [("outcome_unknown", "m3")]
    assert fwd.waiting() == 0


def test_an_answer_for_no_request_waiting_is_ignored() -> None:
    fwd = forwarding(Bus(1), Fanout())
    fwd.answered(1, "nothing")
    assert fwd.waiting() == 0
