"""Workloads survive the server: a restarted server answers every earlier workload the same, and one that was
running when the server was killed (kill -9) is NOK with the reason; in SQLite and in a real PostgreSQL. A
database of another schema is refused at start with what to do."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dqx_gx.service.store import SCHEMA_VERSION, Store, StoreError
from tests.service.conftest import data_root
from tests.service.postgres import postgres_cluster
from tests.service.server import DQX_GX, Server, started
from tests.service.test_runs_api import NOW, ORDERS
from tests.service.test_validation_api import configuration


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'workloads.db'}"
        return
    with postgres_cluster() as url:
        yield url


@pytest.mark.slow
def test_a_restarted_server_answers_the_same_and_a_killed_run_is_nok(tmp_path: Path, database: str) -> None:
    root = data_root(tmp_path)
    server = started(tmp_path, "--data-root", str(root), "--db", database)
    try:
        thesis = configuration("weather-kept", "weather/corrected")
        assert server.post("/v1/validation/start", thesis).status == 200
        native = server.post("/v1/runs", {"contract": ORDERS, "data": "orders/bad.parquet", "now": NOW}).json()["id"]
        kept = {path: server.wait_done(path) for path in ("/v1/validation/weather-kept", f"/v1/runs/{native}")}
        listed = server.get("/v1/runs").json()
        killed = server.post("/v1/runs", {"contract": ORDERS, "data": "orders/good.parquet", "now": NOW}).json()["id"]
        assert server.get(f"/v1/runs/{killed}").json()["status"] == "Running"
    finally:
        server.kill9()
    again = started(tmp_path, "--data-root", str(root), "--db", database)
    try:
        assert {path: again.get(path).json() for path in kept} == kept
        interrupted = again.get(f"/v1/runs/{killed}").json()
        assert interrupted["status"] == "NOK"
        assert "interrupted" in interrupted["error"]
        assert interrupted["report"] is None
        assert again.get("/v1/runs").json()["runs"][1:] == listed["runs"]
        assert again.post("/v1/validation/start", thesis).status == 409
    finally:
        again.stop()


def test_a_database_of_another_schema_version_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as connection:
        connection.execute("create table dqx_gx_schema (version integer not null)")
        connection.execute("insert into dqx_gx_schema values (99)")
    with pytest.raises(StoreError, match=rf"its schema version is 99, this dqx-gx reads version {SCHEMA_VERSION}"):
        Store(f"sqlite:///{path}")


def test_a_database_of_something_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("create table dqx_gx_workloads (x integer)")
    with pytest.raises(StoreError, match="not a dqx-gx database"):
        Store(f"sqlite:///{path}")


def test_a_new_database_is_created_with_its_version_and_opened_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    store = Store(url)
    store.add("w1", "native", "c", {"contract": "x"})
    store.close()
    again = Store(url)
    assert again.get("w1") is not None
    assert again.interrupted() == 1
    found = again.get("w1")
    assert found is not None
    assert (found.status, found.error) == (
        "NOK",
        "interrupted: the server stopped while this workload ran; start it again under a new id",
    )


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--host", "0.0.0.0"], {}, "--host 0.0.0.0: listening beyond this machine needs a key: set DQX_GX_API_KEY"),
        (["--data-root", "/no/such/folder"], {}, "--data-root /no/such/folder: no such folder"),
        (["--db", "nonsense"], {}, "--db 'nonsense': not a database URL"),
        (["--workers", "0"], {}, "--workers 0: give a number of 1 or more"),
    ],
)
def test_serve_refuses_to_start_as_asked_in_one_line(
    tmp_path: Path, args: list[str], env: dict[str, str], said: str
) -> None:
    done = subprocess.run(
        [str(DQX_GX), "serve", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_a_key_is_asked_on_v1_only(served: Server) -> None:
    missing = served.get("/v1/runs", headers={"X-API-Key": ""})
    assert missing.status == 401
    assert "X-API-Key" in missing.json()["detail"]
    wrong = served.get("/v1/runs", headers={"X-API-Key": "not the key"})
    assert wrong.status == 403
    assert served.get("/v1/validation/any", headers={"X-API-Key": "not the key"}).status == 403
    assert served.get("/health", headers={"X-API-Key": ""}).status == 200
