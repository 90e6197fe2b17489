"""Freshness on ``timestamp_ntz`` around a DST change: wall-clock values are read as UTC (docs/semantics.md, 'The reference: DQX itself'),
never through the session time zone (``timestamp_diff`` used to cast them into it first)."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, run_contract
from tests.documents import native_document
from tests.expectations.test_completeness import session_time_zone


@pytest.mark.parametrize(
    ("newest", "now", "hours"),
    [
        (dt.datetime(2026, 3, 29, 2, 30), "2026-03-29T04:30:00Z", 2.0),  # skipped in Berlin (spring forward)
        (dt.datetime(2026, 10, 25, 2, 30), "2026-10-25T03:30:00Z", 1.0),  # repeated in Berlin (fall back)
    ],
)
def test_freshness_of_wall_clock_times_ignores_the_session_zone(
    spark: SparkSession, newest: dt.datetime, now: str, hours: float
) -> None:
    columns = [{"name": "ntz", "type": {"kind": "timestamp"}, "description": "wall clock, UTC"}]
    checks = [{"type": "freshness", "name": "fresh", "max_age_hours": 24, "timestamp_column": "ntz"}]
    contract = Contract.from_yaml(native_document(columns, checks=checks))
    with session_time_zone(spark, "Europe/Berlin"):
        df = spark.createDataFrame([(newest,), (newest - dt.timedelta(days=1),)], "ntz timestamp_ntz")
        run = run_contract(contract, df, now=now)
    (fresh,) = [r for r in run.rule_results if r.rule.name == "fresh"]
    assert fresh.observed == pytest.approx(hours, abs=1e-9)
