"""The settings keep the names operators know: the address to listen on is
``address`` in the code (a "host" at the edge is a table served) and still
``--host`` / ``VIGIL_HOST`` outside it."""

from __future__ import annotations

import pytest

from vigil.config import Config


def test_the_listening_addresses_are_read_from_their_usual_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIGIL_HOST", "0.0.0.0")
    monkeypatch.setenv("VIGIL_METRICS_HOST", "10.0.0.5")
    monkeypatch.setenv("VIGIL_PORT", "9000")
    config = Config.from_env()
    assert (config.address, config.metrics_address, config.port) == ("0.0.0.0", "10.0.0.5", 9000)
    assert config.base_url == "http://0.0.0.0:9000"


def test_a_flag_overrides_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIGIL_HOST", "0.0.0.0")
    assert Config.from_env({"address": "127.0.0.2"}).address == "127.0.0.2"
    monkeypatch.delenv("VIGIL_HOST")
    monkeypatch.setenv("VIGIL_ADDRESS", "10.9.9.9")  # not a variable operators were ever told of
    assert Config.from_env().address == "127.0.0.1"
