"""A real Redis for the tests: Debian's ``redis-server``, started for the
test session on a free port of the loopback interface (never 6379, where a
system Redis may listen), with nothing written to disk (``--save ''
--appendonly no``), stopped and its directory removed at the end.

The server can be stopped and started again on the same port (``stop()``,
``kill()``, ``start()``), as a Redis that restarts under load would: the
nodes' clients see the same URL go away and come back. Each test that asks
for ``redis_url`` finds the server running (started again if an earlier test
left it stopped) and empty (``FLUSHALL``).

Without ``redis-server`` the Redis tests are skipped with the reason on a
developer's machine, and fail under CI (tests/support/services.py).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from tests.support import services
from tests.support.server import free_port

# Seconds for a start or a stop: bounded, so that a broken server fails the
# test instead of hanging the session.
TIMEOUT = 10.0


@dataclass
class RedisServer:
    binary: str
    directory: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.directory / "redis.log"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> RedisServer:
        """Start on ``self.port`` and wait until it answers PING."""
        if self.running:
            return self
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.directory),
            "--daemonize",
            "no",
        ]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited early: {self.log_tail()}")
            if self.ping():
                return self
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"redis-server did not answer within {TIMEOUT}s: {self.log_tail()}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server (SIGTERM: it closes its clients' connections;
        SIGKILL: they are cut), and wait until it is gone."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
        self.proc = None

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self) -> RedisServer:
        """Stop and start again on the same port, empty (nothing is saved)."""
        self.stop()
        return self.start()

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=TIMEOUT)

    def ping(self) -> bool:
        try:
            with self.client() as conn:
                return bool(conn.ping())
        except redis.RedisError:
            return False

    def flush(self) -> None:
        with self.client() as conn:
            conn.flushall()

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"


def start_server() -> RedisServer:
    binary = shutil.which("redis-server")
    if binary is None:
        services.missing("Redis is not installed (apt-get install redis-server)", "the Redis tests")
    server = RedisServer(binary=binary, directory=Path(tempfile.mkdtemp(prefix="vigil-redis-")))
    try:
        return server.start()
    except BaseException:
        shutil.rmtree(server.directory, ignore_errors=True)
        raise


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    yield from services.for_the_session(start_server)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, running and empty at the start of the test."""
    redis_server.start()
    redis_server.flush()
    return redis_server.url
