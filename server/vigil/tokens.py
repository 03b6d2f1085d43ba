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


def issue(
    store: Store,
    key: str,
    table: str,
    role: auth.Role,
    chars: list[str],
    label: str,
    ttl_days: float | None,
) -> tuple[str, TokenRecord]:
    """A new signed token for ``table`` (None ``ttl_days``: until revoked)."""
    now = time.time()
    record = TokenRecord(
        table=table,
        token_id=auth.new_token_id(),
        role=role,
        chars=chars,
        label=label,
        expires=None if ttl_days is None else now + ttl_days * DAY,
        created=now,
    )
    store.add_token(record)
    claims = auth.Claims(
        table=table,
        role=role,
        token_id=record.token_id,
        chars=chars,
        expires=record.expires,
        label=label,
    )
    return auth.mint(key, claims), record


def operator_token(store: Store) -> str:
    """The server-wide operator token: one stable token id per data
    directory (made on first use), so restarts do not invalidate it."""
    live = [t for t in store.tokens(auth.OPERATOR_SCOPE) if not t.revoked]
    if not live:
        return issue(store, store.server_secret(), auth.OPERATOR_SCOPE, "operator", [], "operator", None)[0]
    claims = auth.Claims(
        table=auth.OPERATOR_SCOPE, role="operator", token_id=live[0].token_id, label="operator"
    )
    return auth.mint(store.server_secret(), claims)
