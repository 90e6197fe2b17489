"""A real ``dqx-gx serve`` process for the tests: loopback, a free port, stopped by its process id.

Requests go through ``http.client`` (real HTTP, no test client): each answer is its status, headers and body.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.spark_servers import LOOPBACK, free_port

DQX_GX = Path(sys.executable).with_name("dqx-gx")
READY_TIMEOUT = 300.0  # seconds: a JVM start on a loaded machine
SPARK = ("--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.driver.memory=1g")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Server:
    """One ``dqx-gx serve`` process and the log it writes."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    key: str | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        raw: bytes | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if self.key is not None:
            sent.setdefault("X-API-Key", self.key)
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=120)
        try:
            connection.request(method, path, body=data, headers=sent)
            answer = connection.getresponse()
            return Answer(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
        finally:
            connection.close()

    def get(self, path: str, **kwargs: Any) -> Answer:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Answer:
        return self.request("POST", path, body, **kwargs)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"dqx-gx serve exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if self.get("/health").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"dqx-gx serve not ready after {READY_TIMEOUT:.0f} s:\n{self.tail()}")

    def wait_done(self, path: str, timeout: float = 300.0) -> Any:
        """Poll ``path`` until its status is no longer Running; its last answer's JSON."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self.get(path)
            assert answer.status == 200, answer.body
            found = answer.json()
            if found["status"] != "Running":
                return found
            time.sleep(0.3)
        raise AssertionError(f"{path} still Running after {timeout:.0f} s:\n{self.tail()}")

    def stop(self) -> None:
        """TERM, then KILL if it has not gone in 30 seconds (its Spark JVM is its child: its group goes too)."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def kill9(self) -> None:
        """Kill the server and its JVM at once, as a crash would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])


def launch(workdir: Path, *args: str, key: str | None = None, env: dict[str, str] | None = None) -> Server:
    """``dqx-gx serve`` in ``workdir`` on a free loopback port, in a process group of its own (not yet ready)."""
    port = free_port()
    log = workdir / f"serve-{port}.log"
    environment = {**os.environ, "PYSPARK_PYTHON": sys.executable, "DQX_GX_CLASS_ARCHIVE": "off", **(env or {})}
    environment.pop("DQX_GX_API_KEY", None)
    if key is not None:
        environment["DQX_GX_API_KEY"] = key
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(DQX_GX), "serve", "--host", LOOPBACK, "--port", str(port), *SPARK, *args],
            cwd=workdir,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )
    return Server(process, port, log, key)


def started(workdir: Path, *args: str, key: str | None = None) -> Server:
    server = launch(workdir, *args, key=key)
    try:
        server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return server
