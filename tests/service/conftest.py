"""One ``dqx-gx serve`` process (SQLite, a data root of the examples' data, an API key) shared by the service's
tests: starting its Spark session costs seconds."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.service.server import Server, started

WORKERS, QUEUE = 2, 6
KEY = "a key only the tests know"
"""The shared server's DQX_GX_API_KEY: every request of the tests sends it, unless one says otherwise."""


def data_root(folder: Path) -> Path:
    """The examples' data as a server reads it: weather/{raw,corrected}, orders/*.parquet, an empty CSV and\n    symbolic links out of the root."""
    root = folder / "root"
    shutil.copytree(EXAMPLES / "weather" / "data", root / "weather")
    shutil.copytree(EXAMPLES / "orders" / "data", root / "orders")
    outside = folder / "outside"
    outside.mkdir()
    shutil.copy(EXAMPLES / "orders" / "data" / "good.parquet", outside / "secret.parquet")
    (root / "escape").symlink_to(outside)
    (root / "orders" / "linked.parquet").symlink_to(outside / "secret.parquet")
    (root / "empty").mkdir()
    (root / "empty" / "readings.csv").write_text("")
    return root


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("serve")
    root = data_root(workdir)
    server = started(workdir, "--data-root", str(root), "--workers", str(WORKERS), "--queue", str(QUEUE), key=KEY)
    try:
        yield server
    finally:
        server.stop()
