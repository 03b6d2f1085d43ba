"""Who is let in (vigil.net.admission), as pure decisions: a hello read
from its frame, the close code of a refusal, the places of a table, the
connection a reconnect replaces. No socket: connections are values."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import pytest

from vigil import auth, tokens
from vigil.close_codes import CloseCode
from vigil.net import admission
from vigil.net.admission import Greeting, Places, Refusal
from vigil.protocol import PROTOCOL_VERSION, Hello, Resume


@dataclass(eq=False)
class Seat:
    role: str
    token_id: str = "t"
    session: str = ""


TOKEN = tokens.sign("k", tokens.new_record("friday", "gm", [], "gm", 30))


def hello(token: str = TOKEN, protocol: int = PROTOCOL_VERSION, resume: Resume | None = None) -> bytes:
    return msgspec.json.encode(Hello(protocol=protocol, token=token, session="s1", resume=resume))


def test_a_hello_is_read_with_the_table_its_token_is_for() -> None:
    read = admission.read_hello(hello())
    assert isinstance(read, Greeting)
    assert (read.scope, read.resume, read.hello.session) == ("friday", None, "s1")


def test_a_hello_resumes_only_the_table_its_token_is_for() -> None:
    same = admission.read_hello(hello(resume=Resume(table="friday", epoch=2, rev=41)))
    other = admission.read_hello(hello(resume=Resume(table="saturday", epoch=2, rev=41)))
    assert isinstance(same, Greeting) and same.resume == (2, 41)
    assert isinstance(other, Greeting) and other.resume is None


def test_the_operators_hello_is_read_with_the_operators_scope() -> None:
    operator = tokens.sign(
        "server-key", tokens.new_record(auth.OPERATOR_SCOPE, "operator", [], "operator", 30)
    )
    read = admission.read_hello(hello(operator))
    assert isinstance(read, Greeting) and read.scope == auth.OPERATOR_SCOPE


@pytest.mark.parametrize(
    ("frame", "code", "params"),
    [
        (b"{not json", "bad_message", None),
        (b'{"type":"ping","id":"p"}', "hello_first", {}),
        (
            hello(protocol=PROTOCOL_VERSION + 1),
            "bad_protocol",
            {"server": PROTOCOL_VERSION, "client": PROTOCOL_VERSION + 1},
        ),
        (hello(token="no token at all"), "bad_token", {}),
    ],
)
def test_a_frame_that_is_no_hello_of_this_protocol_is_refused_for_good(
    frame: bytes, code: str, params: dict[str, object] | None
) -> None:
    read = admission.read_hello(frame)
    assert isinstance(read, Refusal)
    assert (read.code, read.close) == (code, CloseCode.REFUSED)
    if params is not None:
        assert read.params == params
    else:
        assert read.params["reason"]  # why, in the decoder's words


def test_a_frame_nested_deeper_than_the_decoder_goes_is_said_to_be_so() -> None:
    """The decoder's own words for any other unreadable frame."""
    assert admission.reason(RecursionError()) == "nested too deeply"
    assert admission.reason(msgspec.DecodeError("truncated")) == "truncated"


def test_only_a_table_or_store_out_of_reach_is_tried_again() -> None:
    assert admission.refused("table_unavailable").close == CloseCode.TRY_AGAIN_LATER
    assert admission.refused("store_unavailable").close == CloseCode.TRY_AGAIN_LATER
    assert admission.refused("bad_token").close == CloseCode.REFUSED
    assert admission.refused("unknown_table").close == CloseCode.REFUSED


PLACES = Places(per_table=4, spectators=2, per_link=1)


def test_a_full_table_has_no_place_for_anyone() -> None:
    seated = [Seat("gm"), Seat("player", "p1"), Seat("player", "p2"), Seat("spectator", "s1")]
    assert admission.no_place(seated, Seat("gm"), PLACES) == "table_full"
    assert admission.no_place(seated[:3], Seat("gm"), PLACES) is None


def test_spectators_never_take_the_places_of_the_gm_and_players() -> None:
    seated = [Seat("spectator", "s1"), Seat("spectator", "s2")]
    assert admission.no_place(seated, Seat("spectator", "s3"), PLACES) == "spectators_full"
    assert admission.no_place(seated, Seat("player", "p1"), PLACES) is None


def test_one_spectator_link_takes_at_most_its_places() -> None:
    seated = [Seat("spectator", "s1")]
    assert admission.no_place(seated, Seat("spectator", "s1"), PLACES) == "link_full"
    assert admission.no_place(seated, Seat("spectator", "s2"), PLACES) is None


def test_a_reconnect_replaces_only_its_own_former_connection() -> None:
    former = Seat("player", "p1", "s1")
    other_session = Seat("player", "p1", "s2")
    other_token = Seat("player", "p2", "s1")
    joining = Seat("player", "p1", "s1")
    seated = [former, other_session, other_token, joining]
    assert admission.given_up(seated, joining) == [former]


def test_a_client_that_names_no_session_replaces_nobody() -> None:
    seated = [Seat("player", "p1", "")]
    assert admission.given_up(seated, Seat("player", "p1", "")) == []
