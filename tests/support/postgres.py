"""A real PostgreSQL for the tests: Debian's server binaries, a cluster made
with ``initdb`` in a temporary directory for the test session, on a free
port of the loopback interface, stopped and removed at the end.

Each test that asks for ``postgres_url`` gets a schema of its own (the
URL's ``search_path``), dropped afterwards: tests never see each other's
tables, and no database is created per test (that costs a checkpoint).

Without the server binaries the PostgreSQL tests are skipped with the reason
on a developer's machine, and fail under CI (``CI=true``): CI must never
pass by not running them. ``scripts/test.sh`` installs the package as root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote

import pytest
from tests.support import services
from tests.support.server import free_port

# Debian's packaging puts each major version's binaries here; 15 is
# bookworm's, and any later one works the same.
BINARIES = "/usr/lib/postgresql/*/bin"
USER = "vigil"
DATABASE = "vigil_test"
# Seconds for initdb, a start and a stop: bounded, so that a broken server
# fails the session instead of hanging it.
TIMEOUT = 60


@dataclass(frozen=True)
class Cluster:
    directory: Path
    port: int
    run_as: list[str]
    pg_ctl: str
    options: str = ""

    @property
    def url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{DATABASE}"

    def start(self) -> None:
        """Start again after :meth:`stop` (an outage's end), on the same port."""
        data, log = self.directory / "data", self.directory / "server.log"
        subprocess.run(
            [*self.run_as, self.pg_ctl, "-D", str(data), "-l", str(log), "-o", self.options, "-w", "start"],
            capture_output=True,
            timeout=TIMEOUT,
            check=True,
        )

    def stop(self) -> None:
        subprocess.run(
            [*self.run_as, self.pg_ctl, "-D", str(self.directory / "data"), "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )


def binaries() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory, if any."""
    found = sorted(glob.glob(BINARIES), key=lambda p: int(Path(p).parent.name))
    return Path(found[-1]) if found else None


def missing(reason: str) -> NoReturn:
    """Fail under CI, skip elsewhere (see the module's docstring)."""
    services.missing(reason, "the PostgreSQL store tests")


def start_cluster() -> Cluster:
    """initdb and start a throwaway cluster. PostgreSQL refuses to run as
    root: as root the directory belongs to the ``postgres`` user and the
    binaries run as it (``runuser``)."""
    bin_dir = binaries()
    if bin_dir is None:
        missing("PostgreSQL is not installed (apt-get install postgresql)")
    run_as: list[str] = []
    directory = Path(tempfile.mkdtemp(prefix="vigil-pg-"))
    if os.geteuid() == 0:
        run_as = ["runuser", "-u", "postgres", "--"]
        shutil.chown(directory, "postgres", "postgres")
    data = directory / "data"
    port = free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*run_as, *args], capture_output=True, text=True, timeout=TIMEOUT, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    # --no-sync: initdb's own fsyncs are of a cluster thrown away at the end;
    # the server itself keeps fsync on, as a real one does.
    run(str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync")
    options = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c shared_buffers=32MB"
    log = directory / "server.log"
    pg_ctl = str(bin_dir / "pg_ctl")
    run(pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", str(TIMEOUT), "start")
    cluster = Cluster(directory=directory, port=port, run_as=run_as, pg_ctl=pg_ctl, options=options)
    try:
        import psycopg

        with psycopg.connect(
            f"postgresql://{USER}@127.0.0.1:{port}/postgres", autocommit=True, connect_timeout=TIMEOUT
        ) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def schema_url(base: str, schema: str) -> str:
    """``base`` with every table made and read in ``schema``."""
    return f"{base}?options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    yield from services.for_the_session(start_cluster)


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """A URL of the session's cluster whose tables live in a new schema."""
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(postgres_cluster.url, schema)
    finally:
        with (
            contextlib.suppress(Exception),
            psycopg.connect(postgres_cluster.url, autocommit=True, connect_timeout=TIMEOUT) as conn,
        ):
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
