"""Every WebSocket close code the server sends, and whether reconnecting can
help: the one list a client consults (the command catalogue exports it, and
the client core stops reconnecting after a final one instead of retrying a
token that will never work again)."""

from __future__ import annotations

from enum import IntEnum


class CloseCode(IntEnum):
    """The 1xxx codes are sent by the websockets library on the server's
    behalf; the 4xxx codes by Vigil itself (``server/vigil/net``)."""

    GOING_AWAY = 1001
    """The server is shutting down (a restart): it will be back."""
    PROTOCOL_ERROR = 1002
    """A malformed WebSocket frame."""
    INVALID_DATA = 1007
    """A text frame that is not UTF-8."""
    MESSAGE_TOO_BIG = 1009
    """A frame above the server's ``max_message``."""
    INTERNAL_ERROR = 1011
    """The server failed, or the client stopped answering pings."""
    TRY_AGAIN_LATER = 1013
    """The table is full or the server is shutting down."""
    HELLO_EXPECTED = 4000
    """No hello came in time."""
    REFUSED = 4001
    """The hello was refused: a bad, expired or revoked token, another
    protocol version, or a non-GM at an archived table."""
    TOKEN_EXPIRED = 4002
    """The connection's token has expired."""
    TOKEN_REVOKED = 4003
    """The token was revoked, or the table's key was rotated."""
    TABLE_DELETED = 4004
    """The operator deleted the table."""
    TABLE_ARCHIVED = 4005
    """The table was archived: only its GM may connect now."""

    @property
    def final(self) -> bool:
        """Reconnecting cannot help: the same token will be refused again."""
        return self in FINAL


FINAL: frozenset[CloseCode] = frozenset(
    {
        CloseCode.REFUSED,
        CloseCode.TOKEN_EXPIRED,
        CloseCode.TOKEN_REVOKED,
        CloseCode.TABLE_DELETED,
        CloseCode.TABLE_ARCHIVED,
    }
)
