"""A real PostgreSQL 15 cluster for the tests, from the machine's binaries, as the ``postgres`` user (PostgreSQL
refuses root): a temporary folder, a free loopback port, stopped by its process id, also when a test fails."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.spark_servers import LOOPBACK, free_port

BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres() -> list[str]:
    """Run a command as ``postgres`` when this process is root (CI is); as ourselves otherwise."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """A new cluster; yields its SQLAlchemy URL."""
    if not (BIN / "initdb").exists():
        message = f"PostgreSQL 15's binaries are not at {BIN} (Debian's postgresql-15)"
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the PostgreSQL tests: {message}")
        pytest.skip(message)
    folder = Path(tempfile.mkdtemp(prefix="dqx-gx-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
    data, port = folder / "data", free_port()
    pid = None
    try:
        subprocess.run(
            [*_as_postgres(), str(BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [
                *_as_postgres(),
                str(BIN / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-o",
                f"-p {port} -h {LOOPBACK} -k {folder} -c fsync=off",
                "-w",
                "start",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        pid = int((data / "postmaster.pid").read_text().splitlines()[0])
        yield f"postgresql://postgres@{LOOPBACK}:{port}/postgres"
    finally:
        if pid is not None:
            _stop(pid)
        shutil.rmtree(folder, ignore_errors=True)


def _stop(pid: int) -> None:
    """A fast shutdown (SIGINT), then SIGKILL if the postmaster has not gone in 30 seconds."""
    os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
