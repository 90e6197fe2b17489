"""Real Spark servers for the tests, started from pip's pyspark (its scripts and jars), loopback only.

A Spark Connect server (``SparkConnectServer`` from the spark-connect jar pyspark ships) and a
standalone cluster (a master and one worker). Each is a process group of its own, found ready by
its port answering and its log saying so, and stopped by that group's id.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).resolve().parent
LOOPBACK = "127.0.0.1"
READY_TIMEOUT = 300.0  # seconds; the test machine is shared and a JVM start can take minutes there


@dataclass
class SparkProcess:
    """One Spark server process (its group), its log and the URL clients use."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    url: str

    def wait_ready(self, port: int, log_line: str) -> None:
        """Wait until ``port`` accepts connections and the log holds ``log_line``; fail with the log's tail."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self._tail()}")
            if _answers(port) and log_line in self.log.read_text(errors="replace"):
                return
            time.sleep(0.5)
        raise RuntimeError(f"{self.name} not ready after {READY_TIMEOUT:.0f} s:\n{self._tail()}")

    def stop(self) -> None:
        """Stop the process group: TERM, then KILL if it has not gone in 20 seconds."""
        if self.process.poll() is not None:
            return
        group = os.getpgid(self.process.pid)
        os.killpg(group, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            self.process.wait(timeout=20)

    def _tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def start_connect_server(workdir: Path) -> SparkProcess:
    """``spark-submit --class ...SparkConnectServer`` on a free loopback port, local[2] inside."""
    (jar,) = (SPARK_HOME / "jars").glob("spark-connect_*.jar")
    port = free_port()
    server = _launch(
        "spark-connect",
        [
            str(SPARK_HOME / "bin" / "spark-submit"),
            "--class",
            "org.apache.spark.sql.connect.service.SparkConnectServer",
            "--master",
            "local[2]",
            "--driver-memory",
            "1g",
            "--conf",
            f"spark.connect.grpc.binding.address={LOOPBACK}",
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.sql.shuffle.partitions=2",
            str(jar),
        ],
        workdir,
        url=f"sc://{LOOPBACK}:{port}",
    )
    server.wait_ready(port, "Spark Connect server started")
    return server


def start_standalone_cluster(workdir: Path) -> tuple[SparkProcess, SparkProcess]:
    """A standalone master and one worker (1 core, 1 GiB) registered with it, on loopback ports."""
    port, webui = free_port(), free_port()
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    url = f"spark://{LOOPBACK}:{port}"
    master = _launch(
        "spark-master",
        [
            spark_class,
            "org.apache.spark.deploy.master.Master",
            "--host",
            LOOPBACK,
            "--port",
            str(port),
            "--webui-port",
            str(webui),
        ],
        workdir,
        url=url,
    )
    try:
        master.wait_ready(port, "I have been elected leader")
        worker_port, worker_webui = free_port(), free_port()
        worker = _launch(
            "spark-worker",
            [
                spark_class,
                "org.apache.spark.deploy.worker.Worker",
                url,
                "--host",
                LOOPBACK,
                "--port",
                str(worker_port),
                "--webui-port",
                str(worker_webui),
                "--cores",
                "1",
                "--memory",
                "1g",
                "--work-dir",
                str(workdir / "worker"),
            ],
            workdir,
            url=url,
        )
        worker.wait_ready(worker_port, "Successfully registered with master")
    except BaseException:
        master.stop()
        raise
    return master, worker


def _launch(name: str, command: list[str], workdir: Path, *, url: str) -> SparkProcess:
    log = workdir / f"{name}.log"
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": LOOPBACK,
        "PYSPARK_PYTHON": sys.executable,  # executors of the cluster run this interpreter
        "SPARK_LOG_DIR": str(workdir),
    }
    env.pop("SPARK_REMOTE", None)
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return SparkProcess(name, process, log, url)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False
