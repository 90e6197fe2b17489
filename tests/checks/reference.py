"""The two sides of the hand-written checks' differential tests: dqlib's VerificationSuite on DuckDB, and
dqx-gx's run_checks on Spark, over the same rows (docs/semantics.md, 'Hand-written DQX checks')."""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
from dqx.api import VerificationSuite
from dqx.common import AssertionResult, DQXError, ResultKey, SqlDataSource
from dqx.datasource import DuckRelationDataSource
from dqx.orm.repositories import InMemoryMetricDB, MetricDB
from pyspark.sql import DataFrame, SparkSession
from returns.result import Failure, Success

DAY = dt.date(2026, 11, 28)
KEY = ResultKey(DAY, {"env": "test"})


@dataclass(frozen=True)
class Column:
    name: str
    spark: str
    arrow: pa.DataType


@dataclass(frozen=True)
class Batch:
    """Rows with their columns, as a Spark DataFrame and as an Arrow table."""

    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]

    def frame(self, spark: SparkSession) -> DataFrame:
        return spark.createDataFrame(list(self.rows), ", ".join(f"`{c.name}` {c.spark}" for c in self.columns))

    def table(self) -> pa.Table:
        return pa.table({c.name: pa.array([r[i] for r in self.rows], type=c.arrow) for i, c in enumerate(self.columns)})


def dqlib_results(
    checks: Sequence[Any],
    source: pa.Table | SqlDataSource,
    dataset: str,
    *,
    key: ResultKey = KEY,
    db: MetricDB | None = None,
) -> list[AssertionResult]:
    """dqlib's collect_results() for the checks on the rows (DQXError when dqlib stops the run)."""
    suite = VerificationSuite(checks, db or InMemoryMetricDB(), "reference", log_level=logging.ERROR)
    data = source if not isinstance(source, pa.Table) else DuckRelationDataSource(duckdb.from_arrow(source), dataset)
    suite.run([data], key, enable_plugins=False)
    return suite.collect_results()


def dqlib_refuses(checks: Sequence[Any], table: pa.Table, dataset: str) -> str | None:
    """dqlib's reason for stopping the whole run (a NULL or NaN metric), or None when it runs."""
    try:
        dqlib_results(checks, table, dataset)
    except DQXError as exc:
        return str(exc)
    return None


def assert_same(ours: Sequence[AssertionResult], theirs: Sequence[AssertionResult]) -> None:
    """The same assertions in the same order, with dqlib's check, severity, status, expression, tags and flags,
    and values equal within 1e-6 relative (dqlib's are 32-bit floats)."""
    assert [(r.check, r.assertion) for r in ours] == [(r.check, r.assertion) for r in theirs]
    for mine, reference in zip(ours, theirs, strict=True):
        where = f"{reference.check} / {reference.assertion}"
        fields = (
            "severity",
            "status",
            "expression",
            "assertion_tags",
            "experimental",
            "required",
            "cost_fp",
            "cost_fn",
        )
        assert {f: getattr(mine, f) for f in fields} == {f: getattr(reference, f) for f in fields}, where
        assert mine.tags == reference.tags and mine.yyyy_mm_dd == reference.yyyy_mm_dd, where
        assert type(mine.metric) is type(reference.metric), (where, mine.metric, reference.metric)
        if isinstance(reference.metric, Success):
            assert close(mine.metric.unwrap(), reference.metric.unwrap()), (where, mine.metric, reference.metric)
        else:  # dqlib's words where the formula fails; where a metric has no value, dqx-gx names it and why
            assert isinstance(mine.metric, Failure)
            theirs = reference.metric.failure()[0].error_message
            if not theirs.startswith("Failed to evaluate symbol(s)"):
                assert mine.metric.failure()[0].error_message == theirs, where


def close(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def reason(result: AssertionResult) -> str:
    assert isinstance(result.metric, Failure), result
    message: str = result.metric.failure()[0].error_message
    return message
