"""One Spark Connect server and one standalone cluster for the whole test session, started together."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from tests.spark_servers import SparkProcess, start_connect_server, start_standalone_cluster


@dataclass(frozen=True)
class SparkServers:
    connect_url: str  # sc://127.0.0.1:PORT
    master_url: str  # spark://127.0.0.1:PORT


@pytest.fixture(scope="session")
def spark_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkServers]:
    """Started once, in parallel (each start is mostly a JVM waiting on itself); stopped by process group."""
    workdir = tmp_path_factory.mktemp("spark-servers")
    with ThreadPoolExecutor(max_workers=2) as pool:  # leaving the block waits for both
        connect = pool.submit(start_connect_server, workdir)
        cluster = pool.submit(start_standalone_cluster, workdir)
    started: list[SparkProcess] = []
    if connect.exception() is None:
        started.append(connect.result())
    if cluster.exception() is None:
        started.extend(cluster.result())
    try:
        yield SparkServers(connect_url=connect.result().url, master_url=cluster.result()[0].url)
    finally:
        for process in reversed(started):
            process.stop()
