"""``dqx-gx validate`` reading where the data lives: servers, tables, globs, several contracts, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.conftest import EXAMPLES
from tests.run.test_cli import run

NOW = "2026-11-22T12:00:00Z"
ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
GOOD = str(EXAMPLES / "orders" / "data" / "good.parquet")


def contract(tmp_path: Path, name: str, servers: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"""apiVersion: v3.0.2
kind: DataContract
id: {name}
name: {name}
version: 1.0.0
status: active
{servers}
schema:
  - name: {name}
    properties:
      - name: id
        logicalType: integer
        required: true
      - name: day
        logicalType: date
"""
    )
    return str(path)


def csv(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def local(name: str, path: Path, fmt: str = "csv") -> str:
    return f"  - server: {name}\n    type: local\n    path: {path}\n    format: {fmt}\n"


def fails_with(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1, err
    return lines[0]


def test_the_only_server_is_used_without_data(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = csv(tmp_path, "a.csv", "id,day\n1,2026-11-22\n2,22/11/2026\n")
    path = contract(tmp_path, "a", "servers:\n" + local("landing", data))
    code, out, err = run(capsys, "validate", path, "--now", NOW, "--output", "json")
    assert code == 1, err  # the type rule (P0) counts the date that does not cast
    (day,) = [r for r in json.loads(out)["results"] if r["assertion"] == "day has type date"]
    assert (day["status"], day["rows_marked"]) == ("FAILED", 1)
    assert day["reason"] == "Property 'day': 1 value(s) read as text do not cast to date"


def test_several_servers_need_a_choice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = csv(tmp_path, "a.csv", "id,day\n1,2026-11-22\n")
    path = contract(tmp_path, "a", "servers:\n" + local("dev", data) + local("prod", data))
    assert fails_with(capsys, "validate", path) == (
        f"error: {path} has 2 servers (dev, prod): choose one with --server NAME, or give --data"
    )
    assert fails_with(capsys, "validate", path, "--server", "test") == (
        f"error: --server test: {path} has no such server (it has: dev, prod)"
    )


def test_an_unsupported_server_type_lists_the_supported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = contract(tmp_path, "a", "servers:\n  - server: kafka\n    type: kafka\n    host: h\n    format: json\n")
    assert fails_with(capsys, "validate", path) == (
        "error: server 'kafka' (servers[0], type kafka): dqx-gx cannot read this server type; it reads "
        "files: local, s3, gcs, azure, sftp, custom with path/location; tables: databricks, hive, glue, iceberg, custom"
    )


def test_a_table_and_a_glob(spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = contract(tmp_path, "a", "")
    spark.createDataFrame([(1, None)], "id long, day date").createOrReplaceTempView("cli_orders")
    code, out, err = run(capsys, "validate", path, "--table", "cli_orders", "--now", NOW)
    assert code == 0, err
    assert "3 passed, 0 failed, 0 skipped" in out
    for name in ("x1.csv", "x2.csv", "y.csv"):
        csv(tmp_path, name, "id,day\n1,2026-11-22\n" if name != "y.csv" else "id,day\n,2026-11-22\n")
    code, out, err = run(capsys, "validate", path, "--data", str(tmp_path / "x*.csv"), "--now", NOW)
    assert code == 0, err  # y.csv, with its NULL id, is not read


def test_a_missing_table_and_a_missing_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = contract(tmp_path, "a", "")
    assert fails_with(capsys, "validate", path, "--table", "nope") == (
        "error: --table nope: no such table or view in the session's catalog"
    )
    data = csv(tmp_path, "a.csv", "id,day\n1,2026-11-22\n")
    assert fails_with(capsys, "validate", path, "--data", str(data), "--format", "delta") == (
        f"error: --data {data}: this Spark has no 'delta' data source; add its connector to the session "
        "(e.g. --conf spark.jars.packages=...) or give another --format"
    )
    assert fails_with(capsys, "validate", path) == (
        f"error: {path} declares no servers: give --data PATH, --table NAME or --server NAME"
    )


_CORRUPT = "error: --data {bad}: cannot read it as parquet: corrupted file: the footer index is not within the file: "
"""Spark's reason for a file marked as parquet whose footer is not one (a file without the marks is refused before
Spark: tests/sources/test_input_errors.py)."""


def test_a_corrupt_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = csv(tmp_path, "bad.parquet", "PAR1 id,day\n1,2026-11-22\nthis is csv, not parquet PAR1")
    line = fails_with(capsys, "validate", contract(tmp_path, "a", ""), "--data", str(bad))
    assert re.fullmatch(f"{re.escape(_CORRUPT.format(bad=bad))}-?[0-9]+", line), line


@pytest.mark.slow
def test_the_command_prints_no_java_trace_for_a_corrupt_file(tmp_path: Path) -> None:
    """In a fresh process, as a user runs it: the executor's copy of the trace is not printed either."""
    bad = csv(tmp_path, "bad.parquet", "PAR1 id,day\n1,2026-11-22\nthis is csv, not parquet PAR1")
    result = subprocess.run(
        [sys.executable, "-m", "dqx_gx.cli", "validate", contract(tmp_path, "a", ""), "--data", str(bad)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 2
    ours = result.stderr.splitlines()  # no JVM banner either
    assert len(ours) == 1 and re.fullmatch(f"{re.escape(_CORRUPT.format(bad=bad))}-?[0-9]+", ours[0]), ours


def test_gx_dir_naming_a_file_and_an_output_file_without_its_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = contract(tmp_path, "a", "")
    a_file = csv(tmp_path, "project", "")
    assert fails_with(capsys, "validate", path, "--data", GOOD, "--gx-dir", str(a_file)) == (
        f"error: --gx-dir {a_file}: is a file; give a folder (it is created if needed)"
    )
    assert fails_with(capsys, "translate", ORDERS, "--gx-dir", str(a_file)) == (
        f"error: --gx-dir {a_file}: is a file; give a folder (it is created if needed)"
    )
    target = a_file / "out" / "results.json"  # a missing folder is created; a file in the way is refused
    # checked before anything is read: the missing data file is not what is reported
    assert fails_with(capsys, "validate", path, "--data", "missing.csv", "--output-file", str(target)) == (
        f"error: --output-file {target}: {a_file} is a file, not a folder"
    )


def test_several_contracts_one_report_and_the_worst_exit_code(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = contract(tmp_path, "good", "servers:\n" + local("s", csv(tmp_path, "g.csv", "id,day\n1,2026-11-22\n")))
    bad = contract(tmp_path, "bad", "servers:\n" + local("s", csv(tmp_path, "b.csv", "id,day\n,2026-11-22\n")))
    code, out, err = run(capsys, "validate", good, bad, "--now", NOW, "--output", "json")
    assert code == 1, err
    report = json.loads(out)
    assert report["critical"] is True
    assert [(r["contract"], r["outcome"]) for r in report["runs"]] == [("good", "passed"), ("bad", "rejected")]
    code, out, _ = run(capsys, "validate", good, good, "--now", NOW, "--output", "junit")
    assert code == 0
    assert [s.get("name") for s in ET.fromstring(out)] == ["Contract: good", "Contract: good"]
