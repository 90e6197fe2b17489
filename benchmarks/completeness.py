"""Benchmark: completeness (docs/semantics.md, 'Completeness') against the hand-written query a data engineer
would write.

On the same parquet data (one row per ~0.5 s over 40 days, so 5,000,000 rows span ~960 hours):

  A  dqx_gx.run_contract with one completeness check (GX checkpoint, the kind's own distinct query)
  Q  that query alone, as the metric provider runs it (the Spark part of A)
  B  SELECT DISTINCT date_trunc(<unit>, <column>) … WHERE <column> >= <window start>, collected

alternated A Q B A Q B … for an hourly check on a timestamp and a daily check on a date. Prints
medians, A/B (target ≤ 1.3), Q/B and the Spark jobs each launched. Run through ``bench.py --only
completeness``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import dqx_gx
from dqx_gx import Contract
from dqx_gx.kinds import Metric, MetricKind
from dqx_gx.rules.partitions import Granularity, window
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.kinds import On, spark_of

DATA = Path(__file__).resolve().parent / "data"
NOW = dt.datetime(2026, 11, 22, 12, tzinfo=dt.UTC)
SPAN_SECONDS = 40 * 86_400
LOOKBACK_DAYS = 30


def dataset(spark: SparkSession, rows: int) -> DataFrame:
    """Deterministic rows spread evenly over the 40 days before NOW, with a few hours left empty."""
    path = DATA / f"completeness-{rows}.parquet"
    if not path.exists():
        start = int(NOW.timestamp()) - SPAN_SECONDS
        ts = F.timestamp_seconds(F.lit(start) + (F.col("id") * SPAN_SECONDS / rows).cast("long"))
        frame = spark.range(rows).select(F.col("id"), ts.alias("ts"), F.to_date(ts).alias("day"))
        frame.where(F.hour("ts") != 3).write.mode("overwrite").parquet(str(path))  # gaps: every 03:00 hour
    return spark.read.parquet(str(path))


def contract(column: str, granularity: str) -> Contract:
    return Contract.from_yaml(
        {
            "name": "bench",
            "version": "1",
            "owner": "o",
            "description": "completeness benchmark",
            "dataset": "t",
            "columns": [
                {"name": "id", "type": "int", "description": "id"},
                {"name": column, "type": "date" if column == "day" else {"kind": "timestamp"}, "description": "t"},
            ],
            "checks": [
                {
                    "type": "completeness",
                    "name": "gaps",
                    "partition_column": column,
                    "granularity": granularity,
                    "lookback_days": LOOKBACK_DAYS,
                    "max_gap_count": 10_000,
                }
            ],
        }
    )


def own_query(frame: DataFrame, column: str, granularity: str) -> list[Any]:
    """The kind's query exactly as ``DistinctValues`` runs it."""
    metric = Metric(MetricKind.MISSING_PARTITIONS, (column,), granularity=granularity, lookback_days=LOOKBACK_DAYS)
    field = Columns.of(frame).find(column)
    assert field is not None
    value = spark_of(metric.kind).aggregate(On(metric, (field,), (S.col(field),), now=NOW)).column().alias("value")
    return frame.select(value).where(F.col("value").isNotNull()).distinct().collect()


def hand_written(spark: SparkSession, frame: DataFrame, column: str, granularity: str) -> list[Any]:
    start = window(NOW, Granularity(granularity), LOOKBACK_DAYS).start
    unit = {"hourly": "HOUR", "daily": "DAY"}[granularity]
    frame.createOrReplaceTempView("completeness_bench")
    literal = f"DATE'{start:%Y-%m-%d}'" if column == "day" else f"TIMESTAMP'{start:%Y-%m-%d %H:%M:%S}'"
    query = f"SELECT DISTINCT date_trunc('{unit}', {column}) AS p FROM completeness_bench WHERE {column} >= {literal}"
    return spark.sql(query).collect()


def _methods(spark: SparkSession, frame: DataFrame, column: str, granularity: str) -> dict[str, Callable[[], Any]]:
    rules = contract(column, granularity)
    return {
        "A": lambda: dqx_gx.run_contract(rules, frame, now=NOW),
        "Q": lambda: own_query(frame, column, granularity),
        "B": lambda: hand_written(spark, frame, column, granularity),
    }


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    from bench import alternate  # noqa: PLC0415 - here: bench.py runs as __main__ and imports this module

    frame = dataset(spark, args.rows)
    zone = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spark.conf.set("spark.sql.session.timeZone", "UTC")  # so B's date_trunc means UTC periods too
    try:
        for column, granularity in (("ts", "hourly"), ("day", "daily")):
            methods = _methods(spark, frame, column, granularity)
            found = {len(own_query(frame, column, granularity)), len(hand_written(spark, frame, column, granularity))}
            results = alternate(spark, frame, methods, args.rounds)
            median = {name: statistics.median(m.seconds) for name, m in results.items()}
            print(
                f"\ncompleteness, {args.rows:,} rows, {granularity} on {column}, {LOOKBACK_DAYS}-day window "
                f"({sorted(found)} distinct starts), {args.rounds} rounds, medians:"
            )
            for name, label in (
                ("A", "run_contract"),
                ("Q", "the kind's own query"),
                ("B", "SELECT DISTINCT date_trunc"),
            ):
                jobs = statistics.median(results[name].jobs)
                print(f"  {name} {label:<28} {median[name]:8.3f} s   jobs {jobs:4.0f}")
            print(f"  A/B = {median['A'] / median['B']:.2f} (target ≤ 1.3)   Q/B = {median['Q'] / median['B']:.2f}")
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
