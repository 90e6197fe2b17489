"""Completeness (docs/semantics.md, 'Completeness') on Spark through GX: partition starts as the engine-neutral rules compute them,
gaps per granularity and edge, and the missing partitions in the table, JSON and data docs.

Rule for ``timestamp_ntz``: its wall-clock value is read as UTC (docs/semantics.md, 'The reference: DQX itself'), whatever the session time
zone; a ``timestamp`` is an instant; a date is midnight UTC. The session runs in UTC (tests/conftest.py)
except where a test sets another zone and restores it.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, run_contract
from dqx_gx.report import to_json, to_table
from dqx_gx.rules.partitions import Granularity, period_start
from dqx_gx.rules.timestamps import epoch_micros
from dqx_gx.run import RuleResult
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.expressions import partition_start
from tests.conftest import shown
from tests.documents import native_document, one_table

UTC = dt.UTC

INSTANTS = [
    dt.datetime(1969, 12, 31, 23, 59, 59, 999999),  # before the epoch: floor, not truncation toward 0
    dt.datetime(1970, 1, 1),
    dt.datetime(2023, 2, 28, 23, 59),
    dt.datetime(2024, 2, 29, 12, 30),  # leap day
    dt.datetime(2024, 3, 1),
    dt.datetime(2025, 12, 31, 23, 59, 59, 999999),  # month and year end, ISO week 2026-W01
    dt.datetime(2026, 1, 4, 23, 0),  # Sunday
    dt.datetime(2026, 1, 5),  # Monday 00:00
    dt.datetime(2026, 3, 29, 2, 30),  # skipped by DST in Europe/Berlin
    dt.datetime(2026, 10, 25, 2, 30),  # repeated by DST in Europe/Berlin
    dt.datetime(2026, 1, 31, 18),
]


@contextmanager
def session_time_zone(spark: SparkSession, zone: str) -> Iterator[None]:
    before = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        yield
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/St_Johns"])
def test_partition_starts_are_utc_periods_whatever_the_session_zone(spark: SparkSession, zone: str) -> None:
    rows = [(i.date(), i.replace(tzinfo=UTC), i) for i in INSTANTS]
    with session_time_zone(spark, zone):
        df = spark.createDataFrame(rows, "d date, ts timestamp, ntz timestamp_ntz")
        columns = Columns.of(df)
        starts = [
            partition_start(S.named(name), columns.find(name), g.value).column().alias(f"{name}_{g.value}")  # type: ignore[arg-type]
            for name in ("d", "ts", "ntz")
            for g in Granularity
        ]
        found = [row.asDict() for row in df.select(*starts).collect()]
    for instant, got in zip(INSTANTS, found, strict=True):
        for g in Granularity:
            assert got[f"ts_{g.value}"] == epoch_micros(period_start(instant, g)), (instant, g)
            assert got[f"ntz_{g.value}"] == epoch_micros(period_start(instant, g)), (instant, g)
            midnight = dt.datetime.combine(instant.date(), dt.time())
            assert got[f"d_{g.value}"] == epoch_micros(period_start(midnight, g)), (instant, g)


def check(name: str, column: str, granularity: str, **fields: Any) -> dict[str, Any]:
    return {"type": "completeness", "name": name, "partition_column": column, "granularity": granularity, **fields}


def gaps_contract(*checks: dict[str, Any]) -> Contract:
    columns: list[dict[str, Any]] = [
        {"name": "d", "type": "date", "description": "day"},
        {"name": "ts", "type": {"kind": "timestamp"}, "description": "instant"},
        {"name": "ntz", "type": {"kind": "timestamp"}, "description": "wall clock, UTC"},
        {"name": "s", "type": "string", "description": "not a time"},
    ]
    return Contract.from_yaml(native_document(columns, checks=list(checks)))


NOW = dt.datetime(2024, 3, 2, 10, 30, tzinfo=UTC)
"""Daily, 7 days back: 24 Feb 10:30 → 25 Feb … 1 Mar expected (29 Feb, a leap day, among them)."""


def frame(spark: SparkSession, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, "d date, ts timestamp, ntz timestamp_ntz, s string")


def by_name(run: Any) -> dict[str, Any]:
    return {r.rule.name: r for r in run.rule_results}


def missing(result: RuleResult) -> tuple[str | None, ...]:
    """The missing partitions the result names (its ``missing partitions`` detail, one column)."""
    detail = shown(result, "missing partitions")
    assert detail is not None and detail.columns == ("partition",)
    return tuple(partition for (partition,) in detail.rows)


def test_gaps_per_granularity_and_edge(spark: SparkSession) -> None:
    day = dt.date
    rows: list[tuple[Any, ...]] = [
        # dates: 25, 26, 28 Feb and 1 Mar present; 27 and 29 Feb missing; 24 Feb (before the window) ignored
        *[(day(2024, 2, d), None, None, "x") for d in (24, 25, 26, 28)],
        (day(2024, 3, 1), None, None, "x"),
        (None, None, None, "null partition values are ignored"),
        # instants: hourly over the last day, 10:00 on 1 Mar and 02:00–03:00 on 2 Mar missing
        *[(None, dt.datetime(2024, 3, 1, h, 59, tzinfo=UTC), None, "x") for h in range(11, 24)],
        *[(None, dt.datetime(2024, 3, 2, h, 5, tzinfo=UTC), None, "x") for h in (0, 1, 4, 5, 6, 7, 8, 9)],
        # wall-clock times: ISO weeks starting Mondays 5, 12, 19 Feb expected; 12 Feb missing
        (None, None, dt.datetime(2024, 2, 5), "x"),  # Monday 00:00 opens its week
        (None, None, dt.datetime(2024, 2, 25, 23, 59), "x"),  # Sunday closes the week of 19 Feb
        (None, None, dt.datetime(2024, 2, 12, 0, 0) - dt.timedelta(microseconds=1), "x"),  # still week of 5 Feb
    ]
    contract = gaps_contract(
        check("daily", "d", "daily", lookback_days=7),
        check("daily trailing", "d", "daily", lookback_days=7, allow_future_gaps=False),
        check("daily tolerant", "d", "daily", lookback_days=7, max_gap_count=1),
        check("hourly", "ts", "hourly", lookback_days=1),
        check("weekly", "ntz", "weekly", lookback_days=28),
        check("monthly", "d", "monthly", lookback_days=90),
        check("not a time", "s", "daily"),
    )
    results = by_name(run_contract(contract, frame(spark, rows), now=NOW))

    daily = results["daily"]
    assert (daily.assertion.status, daily.observed) == ("FAILED", 2)
    assert missing(daily) == ("2024-02-27", "2024-02-29")
    assert daily.assertion.expression == "missing_partitions(d, daily, 7d) ≤ 0"
    assert daily.assertion.severity == "P1" and daily.assertion.metric.unwrap() == 2.0
    # 1 Mar is the latest present day, so nothing is trailing; allow_future_gaps changes nothing here
    assert results["daily trailing"].observed == 2
    assert (results["daily tolerant"].assertion.status, results["daily tolerant"].observed) == ("FAILED", 2)

    hourly = results["hourly"]  # 1 Mar 11:00 … 2 Mar 09:00 expected (now − 1 day = 1 Mar 10:30)
    assert missing(hourly) == ("2024-03-02T02:00Z", "2024-03-02T03:00Z")
    weekly = results["weekly"]  # 3 Feb 10:30 → weeks of 5, 12, 19 Feb; 26 Feb is not complete
    assert (weekly.observed, missing(weekly)) == (1, ("2024-02-12",))
    monthly = results["monthly"]  # 3 Dec → Jan, Feb expected; only Feb present: January counts
    assert (monthly.observed, missing(monthly)) == (1, ("2024-01-01",))
    assert results["not a time"].reason == "completeness needs a date or timestamp column; 's' is string"


def test_future_gaps_both_ways_and_max_gap_count(spark: SparkSession) -> None:
    rows = [(dt.date(2024, 2, d), None, None, "x") for d in (25, 27)]  # 26 Feb a gap; 28 Feb – 1 Mar trailing
    contract = gaps_contract(
        check("allowed", "d", "daily", lookback_days=7),
        check("counted", "d", "daily", lookback_days=7, allow_future_gaps=False),
        check("tolerated", "d", "daily", lookback_days=7, allow_future_gaps=False, max_gap_count=4),
        check("one too many", "d", "daily", lookback_days=7, allow_future_gaps=False, max_gap_count=3),
    )
    results = by_name(run_contract(contract, frame(spark, rows), now=NOW))
    assert (results["allowed"].observed, missing(results["allowed"])) == (1, ("2024-02-26",))
    assert missing(results["counted"]) == ("2024-02-26", "2024-02-28", "2024-02-29", "2024-03-01")
    assert results["counted"].assertion.expression == "missing_partitions(d, daily, 7d, trailing gaps count) ≤ 0"
    assert results["tolerated"].assertion.status == "PASSED"
    assert results["one too many"].assertion.status == "FAILED"


def test_an_empty_batch_misses_every_expected_partition(spark: SparkSession) -> None:
    contract = gaps_contract(check("daily", "d", "daily"), check("hourly", "ts", "hourly", lookback_days=2))
    run = run_contract(contract, frame(spark, []), now=NOW)
    daily, hourly = by_name(run)["daily"], by_name(run)["hourly"]
    assert daily.observed == 29 and len(missing(daily)) == 10  # 2 Feb … 1 Mar, the first 10 named
    assert missing(daily)[0] == "2024-02-02" and missing(daily)[-1] == "2024-02-11"
    assert hourly.observed == 47  # 29 Feb 11:00 … 2 Mar 09:00
    assert "↳ missing partitions (first 10 of 29): 2024-02-02, 2024-02-03," in to_table(run)


def test_a_partition_exactly_at_now_minus_lookback_and_the_period_holding_now(spark: SparkSession) -> None:
    now = dt.datetime(2024, 3, 2, tzinfo=UTC)  # midnight: 24 Feb = now − 7 days is expected, 2 Mar is not
    rows = [(dt.date(2024, 2, d), None, None, "x") for d in range(25, 30)] + [(dt.date(2024, 3, 2), None, None, "x")]
    results = by_name(
        run_contract(gaps_contract(check("daily", "d", "daily", lookback_days=7)), frame(spark, rows), now=now)
    )
    # 24 Feb (the boundary) and 1 Mar are missing; 1 Mar counts because 2 Mar (holding now) has rows
    assert missing(results["daily"]) == ("2024-02-24", "2024-03-01")


def test_timestamp_ntz_is_read_as_utc_under_another_session_zone(spark: SparkSession) -> None:
    rows = [(None, None, dt.datetime(2024, 3, 1, 0, 30), "x")]  # read in Berlin it would be 29 Feb 23:30 UTC
    contract = gaps_contract(check("ntz", "ntz", "daily", lookback_days=3, allow_future_gaps=False))
    with session_time_zone(spark, "Europe/Berlin"):
        results = by_name(run_contract(contract, frame(spark, rows), now=NOW))
    assert missing(results["ntz"]) == ("2024-02-29",)  # 29 Feb, 1 Mar expected; 1 Mar present


def test_odcs_rule_json_and_data_docs_name_the_missing_partitions(spark: SparkSession, tmp_path: Path) -> None:
    contract = one_table(
        [
            {
                "name": "order_date",
                "logicalType": "date",
                "quality": [
                    {
                        "name": "no gaps",
                        "type": "custom",
                        "engine": "dqx",
                        "implementation": {"check": "completeness", "granularity": "daily", "lookback_days": 7},
                    }
                ],
            }
        ]
    )
    rows = [(dt.date(2024, 2, d),) for d in (25, 26, 28, 29)] + [(dt.date(2024, 3, 1),)]
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    run = run_contract(
        contract, spark.createDataFrame(rows, "order_date date"), now=NOW, context=context, data_docs=True
    )
    (result,) = [r for r in json.loads(to_json(run))["results"] if r["assertion"] == "no gaps"]
    assert result["details"] == [
        {
            "title": "missing partitions",
            "columns": ["partition"],
            "rows": [["2024-02-27"]],
            "total": 1,
            "one_line": True,
        }
    ]
    assert result["metric"] == {"value": 1.0}
    assert result["expression"] == "missing_partitions(order_date, daily, 7d) ≤ 0"
    site = tmp_path / "gx" / "uncommitted" / "data_docs" / "local_site"
    (page,) = list((site / "validations").rglob("*.html"))
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page.read_text())))
    assert "missing_partitions(order_date, daily, 7d) ≤ 0 ( P1 )" in text
    assert "Missing partitions partition 2024-02-27" in text  # the detail's title, its column, its row


def test_missing_periods_of_a_sensitive_column_are_never_shown(spark: SparkSession) -> None:
    rule = {
        "name": "no gaps",
        "type": "custom",
        "engine": "dqx",
        "implementation": {"check": "completeness", "granularity": "daily", "lookback_days": 7},
    }
    contract = one_table(
        [{"name": "order_date", "logicalType": "date", "classification": "restricted", "quality": [rule]}]
    )
    rows = [(dt.date(2024, 2, d),) for d in (25, 26, 28, 29)] + [(dt.date(2024, 3, 1),)]
    run = run_contract(contract, spark.createDataFrame(rows, "order_date date"), now=NOW)
    result = by_name(run)["no gaps"]
    assert result.assertion.status == "FAILED"  # judged on the real count: 27 Feb is missing
    stored = [r.to_json_dict() for r in run.checkpoint_result.run_results.values()]
    reports = to_json(run) + to_table(run) + json.dumps(stored, default=str)
    assert "2024-02" not in reports
