"""Who is let in, decided as pure functions (values in, a decision out; no
socket, no clock, no store): a client's hello read, the close code a
refusal is sent with, whether a table has a place for a newcomer, and
which of its connections a reconnecting client has given up.

The connection loop (vigil.net.connection) is the driver: it reads the
frame, asks these, and does what they say (welcome, or answer and close).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar

import msgspec

from vigil import auth
from vigil.close_codes import CloseCode
from vigil.protocol import PROTOCOL_VERSION, Hello, client_decoder

# What a frame that is no message raises when decoded: a frame nested
# deeper than the decoder goes raises RecursionError, and is as unreadable
# as any other (a bad_message, not the end of the connection).
UNREADABLE = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
# The refusals of a hello that a client tries again after a while (1013):
# its table is being moved or loaded, or the store was out of reach.
AGAIN = frozenset({"table_unavailable", "store_unavailable"})


@dataclass(frozen=True)
class Refusal:
    """A hello refused: the error ``code`` (and ``params``) it is answered
    with, and the code the connection is then closed with."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    close: CloseCode = CloseCode.REFUSED


@dataclass(frozen=True)
class Greeting:
    """A hello read: the table its token is for (``scope``; the operator's
    scope for the operator), and where the client resumes from, if it
    resumes that table (``{epoch, rev}``)."""

    hello: Hello
    scope: str
    resume: tuple[int, int] | None


def reason(exc: Exception) -> str:
    """Why a frame could not be read, in the words of a ``bad_message``."""
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def read_hello(frame: str | bytes) -> Greeting | Refusal:
    """The first frame of a connection: a hello of this protocol, with a
    token of a token's shape (its signature is checked by who serves its
    table), or the refusal it gets."""
    try:
        msg = client_decoder.decode(frame)
    except UNREADABLE as exc:
        return Refusal("bad_message", {"reason": reason(exc)})
    if not isinstance(msg, Hello):
        return Refusal("hello_first")
    if msg.protocol != PROTOCOL_VERSION:
        return Refusal("bad_protocol", {"server": PROTOCOL_VERSION, "client": msg.protocol})
    try:
        scope = auth.scope_of(msg.token)
    except auth.TokenError as exc:  # not a token's shape: final, as a bad signature is
        return Refusal(exc.code)
    resume = None
    if msg.resume is not None and msg.resume.table == scope:
        resume = (msg.resume.epoch, msg.resume.rev)
    return Greeting(msg, scope, resume)


def refused(code: str) -> Refusal:
    """A hello refused with ``code`` where its table is served: tried again
    later (1013) if the table or the store was out of reach, else final."""
    return Refusal(code, close=CloseCode.TRY_AGAIN_LATER if code in AGAIN else CloseCode.REFUSED)


class Seat(Protocol):
    """A connection as the places of a table count it."""

    @property
    def role(self) -> str: ...

    @property
    def token_id(self) -> str: ...

    @property
    def session(self) -> str: ...


S = TypeVar("S", bound=Seat)


class Places(NamedTuple):
    """A table's places: in all, for spectators, and for one spectator link."""

    per_table: int
    spectators: int
    per_link: int


def no_place(seated: Iterable[Seat], joining: Seat, places: Places) -> str | None:
    """Why the table whose connections are ``seated`` has no place for
    ``joining`` (the refusal's code), or None: it has. Spectators take at
    most ``places.spectators`` places, and one spectator link at most
    ``places.per_link``: the other places are kept for the GM and players,
    so that a shared link can never lock them out."""
    seated = list(seated)
    if len(seated) >= places.per_table:
        return "table_full"
    if joining.role != "spectator":
        return None
    spectators = [s for s in seated if s.role == "spectator"]
    if len(spectators) >= places.spectators:
        return "spectators_full"
    if sum(1 for s in spectators if s.token_id == joining.token_id) >= places.per_link:
        return "link_full"
    return None


def given_up(seated: Iterable[S], joining: S) -> list[S]:
    """The connections a reconnecting client has given up: those of the
    table with its token and the session its hello names (a client names
    the session it had; one dropped by the network before keep-alive
    noticed still holds its place)."""
    if not joining.session:
        return []
    return [
        s
        for s in seated
        if s is not joining and s.session == joining.session and s.token_id == joining.token_id
    ]
