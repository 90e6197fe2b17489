"""Awkward data: strange column names, infinities, wide tables, time zones, partitionings, and the
caller's DataFrame left exactly as it was."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from pathlib import Path
from typing import Any

import great_expectations as gx
import pyarrow as pa
import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, RuleResult, run_contract
from dqx_gx.cli import main
from tests.conftest import EXAMPLES
from tests.documents import one_table
from tests.expectations.test_orders_contract import NOW, SCHEMA, good_rows, set_column
from tests.reference import Failed, dqx_metric


def by_name(results: tuple[RuleResult, ...]) -> dict[str, RuleResult]:
    return {r.rule.name: r for r in results}


def dqx(name: str, check: str, column: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": "custom",
        "engine": "dqx",
        "implementation": {"check": check, "column": column, **extra},
    }


NAMES = ["order id", "a.b", "we`ird", 'qu"ote', "it's", "naïve", "日本", "select", "from", "Group"]


def test_strange_column_names_are_checked_on_the_right_column(spark: SparkSession) -> None:
    properties = [
        {"name": n, "logicalType": "integer", "required": True, "quality": [dqx(f"max of {n}", "max", n)]}
        for n in NAMES
    ]
    contract = one_table(properties)
    rows = [tuple(i * 10 + k for k in range(len(NAMES))) for i in range(3)] + [tuple([None] * len(NAMES))]
    frame = spark.createDataFrame(rows, ", ".join(f"`{n.replace('`', '``')}` int" for n in NAMES))
    results = by_name(run_contract(contract, frame).rule_results)
    for k, name in enumerate(NAMES):
        assert results[f"max of {name}"].observed == 20 + k, name
        assert results[f"{name} has no nulls (required)"].observed == 1, name
        assert results[f"{name} has type integer"].assertion.status == "PASSED", name


def test_names_are_never_injected(spark: SparkSession) -> None:
    hostile = "x`) OR 1=1 --"
    contract = one_table([{"name": hostile, "quality": [dqx("hostile", "min", hostile)]}])
    results = by_name(run_contract(contract, spark.createDataFrame([(1,)], "x int")).rule_results)
    assert results["hostile"].assertion.status == "FAILED"
    assert results["hostile"].reason == f"column {hostile!r} is not in the batch (it has: 'x')"


def test_case_differences(spark: SparkSession) -> None:
    """Names resolve as Spark resolves them: ignoring case by default, so b/B is ambiguous (reported, not a crash)."""
    contract = one_table(
        [
            {"name": "OrderID", "quality": [dqx("orderid max", "max", "OrderID")]},
            {"name": "b", "quality": [dqx("b max", "max", "b")]},
        ]
    )
    frame = spark.createDataFrame([(1, 4, 5)], "orderid int, b int, B int")
    results = by_name(run_contract(contract, frame).rule_results)
    assert results["orderid max"].observed == 1.0  # the one column equal ignoring case
    assert results["b max"].reason == (
        "column 'b' is ambiguous: Spark matches names ignoring case and the batch has b, B "
        "(set spark.sql.caseSensitive=true to tell them apart)"
    )
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        sensitive = by_name(run_contract(contract, frame).rule_results)
    finally:
        spark.conf.set("spark.sql.caseSensitive", "false")
    assert sensitive["b max"].observed == 4.0
    assert sensitive["orderid max"].reason == "column 'OrderID' is not in the batch (it has: 'orderid', 'b', 'B')"


@pytest.mark.parametrize(
    ("values", "check"),
    [
        ([1.0, float("inf"), None], "max"),
        ([1.0, float("inf"), None], "min"),
        ([1.0, float("inf"), None], "mean"),
        ([float("-inf"), 2.0], "min"),
        ([float("-inf"), float("inf")], "mean"),
        ([float("-inf"), float("inf")], "sum"),
    ],
)
def test_infinities_match_dqx(spark: SparkSession, values: list[float | None], check: str) -> None:
    contract = one_table([{"name": "x", "quality": [dqx("stat", check, "x")]}])
    result = by_name(run_contract(contract, spark.createDataFrame([(v,) for v in values], "x double")).rule_results)[
        "stat"
    ]
    metric = {"max": "maximum", "min": "minimum", "mean": "average", "sum": "sum"}[check]
    expected = dqx_metric(pa.table({"x": pa.array(values, pa.float64())}), lambda mp: getattr(mp, metric)("x"))
    if isinstance(expected, Failed) or not math.isfinite(expected):
        assert result.assertion.status == "FAILED", (values, check, expected)
        assert result.reason
    else:
        assert result.observed == expected


@pytest.mark.slow  # a 500-column batch
def test_five_hundred_columns(spark: SparkSession) -> None:
    width = 500
    contract = one_table([{"name": f"c{i}", "logicalType": "integer", "required": True} for i in range(width)])
    rows = [tuple(range(width)), tuple(None if i % 100 == 7 else i for i in range(width))]
    frame = spark.createDataFrame(rows, ", ".join(f"c{i} bigint" for i in range(width)))
    run = run_contract(contract, frame)
    assert len(run.results) == 2 * width
    failed = sorted(r.assertion for r in run.results if r.status == "FAILED")
    assert failed == sorted(f"c{i} has no nulls (required)" for i in range(7, width, 100))


@pytest.mark.parametrize("zone", ["America/New_York", "Europe/Berlin", "UTC"])
def test_freshness_across_daylight_saving_changes(spark: SparkSession, zone: str) -> None:
    """Instants, and wall-clock timestamps read as UTC, give the same ages whatever the session time zone."""
    now = dt.datetime(2025, 3, 9, 12, 0, tzinfo=dt.UTC)  # New York springs forward at 07:00 UTC this day
    newest = dt.datetime(2025, 3, 9, 6, 30, tzinfo=dt.UTC)
    sla = [
        {"property": "latency", "value": 6, "unit": "h", "element": "t.ts"},
        {"property": "latency", "value": 5, "unit": "h", "element": "t.ntz"},
    ]
    contract = one_table([{"name": "ts"}, {"name": "ntz"}], slaProperties=sla)
    original = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        rows = [(newest, newest.replace(tzinfo=None)), (newest - dt.timedelta(hours=5), None)]
        frame = spark.createDataFrame(rows, "ts timestamp, ntz timestamp_ntz")
        results = run_contract(contract, frame, now=now).rule_results
    finally:
        spark.conf.set("spark.sql.session.timeZone", original)
    ages = [(r.rule.column, r.observed, r.assertion.status) for r in results if r.rule.name.startswith("SLA")]
    assert ages == [("ts", 5.5, "PASSED"), ("ntz", 5.5, "FAILED")]


@pytest.fixture(scope="module")
def partitioned_reference(spark: SparkSession, orders: Contract) -> tuple[DataFrame, dict[str, tuple[str, Any]]]:
    """Orders with three NULL amounts and a duplicate id, and the outcomes of one run on a single partition."""
    rows = [*set_column(2, None, 3)(good_rows()), [1, "shipped", 25.5, "dup", NOW.date()]]
    frame = spark.createDataFrame(rows, SCHEMA)
    return frame, _outcomes(run_contract(orders, frame.repartition(1), now=NOW))


@pytest.mark.parametrize("partitions", [1, 2, 8, 200])
def test_same_results_across_partitionings_and_runs(
    partitioned_reference: tuple[DataFrame, dict[str, tuple[str, Any]]], partitions: int, orders: Contract
) -> None:
    frame, reference = partitioned_reference
    again = _outcomes(run_contract(orders, frame.repartition(partitions), now=NOW))
    assert again.keys() == reference.keys()
    for name, (status, observed) in reference.items():
        other_status, other_observed = again[name]
        assert other_status == status, name
        if isinstance(observed, float):
            assert other_observed == pytest.approx(observed, rel=1e-12), name
        else:
            assert other_observed == observed, name


def _outcomes(run: Any) -> dict[str, tuple[str, Any]]:
    return {r.rule.name: (r.assertion.status, r.observed) for r in run.rule_results}


def test_the_callers_dataframe_is_left_as_it_was(spark: SparkSession, orders: Contract) -> None:
    rows = good_rows()
    frame: DataFrame = spark.createDataFrame(rows, SCHEMA)
    schema, plan, views = frame.schema, frame._jdf.queryExecution().logical().toString(), spark.catalog.listTables()
    run_contract(orders, frame, now=NOW, context=gx.get_context(mode="ephemeral"))
    assert not frame.is_cached
    assert frame.storageLevel.useMemory is False and frame.storageLevel.useDisk is False
    assert frame.schema == schema
    assert frame._jdf.queryExecution().logical().toString() == plan
    assert spark.catalog.listTables() == views
    assert sorted(map(tuple, frame.collect())) == sorted(map(tuple, rows))


def test_an_interrupted_write_leaves_no_half_written_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The third file write dies after its bytes are out but before they are in place: the project keeps
    only whole files, and no temporary file is left behind."""
    contract = str(EXAMPLES / "sla" / "hourly_events.dqx.yaml")
    assert main(["translate", contract, "--gx-dir", str(tmp_path)]) == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.json")}
    real_replace, calls = os.replace, []

    def dying_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", dying_replace)
    changed = str(EXAMPLES / "sla" / "hourly_events.odcs.yaml")
    with pytest.raises(SystemExit):
        main(["translate", contract, changed, "--gx-dir", str(tmp_path)])
    monkeypatch.undo()
    assert len(calls) == 2
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".dqx-gx-")]
    for path in tmp_path.rglob("*.json"):
        json.loads(path.read_text())  # every file is whole
    for path, content in before.items():
        assert path.read_bytes() == content
