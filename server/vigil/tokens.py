"""Issuing access tokens: sign them and record them, in one place.

Every token is recorded in the store before it is handed out, so that it
can be listed and revoked; the server and the ``vigil token`` command both
issue through here.
"""

from __future__ import annotations

import time

from vigil import auth
from vigil.rules.clock import DAY
from vigil.store.base import Store, TokenRecord


def new_record(
    table: str, role: auth.Role, chars: list[str], label: str, ttl_days: float | None
) -> TokenRecord:
    """The record of a new token for ``table`` (None ``ttl_days``: until
    revoked), not stored yet."""
    now = time.time()
    return TokenRecord(
        table=table,
        token_id=auth.new_token_id(),
        role=role,
        chars=chars,
        label=label,
        expires=None if ttl_days is None else now + ttl_days * DAY,
        created=now,
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
) -> tuple[str, TokenRecord]:
    """A new signed token for ``table``, recorded in the store."""
    record = new_record(table, role, chars, label, ttl_days)
    store.add_token(record)
    return sign(key, record), record


def operator_token(store: Store) -> str:
    """The server-wide operator token: one stable token id per data
    directory (made on first use), so restarts do not invalidate it."""
    live = [t for t in store.tokens(auth.OPERATOR_SCOPE) if not t.revoked]
    if not live:
        return issue(store, store.server_secret(), auth.OPERATOR_SCOPE, "operator", [], "operator", None)[0]
    return sign(store.server_secret(), live[0])
