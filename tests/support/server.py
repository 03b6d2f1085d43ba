"""A real ``vigil serve`` in a subprocess, for tests that need the whole
server: real sockets, real SQLite, real signals.

It parses the banner the server prints (the same one a GM reads) for the
URL and the demo table's tokens, so the tests also check that banner.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    data_dir: Path
    port: int = field(default_factory=free_port)
    extra_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[str] | None = None
    banner: dict[str, str] = field(default_factory=dict)
    log_path: Path | None = None
    # How to run Vigil: by default this interpreter's ``-m vigil.cli``; the
    # wheel test gives an installed ``vigil`` script (and a cwd outside the
    # repository) instead.
    command: list[str] | None = None
    cwd: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def token(self, label: str) -> str:
        value = self.banner[label]
        return value.split("#token=", 1)[1] if "#token=" in value else value

    @property
    def gm_token(self) -> str:
        return self.token("GM dashboard")

    @property
    def spectator_token(self) -> str:
        return self.token("Spectator view")

    @property
    def player_token(self) -> str:
        return self.token("Player page (Brannoc)")

    @property
    def operator_token(self) -> str:
        return self.token("Operator token")

    def start(self, timeout: float = 20.0) -> ServerProcess:
        self.log_path = self.data_dir / "server.log"
        args = [
            *(self.command or [sys.executable, "-m", "vigil.cli"]),
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--port",
            str(self.port),
            "--log-format",
            "json",
            *self.extra_args,
        ]
        env = {**os.environ, **self.env}
        if self.command is not None:
            env.pop("PYTHONPATH", None)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "a")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=self.cwd
        )
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"vigil serve exited early: {self.log_path.read_text()[-2000:]}")
            match = re.match(r"^([A-Za-z][^:]*): (.*)$", line.strip())
            if match:
                self.banner[match.group(1)] = match.group(2)
            if line.startswith("More tokens:"):
                break
        self._wait_healthy(deadline)
        return self

    def _wait_healthy(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("vigil serve did not become healthy")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None
        return code

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self) -> ServerProcess:
        """Stop and start on the same port and data; the banner keeps the
        first start's tokens (they stay valid across restarts)."""
        self.stop()
        banner = dict(self.banner)
        self.start()
        self.banner = {**banner, **{k: v for k, v in self.banner.items() if k == "Operator token"}}
        return self
