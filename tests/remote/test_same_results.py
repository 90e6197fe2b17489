"""The same contract gives the same results locally, over Spark Connect and on a standalone cluster.

The local side runs in this process on the tests' local[2] session; the remote sides run as their
own processes (``dqx-gx`` with ``--remote``/``--master``, the Python API over Connect), against the
servers of ``tests/remote/conftest.py``. Each side runs the contract once, with every output on:
the JSON report, the GX project with data docs, and the row-level split.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from tests.conftest import EXAMPLES, ROOT
from tests.remote import api_run
from tests.remote.conftest import SparkServers

pytestmark = pytest.mark.slow

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")  # absolute: a Connect server reads paths as its own
NOW = "2026-11-22T12:00:00Z"
_RUN_TIME = re.compile(r"\d{8}T\d{6}\.\d+Z")  # GX's run time in docs page paths: the clock's, not --now


@dataclass(frozen=True)
class Outcome:
    """What one ``dqx-gx validate`` left behind."""

    code: int
    report: dict[str, Any]
    docs: list[tuple[str, ...]]
    valid: list[str]
    quarantine: list[str]


def _arguments(out: Path) -> list[str]:
    return [
        "validate",
        ORDERS,
        "--data",
        BAD,
        "--now",
        NOW,
        "--output",
        "json",
        "--output-file",
        str(out / "report.json"),
        "--gx-dir",
        str(out / "project"),
        "--data-docs",
        "--allow-sql",  # the SQL rule runs too: spark.sql(query, batch=df) over Connect
        "--valid",
        str(out / "valid"),
        "--quarantine",
        str(out / "quarantine"),
    ]


def _outcome(spark: SparkSession, code: int, out: Path) -> Outcome:
    def rows(path: Path) -> list[str]:
        return api_run._rows(spark.read.parquet(str(path)))

    return Outcome(
        code,
        json.loads((out / "report.json").read_text()),
        _docs(out / "project"),
        rows(out / "valid"),
        rows(out / "quarantine"),
    )


def _docs(project: Path) -> list[tuple[str, ...]]:
    """Every stored validation result (expectation, rule, success, observed value) and every docs page."""
    gx = project / "gx"
    found: list[tuple[str, ...]] = []
    for stored in sorted((gx / "uncommitted" / "validations").rglob("*.json")):
        for result in json.loads(stored.read_text())["results"]:
            config = result["expectation_config"]
            found.append(
                (
                    config["type"],
                    json.dumps(config["kwargs"].get("rule") or config.get("description"), default=str),
                    str(result["success"]),
                    json.dumps(result["result"].get("observed_value"), default=str),
                )
            )
    site = gx / "uncommitted" / "data_docs" / "local_site"
    found.extend(("page", _RUN_TIME.sub("RUN-TIME", str(page.relative_to(site)))) for page in site.rglob("*.html"))
    return sorted(found)


def _subprocess(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    environment.pop("SPARK_REMOTE", None)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture(scope="module")
def local(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    out = tmp_path_factory.mktemp("local")
    try:
        code = main(_arguments(out))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return _outcome(spark, code, out)


def _remote_outcome(spark: SparkSession, out: Path, *where: str, env: dict[str, str] | None = None) -> Outcome:
    done = _subprocess("-m", "dqx_gx.cli", *_arguments(out), *where, env=env)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    return _outcome(spark, done.returncode, out)


def test_validate_data_docs_and_split_over_spark_connect_match_local(
    spark: SparkSession, spark_servers: SparkServers, local: Outcome, tmp_path: Path
) -> None:
    remote = _remote_outcome(spark, tmp_path, "--remote", spark_servers.connect_url)
    assert local.code == remote.code == 1
    failed = {r["assertion"]: r["observed"] for r in local.report["results"] if r["status"] == "FAILED"}
    assert failed["SLA: Freshness check"] == 84.0  # the local side is a real run, not an empty one
    statuses = {r["assertion"]: r["status"] for r in local.report["results"]}
    assert statuses["fraud_sql_check"] in ("PASSED", "FAILED")
    assert remote.report == local.report
    assert remote.docs == local.docs
    assert any(entry[0] == "page" and entry[1].startswith("validations/") for entry in local.docs)
    assert (len(remote.valid), len(remote.quarantine)) == (len(local.valid), len(local.quarantine))
    assert remote.valid == local.valid
    assert remote.quarantine == local.quarantine
    assert local.quarantine and local.valid


def test_validate_and_split_on_a_standalone_cluster_match_local(
    spark: SparkSession, spark_servers: SparkServers, local: Outcome, tmp_path: Path
) -> None:
    # Executors get no Python: anything dqx-gx ran as a Python UDF would fail the run.
    remote = _remote_outcome(
        spark,
        tmp_path,
        "--master",
        spark_servers.master_url,
        "--conf",
        "spark.executor.memory=512m",
        env={"PYSPARK_PYTHON": "/nonexistent/python"},
    )
    assert remote.code == local.code == 1
    assert remote.report == local.report
    assert remote.docs == local.docs
    assert remote.valid == local.valid
    assert remote.quarantine == local.quarantine


def test_the_python_api_over_spark_connect_matches_local(spark: SparkSession, spark_servers: SparkServers) -> None:
    here = api_run.answers(spark, ORDERS, BAD, NOW)
    done = _subprocess("-m", "tests.remote.api_run", spark_servers.connect_url, ORDERS, BAD, NOW)
    assert done.returncode == 0, done.stderr
    # Spark Connect has no status tracker: said, not an error
    assert done.stderr.count("rules, Spark jobs not counted (Spark Connect has no status tracker)") == 2
    there = json.loads(done.stdout.splitlines()[-1])
    assert there == here
    assert any('"_dqx_errors": [{' in line for line in here["marks"])
    assert here["report"]["outcome"] == "rejected"
    (keyed,) = [r for r in here["foreign_key"]["report"]["results"] if r["assertion"].startswith("foreign key")]
    assert (keyed["status"], keyed["observed"]) == ("FAILED", 74)  # statuses other than pending and shipped
    assert sum('"_dqx_warnings": [{' in line for line in here["foreign_key"]["marks"]) == 74


def test_translate_with_spark_remote_set_writes_what_it_writes_without(
    spark_servers: SparkServers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path / "plain")]) == 0
    monkeypatch.setenv("SPARK_REMOTE", spark_servers.connect_url)
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path / "connect")]) == 0
    plain, connect = tmp_path / "plain" / "gx", tmp_path / "connect" / "gx"
    suites = sorted(p.relative_to(plain) for p in (plain / "expectations").rglob("*.json"))
    assert suites
    assert suites == sorted(p.relative_to(connect) for p in (connect / "expectations").rglob("*.json"))
    for suite in suites:
        expected = _without_ids(json.loads((plain / suite).read_text()))
        assert len(expected["expectations"]) > 10
        assert _without_ids(json.loads((connect / suite).read_text())) == expected


def _without_ids(value: Any) -> Any:
    """GX gives every new suite and expectation a random id."""
    if isinstance(value, dict):
        return {key: _without_ids(item) for key, item in value.items() if key != "id"}
    if isinstance(value, list):
        return [_without_ids(item) for item in value]
    return value
