"""Signed, expiring access tokens.

A token names its table in the clear (so the server knows which key checks
it) and carries, signed with that table's key, the role, a token id and, for
players, the character ids. ``itsdangerous`` does the signing (HMAC-SHA256
with a salted key derivation): a well-kept library rather than hand-rolled
crypto. Revocation is a list of token ids per table; rotating a table's key
kills every token of it at once.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Literal, get_args

import itsdangerous
import msgspec

TableRole = Literal["gm", "player", "spectator"]
"""The roles a table's tokens carry."""
Role = Literal["operator", TableRole]
ROLES: tuple[Role, ...] = get_args(Role)
TABLE_ROLES: tuple[TableRole, ...] = get_args(TableRole)
OPERATOR_SCOPE = "~operator"
_PREFIX = "v1"


class Claims(msgspec.Struct, kw_only=True, omit_defaults=True):
    table: str
    role: Role
    token_id: str
    chars: list[str] = []
    expires: float | None = None
    label: str = ""


class TokenError(Exception):
    """Why a token was refused: ``code`` is the protocol error code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def new_key() -> str:
    return secrets.token_urlsafe(32)


def new_token_id() -> str:
    return secrets.token_hex(6)


def _serializer(key: str) -> itsdangerous.URLSafeSerializer:
    return itsdangerous.URLSafeSerializer(
        key, salt="vigil-token", signer_kwargs={"digest_method": hashlib.sha256}
    )


def mint(key: str, claims: Claims) -> str:
    body = _serializer(key).dumps(msgspec.to_builtins(claims))
    return f"{_PREFIX}.{claims.table}.{body}"


def scope_of(token: str) -> str:
    """The table (or operator scope) a token claims to belong to, unverified:
    only used to pick the key that verifies it."""
    parts = token.split(".", 2)
    if len(parts) != 3 or parts[0] != _PREFIX or not parts[1]:
        raise TokenError("bad_token")
    return parts[1]


def verify(key: str, token: str, now: float) -> Claims:
    scope = scope_of(token)
    body = token.split(".", 2)[2]
    try:
        data = _serializer(key).loads(body)
        claims = msgspec.convert(data, Claims)
    except (itsdangerous.BadData, msgspec.ValidationError):
        raise TokenError("bad_token") from None
    if claims.table != scope:
        raise TokenError("bad_token")
    if claims.expires is not None and claims.expires <= now:
        raise TokenError("token_expired")
    return claims
