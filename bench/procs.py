"""Server subprocesses and what /proc says about them."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]


def raise_nofile() -> int:
    """Soft RLIMIT_NOFILE up to the hard limit (2,100 sockets need it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_times(pid: int) -> tuple[float, float]:
    """(utime, stime) of ``pid`` from /proc/<pid>/stat, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def tree_cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) seconds of ``pid`` and every process under it, with
    what their children that ended took (``cutime``/``cstime``): the whole
    of a server made of processes (PostgreSQL's postmaster and its
    backends). A process that ends between two readings and is not yet
    reaped is missed for its last stretch."""
    children: dict[int, list[int]] = {}
    times: dict[int, tuple[float, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        child = int(entry)
        children.setdefault(int(fields[1]), []).append(child)
        times[child] = (
            (int(fields[11]) + int(fields[13])) / TICKS,
            (int(fields[12]) + int(fields[14])) / TICKS,
        )
    user = system = 0.0
    todo = [pid]
    while todo:
        current = todo.pop()
        u, s = times.get(current, (0.0, 0.0))
        user, system = user + u, system + s
        todo.extend(children.get(current, ()))
    return user, system


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid``."""
    user, system = cpu_times(pid)
    return user + system


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def status_kib(pid: int, key: str) -> int:
    """A ``Vm*`` line of /proc/<pid>/status, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


@dataclass
class ServerProc:
    """``vigil serve`` or the baseline, on 127.0.0.1."""

    kind: str  # "vigil" | "baseline"
    data_dir: Path
    durability: str = "normal"
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    spawned_at: float = 0.0
    operator_token: str = ""
    src: Path | None = None  # another checkout's server/ to run instead of this one
    loop: str = "auto"  # the event loop (vigil.event_loop.LOOPS); both servers alike
    extra_args: list[str] = field(default_factory=list)  # more `vigil serve` options (bench.cluster)

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def command(self) -> list[str]:
        if self.kind == "baseline":
            return [
                sys.executable,
                *["-m", "bench.baseline_server", "--port", str(self.port), "--event-loop", self.loop],
            ]
        profile = os.environ.get("BENCH_PROFILE")  # a file: run Vigil under cProfile
        return [
            sys.executable,
            *(["-m", "cProfile", "-o", profile] if profile else []),
            "-m",
            "vigil.cli",
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--port",
            str(self.port),
            "--durability",
            self.durability,
            "--no-demo",
            "--log-format",
            "json",
            # Left out for "auto", so that an A/B run (--vigil-src) can run
            # a version of Vigil from before the setting existed.
            *(["--event-loop", self.loop] if self.loop != "auto" else []),
            *self.extra_args,
        ]

    def start(self, timeout: float = 120.0) -> float:
        """Spawn and wait for the first healthy /healthz; returns seconds
        from spawn to that answer."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            # The generator sends far above a person's pace from each GM;
            # the per-connection rate limit is a knob, not a cost.
            "VIGIL_RATE_PER_S": "100000",
            "VIGIL_RATE_BURST": "100000",
            "PYTHONPATH": os.pathsep.join(
                [*([str(self.src)] if self.src else []), str(ROOT), os.environ.get("PYTHONPATH", "")]
            ),
        }
        log = open(self.data_dir / f"{self.kind}-{self.durability}.log", "ab")  # noqa: SIM115
        self.spawned_at = time.perf_counter()
        self.proc = subprocess.Popen(
            self.command(),
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
            cwd=ROOT,
        )
        log.close()
        elapsed = self._wait_healthy(timeout)
        if self.kind == "vigil":
            self._read_banner()
        return elapsed

    def _wait_healthy(self, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.port}/healthz"
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited early with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=1) as reply:
                    if reply.status == 200:
                        return time.perf_counter() - self.spawned_at
            except OSError:
                time.sleep(0.005)
        raise RuntimeError(f"{self.kind} did not become healthy in {timeout}s")

    def _read_banner(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for _ in range(50):
            line = self.proc.stdout.readline().decode()
            if line.startswith("Operator token: "):
                self.operator_token = line.split(": ", 1)[1].strip()
            if not line or line.startswith("More tokens:"):
                break

    def health(self) -> dict[str, object]:
        import json

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as reply:
            data: dict[str, object] = json.loads(reply.read())
            return data

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None
