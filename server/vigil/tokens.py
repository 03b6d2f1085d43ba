"""Issuing access tokens: sign them and record them, in one place.

Every token is recorded in the store before it is handed out, so that it
can be listed and revoked; the server and the ``vigil token`` command both
issue through here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from vigil import auth
from vigil.rules.clock import DAY
from vigil.store.base import Store, TokenRecord


def new_record(
    table: str,
    role: auth.Role,
    chars: list[str],
    label: str,
    ttl_days: float | None,
    incarnations: Mapping[str, str] | None = None,
) -> TokenRecord:
    """The record of a new token for ``table`` (None ``ttl_days``: until
    revoked), not stored yet; ``incarnations`` are the table's now (see
    :func:`owned`)."""
    now = time.time()
    known = incarnations or {}
    return TokenRecord(
        table=table,
        token_id=auth.new_token_id(),
        role=role,
        chars=chars,
        label=label,
        expires=None if ttl_days is None else now + ttl_days * DAY,
        created=now,
        incarnations={c: known.get(c, "") for c in chars},
    )


def owned(record: TokenRecord, incarnations: Mapping[str, str]) -> frozenset[str]:
    """The characters a token controls now, given the table's characters
    and their incarnations: those it was minted for, each still the one it
    was minted for. A character removed and made anew with the same id is
    another incarnation, never the token's (undoing the removal brings the
    same one back, and the token's control with it)."""
    return frozenset(
        c for c in record.chars if c in incarnations and incarnations[c] == record.incarnations.get(c, "")
    )


def sign(key: str, record: TokenRecord) -> str:
    """The token of ``record``, signed with its table's ``key``."""
    claims = auth.Claims(
        table=record.table,
        role=record.role,  # type: ignore[arg-type]  # a record holds a Role
        token_id=record.token_id,
        chars=record.chars,
        expires=record.expires,
        label=record.label,
    )
    return auth.mint(key, claims)


def issue(
    store: Store,
    key: str,
    table: str,
    role: auth.Role,
    chars: list[str],
    label: str,
    ttl_days: float | None,
    incarnations: Mapping[str, str] | None = None,
) -> tuple[str, TokenRecord]:
    """A new signed token for ``table``, recorded in the store."""
    record = new_record(table, role, chars, label, ttl_days, incarnations)
    store.add_token(record)
    return sign(key, record), record


def operator_token(store: Store) -> str:
    """The server-wide operator token: one stable token id per data
    directory (made on first use), so restarts do not invalidate it."""
    live = [t for t in store.tokens(auth.OPERATOR_SCOPE) if not t.revoked]
    if not live:
        return issue(store, store.server_secret(), auth.OPERATOR_SCOPE, "operator", [], "operator", None)[0]
    return sign(store.server_secret(), live[0])
