"""Who may connect: the tokens of the tables served here and the server's
operator token — minted (recorded before they are handed out), learnt from
the store (minted offline by ``vigil token`` while the server runs) and
verified at a hello.

Its own service beside the hub (which composes it), so that the tables'
lifecycle and the watching of them do not hold the keys and the known
tokens too. Every store call goes through :class:`~vigil.net.storage.Storage`.
"""

from __future__ import annotations

import time

from vigil import auth, tokens
from vigil.config import Config
from vigil.net.host import TableHost
from vigil.net.storage import Storage
from vigil.store.base import Store, TokenRecord


class Access:
    """The keys and known tokens of this node: the server's (for the
    operator) and each served table's (kept on its :class:`TableHost`)."""

    def __init__(self, config: Config, store: Store, storage: Storage, hosts: dict[str, TableHost]) -> None:
        self.config = config
        self.store = store
        self.storage = storage
        self.hosts = hosts
        self.server_key = store.server_secret()  # made before the loop serves anyone
        self._operator = ""
        self._operator_tokens: dict[str, TokenRecord] = {}

    def start(self) -> None:
        """Read (or make) the operator token, before the server listens."""
        self._operator = tokens.operator_token(self.store)

    def operator_token(self) -> str:
        """The server's operator token (stable: read or made at the start)."""
        return self._operator

    async def mint(
        self, host: TableHost, role: auth.Role, chars: list[str], label: str, ttl_days: float | None
    ) -> tuple[str, TokenRecord]:
        """A token for ``host``'s table, recorded before it is handed out;
        the lifetime defaults per role."""
        if ttl_days is None:
            ttl_days = self.config.token_days(role)
        incarnations = host.table.incarnations()
        token, record = await self.storage.quick(
            tokens.issue,
            self.store,
            host.record.key,
            host.record.id,
            role,
            chars,
            label,
            ttl_days,
            incarnations,
        )
        host.tokens[record.token_id] = record
        return token, record

    async def read_tokens(self, host: TableHost) -> None:
        """Learn the tokens of ``host``'s table that the store has and the
        server does not (minted by ``vigil token`` while it runs), so that
        the GM can list and revoke every one."""
        stored = await self.storage.slow(self.store.tokens, host.record.id)
        for record in stored:
            host.tokens.setdefault(record.token_id, record)

    async def authenticate(self, token: str) -> tuple[auth.Claims, TokenRecord]:
        """Verify the signature first; only a validly signed token costs a
        store read, and only when its id is not known yet (minted offline by
        ``vigil token`` while the server runs)."""
        scope = auth.scope_of(token)
        now = time.time()
        if scope == auth.OPERATOR_SCOPE:
            claims = auth.verify(self.server_key, token, now)
            known = self._operator_tokens
        else:
            host = self.hosts.get(scope)
            if host is None:
                raise auth.TokenError("bad_token")
            claims = auth.verify(host.record.key, token, now)
            known = host.tokens
        if claims.token_id not in known:
            stored = await self.storage.quick(self.store.tokens, scope)
            known.update({t.token_id: t for t in stored})
        record = known.get(claims.token_id)
        if record is None or record.revoked:
            raise auth.TokenError("token_revoked")
        return claims, record
