"""The validator service (issue 46): a warm run through ``dqx-gx serve`` against the command's whole ``validate``,
and how many polls a second it answers while two validations run.

- **Warm run**: the README example (``examples/orders``, good.parquet) posted to ``POST /v1/runs`` and polled
  (every 20 ms) until its report is there, on a server whose Spark session and code are warm (two runs first),
  against ``dqx-gx validate`` of the same contract and data in a fresh process, the whole command, alternated
  round by round. Target: service ≤ 0.3 × validate.
- **Polls while two validations run**: two runs of the README contract over a 2,000,000-row copy of its data
  are posted (the server's two workers take both), then one client polls ``GET /v1/runs/{id}`` as fast as it
  is answered until both are done: polls per second, and the slowest poll.

The server is a real process on 127.0.0.1 (a free port), SQLite in a temporary folder, stopped by its pid.
Run: ``python benchmarks/bench.py --only service [--rounds N]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "orders" / "orders.odcs.yaml"
DATA = ROOT / "examples" / "orders" / "data" / "good.parquet"
NOW = "2026-11-22T12:00:00Z"
DQX_GX = str(Path(sys.executable).with_name("dqx-gx"))
LOOPBACK = "127.0.0.1"
BIG_ROWS = 2_000_000


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="dqx-gx-service-") as folder:
        here = Path(folder)
        root = here / "root"
        root.mkdir()
        shutil.copy(DATA, root / "good.parquet")
        big = spark.read.parquet(str(DATA)).crossJoin(spark.range(BIG_ROWS // 1000 + 1).select(F.col("id").alias("k")))
        big.drop("k").limit(BIG_ROWS).write.parquet(str(root / "big.parquet"))
        server, port = _serve(here, root)
        try:
            _warm_against_validate(here, port, args.rounds)
            _polls_while_two_run(port)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)


def _warm_against_validate(here: Path, port: int, rounds: int) -> None:
    body = {"contract": CONTRACT.read_text(), "data": "good.parquet", "now": NOW}
    for _ in range(2):  # warm: the session's first jobs, GX's first suite
        _through_service(port, body)
    service, command = [], []
    for _ in range(rounds):
        service.append(_through_service(port, body))
        start = time.perf_counter()
        subprocess.run(
            [DQX_GX, "validate", str(CONTRACT), "--data", str(DATA), "--now", NOW, "--output-file", str(here / "r")],
            check=False,
            capture_output=True,
        )
        command.append(time.perf_counter() - start)
    s, c = statistics.median(service), statistics.median(command)
    print(f"service: warm run of the README example, POST to final GET  {s:7.3f} s  (rounds {_shown(service)})")
    print(f"command: dqx-gx validate, the whole process              {c:7.3f} s  (rounds {_shown(command)})")
    print(f"  service / validate = {s / c:.3f} (target ≤ 0.3)   load average {os.getloadavg()[0]:.2f}")


def _polls_while_two_run(port: int) -> None:
    body = {"contract": CONTRACT.read_text(), "data": "big.parquet", "now": NOW}
    ids = [_request(port, "POST", "/v1/runs", body)[1]["id"] for _ in range(2)]
    polls, slowest, start = 0, 0.0, time.perf_counter()
    running = set(ids)
    while running:
        for run_id in list(running):
            asked = time.perf_counter()
            status, found = _request(port, "GET", f"/v1/runs/{run_id}")
            slowest = max(slowest, time.perf_counter() - asked)
            polls += 1
            if status != 200 or found["status"] != "Running":
                running.discard(run_id)
    took = time.perf_counter() - start
    print(
        f"polls while two validations of {BIG_ROWS:,} rows run: {polls / took:7.1f} per second "
        f"({polls} in {took:.2f} s; slowest {slowest * 1000:.1f} ms)   load average {os.getloadavg()[0]:.2f}"
    )


def _through_service(port: int, body: dict[str, Any]) -> float:
    start = time.perf_counter()
    status, started = _request(port, "POST", "/v1/runs", body)
    if status != 202:
        raise RuntimeError(f"POST /v1/runs: {status} {started}")
    while True:
        _, found = _request(port, "GET", f"/v1/runs/{started['id']}")
        if found["status"] != "Running":
            if found["status"] != "OK":
                raise RuntimeError(f"the run was {found['status']}: {found['error']}")
            return time.perf_counter() - start
        time.sleep(0.02)


def _request(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=300)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def _serve(here: Path, root: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port = probe.getsockname()[1]
    command = [DQX_GX, "serve", "--port", str(port), "--data-root", str(root), "--db", f"sqlite:///{here / 'b.db'}"]
    command += ["--gx-dir", str(here / "runs")]
    server = subprocess.Popen(
        command, cwd=here, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if _request(port, "GET", "/health")[0] == 200:
                return server, port
        except OSError:
            pass
        time.sleep(0.5)
    os.killpg(server.pid, signal.SIGKILL)
    raise RuntimeError("dqx-gx serve did not answer /health within 300 s")


def _shown(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)
