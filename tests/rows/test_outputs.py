"""dqx-gx validate --valid/--quarantine: both outputs from one evaluation, written whole, never over an old one silently."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import pandas
import pytest
from pyarrow import orc, parquet
from pyspark.sql import DataFrameWriter, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, annotate_rows
from dqx_gx.cli import main
from dqx_gx.rows import ERRORS, WARNINGS
from dqx_gx.rows.choices import Output
from dqx_gx.rows.outputs import _rows_written, write_outputs, write_split
from tests.conftest import EXAMPLES

CONTRACT = str(EXAMPLES / "orders" / "orders.odcs.yaml")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")
NOW = "2026-11-22T12:00:00Z"


def validate(*extra: str) -> int:
    return main(["validate", CONTRACT, "--data", BAD, "--now", NOW, "--samples", "0", *extra])


def jobs_of(spark: SparkSession, group: str, contract: str, *extra: str) -> int:
    spark.sparkContext.setJobGroup(group, group)
    try:
        main(["validate", contract, "--data", BAD, "--now", NOW, "--samples", "0", *extra])
    finally:
        spark.sparkContext.setJobGroup("none", "none")
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


def test_both_outputs_hold_every_row_once(spark: SparkSession, tmp_path: Path) -> None:
    assert validate("--valid", str(tmp_path / "valid"), "--quarantine", str(tmp_path / "quarantine")) == 1
    valid = spark.read.parquet(str(tmp_path / "valid"))
    quarantine = spark.read.parquet(str(tmp_path / "quarantine"))
    source = spark.read.parquet(BAD)
    assert valid.count() + quarantine.count() == source.count() == 121
    assert WARNINGS in valid.columns and ERRORS not in valid.columns
    assert {ERRORS, WARNINGS} <= set(quarantine.columns)
    assert quarantine.filter(F.col(ERRORS).isNull()).count() == 0
    rules = {e["rule"] for row in quarantine.select(ERRORS).collect() for e in row[ERRORS]}
    assert rules == {
        "composite_key_unique",
        "status_valid_values",
        "total_amount has no nulls (required)",
        "total_amount_complete",
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quarantine", "valid"]  # no temporary siblings left


ROW_RULES_ONLY = """
apiVersion: v3.1.0
kind: DataContract
id: row-rules
name: row_rules
version: 1.0.0
status: active
schema:
  - name: orders_tbl
    properties:
      - {name: order_id, logicalType: integer, required: true}
      - name: status
        logicalType: string
        quality:
          - {name: status valid, metric: invalidValues, arguments: {validValues: [pending, shipped]}, mustBe: 0, severity: error}
      - {name: total_amount, logicalType: number, required: true}
"""


def test_each_output_costs_one_write_job_beside_the_verdict(spark: SparkSession, tmp_path: Path) -> None:
    contract = tmp_path / "rows.odcs.yaml"
    contract.write_text(ROW_RULES_ONLY)
    verdict_only = jobs_of(spark, "verdict-only", str(contract))
    with_outputs = jobs_of(
        spark, "with-outputs", str(contract), "--valid", str(tmp_path / "v"), "--quarantine", str(tmp_path / "q")
    )
    # no job caches the rows (each output reads the parquet input again: cheaper than a cache) and none
    # counts them (an observation of each write does)
    assert with_outputs == verdict_only + 2


def test_an_existing_output_is_refused_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spark: SparkSession
) -> None:
    (tmp_path / "valid").mkdir()
    (tmp_path / "valid" / "keep.txt").write_text("old")
    with pytest.raises(SystemExit) as exited:
        validate("--valid", str(tmp_path / "valid"))
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"error: --valid {tmp_path / 'valid'}: already exists; give --overwrite to replace it"
    )
    assert validate("--valid", str(tmp_path / "valid"), "--overwrite") == 1
    assert not (tmp_path / "valid" / "keep.txt").exists()
    assert spark.read.parquet(str(tmp_path / "valid")).count() == 117


def test_a_failed_write_leaves_no_output_and_keeps_the_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "quarantine").mkdir()
    (tmp_path / "quarantine" / "keep.txt").write_text("old")
    real_save = DataFrameWriter.save
    calls: list[str] = []

    def second_save_fails(self: DataFrameWriter, path: str | None = None, **kwargs: object) -> None:
        calls.append(str(path))
        if len(calls) == 2:
            raise OSError("disk full")
        real_save(self, path, **kwargs)

    with mock.patch.object(DataFrameWriter, "save", second_save_fails), pytest.raises(SystemExit):
        validate("--valid", str(tmp_path / "valid"), "--quarantine", str(tmp_path / "quarantine"), "--overwrite")
    assert "disk full" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quarantine"]
    assert [p.name for p in (tmp_path / "quarantine").iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("write_format", ["csv", "json", "orc"])
def test_other_formats_hold_the_annotation(spark: SparkSession, tmp_path: Path, write_format: str) -> None:
    assert validate("--quarantine", str(tmp_path / "q"), "--write-format", write_format) == 1
    reader = spark.read.option("header", "true") if write_format == "csv" else spark.read
    quarantine = reader.format(write_format).load(str(tmp_path / "q"))
    assert quarantine.count() == 4
    errors = quarantine.select(ERRORS).first()
    assert (errors is not None and "composite_key_unique" in str(errors[0])) or quarantine.filter(
        F.col(ERRORS).cast("string").contains("status_valid_values")
    ).count() == 1


def test_write_split_writes_both_outputs_of_an_annotated_frame(spark: SparkSession, tmp_path: Path) -> None:
    contract_file = tmp_path / "rows.odcs.yaml"
    contract_file.write_text(ROW_RULES_ONLY)
    (contract,) = Contract.from_odcs(contract_file)
    annotated = annotate_rows(contract, spark.read.parquet(BAD))
    write_split(annotated, Output(str(tmp_path / "v")), Output(str(tmp_path / "q")), "parquet", overwrite=False)
    valid, quarantine = spark.read.parquet(str(tmp_path / "v")), spark.read.parquet(str(tmp_path / "q"))
    assert valid.count() + quarantine.count() == 121
    assert ERRORS not in valid.columns and WARNINGS in valid.columns
    assert quarantine.count() > 0
    assert sorted(r.order_id for r in quarantine.select("order_id").collect()) == sorted(
        r.order_id for r in annotated.where(F.col(ERRORS).isNotNull()).select("order_id").collect()
    )
    write_split(annotated, None, Output(str(tmp_path / "q2")), "json", overwrite=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q", "q2", "rows.odcs.yaml", "v"]


SLA = EXAMPLES / "sla"


@pytest.mark.parametrize("contract", ["daily_orders.dqx.yaml", "daily_orders.odcs.yaml"])
def test_a_rule_without_an_operator_passes_and_quarantines_nothing(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str], contract: str
) -> None:
    """'Status is valid' (P0, no operator) marks 21 rows and passes: they are warnings, the batch is accepted."""
    data = str(tmp_path / "orders.parquet")
    good = spark.read.parquet(str(SLA / "data" / "daily_orders-good.parquet"))
    good.withColumn("status", F.when(F.col("order_id") % 10 == 0, "returned").otherwise(F.col("status"))).write.parquet(
        data
    )
    out = tmp_path / "missing" / "out"  # parents created
    arguments = ["validate", str(SLA / contract), "--data", data, "--now", NOW, "--output", "json"]
    code = main([*arguments, "--valid", str(out / "valid"), "--quarantine", str(out / "quarantine")])
    captured = capsys.readouterr()
    status = next(r for r in json.loads(captured.out)["results"] if r["assertion"] == "Status is valid")
    assert (code, status["status"], status["severity"], status["rows_marked"]) == (0, "PASSED", "P0", 21)
    assert [line for line in captured.err.splitlines() if " rows → " in line] == [
        f"valid: 210 rows → {out / 'valid'}",
        f"quarantine: 0 rows → {out / 'quarantine'}",
    ]
    valid = spark.read.parquet(str(out / "valid"))
    warned = valid.where(F.exists(WARNINGS, lambda w: w["rule"] == "Status is valid"))
    assert (valid.count(), warned.count(), spark.read.parquet(str(out / "quarantine")).count()) == (210, 21, 0)


def test_csv_output_reads_back_with_the_csv_module_and_pandas(spark: SparkSession, tmp_path: Path) -> None:
    data = str(SLA / "data" / "daily_orders-good.parquet")
    contract = str(SLA / "daily_orders.dqx.yaml")
    arguments = ["validate", contract, "--data", data, "--now", NOW, "--write-format", "csv"]
    assert main([*arguments, "--valid", str(tmp_path / "v")]) == 0
    (part,) = (tmp_path / "v").glob("part-*.csv")
    with part.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    source = {r["order_id"]: r for r in spark.read.parquet(data).collect()}
    assert len(rows) == len(source) == 210
    for row in rows:
        original = source[int(row["order_id"])]
        assert datetime.fromisoformat(row["created_at"]) == original["created_at"].astimezone(UTC)
        assert row["status"] == (original["status"] or "")
        assert json.loads(row["shipping_address"])["city"] == original["shipping_address"]["city"]
        warnings = json.loads(row[WARNINGS]) if row[WARNINGS] else []
        assert all({"rule", "columns", "severity", "message"} == set(w) for w in warnings)
    frame = pandas.read_csv(part)
    assert len(frame) == 210 and set(frame.columns) == set(rows[0])


@pytest.mark.slow  # a fresh interpreter under another TZ
def test_orc_written_in_another_time_zone_reads_back_as_the_same_instants(tmp_path: Path) -> None:
    """Spark's ORC writer stores instants as wall-clock times of the JVM's zone: the command's JVM runs in UTC."""
    data = str(SLA / "data" / "daily_orders-good.parquet")
    command = [
        sys.executable, "-m", "dqx_gx.cli", "validate", str(SLA / "daily_orders.dqx.yaml"), "--data", data,
        "--now", NOW, "--master", "local[1]", "--write-format", "orc", "--valid", str(tmp_path / "v"),
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "Asia/Kolkata"}, check=False
    )
    assert done.returncode == 0, done.stderr
    assert f"valid: 210 rows → {tmp_path / 'v'}" in done.stderr.splitlines()
    parts = sorted((tmp_path / "v").glob("part-*.orc"))
    written = {r["order_id"]: r["created_at"] for part in parts for r in orc.read_table(str(part)).to_pylist()}
    source = {r["order_id"]: r["created_at"] for r in parquet.read_table(data).to_pylist()}
    assert {k: v.replace(tzinfo=UTC) if v.tzinfo is None else v for k, v in written.items()} == source


@pytest.mark.parametrize("write_format", ["csv", "json", "parquet"])
def test_an_output_is_counted_by_reading_it_back_when_its_write_returned_no_count(
    spark: SparkSession, tmp_path: Path, write_format: str
) -> None:
    """A Spark Connect server can answer a write before its observed metrics are in (SPARK-54279, under load):
    the output written is counted instead, a CSV field with a line break and a quote still one row."""
    frame = spark.createDataFrame([(1, 'a "quoted"\nline'), (2, None), (3, "x")], "id int, note string")
    path = tmp_path / "out"
    (written,) = write_outputs([(frame, Output(str(path)))], write_format, overwrite=False)
    assert written.rows == 3  # from the write's own observation
    assert _rows_written({}, frame, write_format, str(path)) == 3
    assert _rows_written({"rows": 7}, frame, write_format, str(path)) == 7  # an observed count is taken as is
