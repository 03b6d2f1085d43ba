"""Tokens without a socket: what a token carries comes back from its
signature and only from it; anything forged, tampered with, signed with
another key or past its life is refused with the protocol's error code."""

from __future__ import annotations

import pytest

from vigil import auth, tokens
from vigil.auth import Claims, TokenError
from vigil.rules.clock import DAY
from vigil.store.base import TokenRecord

KEY = auth.new_key()
NOW = 1_000_000.0


def _claims(**extra: object) -> Claims:
    fields: dict[str, object] = {"table": "t1", "role": "player", "token_id": "abc", "chars": ["a"], **extra}
    return Claims(**fields)  # type: ignore[arg-type]


def _code(key: str, token: str, now: float = NOW) -> str:
    with pytest.raises(TokenError) as info:
        auth.verify(key, token, now)
    return info.value.code


def test_a_token_gives_back_exactly_its_claims() -> None:
    claims = _claims(expires=NOW + 60, label="Anna")
    token = auth.mint(KEY, claims)
    assert token.startswith("v1.t1.")
    assert auth.scope_of(token) == "t1"
    assert auth.verify(KEY, token, NOW) == claims


def test_another_key_or_a_changed_byte_is_a_bad_token() -> None:
    token = auth.mint(KEY, _claims())
    assert _code(auth.new_key(), token) == "bad_token"
    payload, signature = token.split(".", 2)[2].split(".")
    for i in (0, len(payload) // 2):  # a byte of the claims, then of the signature
        other = "A" if payload[i] != "A" else "B"
        assert _code(KEY, f"v1.t1.{payload[:i]}{other}{payload[i + 1 :]}.{signature}") == "bad_token"
        other = "A" if signature[i] != "A" else "B"
        assert _code(KEY, f"v1.t1.{payload}.{signature[:i]}{other}{signature[i + 1 :]}") == "bad_token"


def test_a_token_moved_to_another_table_is_a_bad_token() -> None:
    """The table in the clear must be the one signed inside: the other
    table's key would not check it, and even the same key refuses it."""
    body = auth.mint(KEY, _claims()).split(".", 2)[2]
    assert _code(KEY, f"v1.t2.{body}") == "bad_token"


@pytest.mark.parametrize("token", ["", "v1", "v1.t1", "v2.t1.body", "v1..body", "nonsense"])
def test_a_malformed_token_has_no_scope(token: str) -> None:
    with pytest.raises(TokenError) as info:
        auth.scope_of(token)
    assert info.value.code == "bad_token"


def test_a_token_ends_at_its_expiry_and_one_without_never_does() -> None:
    expiring = auth.mint(KEY, _claims(expires=NOW + 1))
    assert auth.verify(KEY, expiring, NOW).expires == NOW + 1
    assert _code(KEY, expiring, now=NOW + 1) == "token_expired"
    forever = auth.mint(KEY, _claims())
    assert auth.verify(KEY, forever, NOW + 3650 * DAY).expires is None


def test_claims_that_do_not_fit_are_a_bad_token() -> None:
    """A body signed with the right key but not shaped like claims (a role
    that does not exist) is refused too."""
    body = auth._serializer(KEY).dumps({"table": "t1", "role": "king", "token_id": "x"})
    assert _code(KEY, f"v1.t1.{body}") == "bad_token"


def test_keys_and_token_ids_are_fresh_each_time() -> None:
    assert len({auth.new_key() for _ in range(20)}) == 20
    assert len({auth.new_token_id() for _ in range(20)}) == 20


def test_a_record_lives_its_days_and_its_token_carries_it() -> None:
    record = tokens.new_record("t1", "player", ["a", "b"], "Anna", 1.5)
    assert record.expires == pytest.approx(record.created + 1.5 * DAY)
    claims = auth.verify(KEY, tokens.sign(KEY, record), record.created)
    assert (claims.table, claims.role, claims.token_id) == ("t1", "player", record.token_id)
    assert (claims.chars, claims.label, claims.expires) == (["a", "b"], "Anna", record.expires)
    assert tokens.new_record("t1", "spectator", [], "", None).expires is None


class _Tokens:
    """The one store method issuing needs: it records every token."""

    def __init__(self) -> None:
        self.added: list[TokenRecord] = []

    def add_token(self, token: TokenRecord) -> None:
        self.added.append(token)


def test_a_token_is_recorded_before_it_is_handed_out() -> None:
    store = _Tokens()
    token, record = tokens.issue(store, KEY, "t1", "gm", [], "gm", None)  # type: ignore[arg-type]
    assert store.added == [record]
    assert auth.verify(KEY, token, NOW).token_id == record.token_id


def test_a_token_controls_its_characters_only_in_the_incarnation_it_was_minted_for() -> None:
    record = tokens.new_record("t1", "player", ["a", "b"], "Anna", None, {"a": "1.4", "b": ""})
    assert tokens.owned(record, {"a": "1.4", "b": "", "c": "1.9"}) == {"a", "b"}
    assert tokens.owned(record, {"a": "1.12", "b": ""}) == {"b"}, "a made anew is another character"
    assert tokens.owned(record, {"b": ""}) == {"b"}, "a removed"
    old = TokenRecord(
        table="t1", token_id="x", role="player", chars=["a"], label="", expires=None, created=NOW
    )
    assert tokens.owned(old, {"a": ""}) == {"a"}, "a token from before incarnations keeps its old characters"
    assert tokens.owned(old, {"a": "2.3"}) == frozenset(), "but never a character made since"
