"""The reference side of the differential tests: the numbers of docs/semantics.md, 'The reference: DQX itself', computed by DQX itself.

dqlib (DQX) computes metrics with SQL on DuckDB; where it has no implementation
(percentile, average length, pattern matching, freshness, logicalTypeOptions
violations), the DuckDB SQL of docs/semantics.md, 'The reference: DQX itself' is the reference. A metric DQX cannot
compute (NULL, NaN, ±inf) is returned as a :class:`Failed` with DQX's reason.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
from dqx.api import VerificationSuite, check
from dqx.common import DQXError, ResultKey
from dqx.datasource import DuckRelationDataSource
from dqx.orm.repositories import InMemoryMetricDB
from returns.result import Success


@dataclass(frozen=True)
class Failed:
    """DQX could not compute the metric (the assertion would be FAILED)."""

    reason: str


Reference = float | Failed


def dqx_metric(table: pa.Table, metric: Callable[[Any], Any]) -> Reference:
    """Run one noop assertion on ``metric(mp)`` through a real DQX VerificationSuite on DuckDB."""

    @check(name="reference", datasets=["batch"])
    def reference(mp: Any, ctx: Any) -> None:
        ctx.assert_that(metric(mp)).config(name="value").noop()

    suite = VerificationSuite(checks=[reference], db=InMemoryMetricDB(), name="reference", log_level=logging.ERROR)
    source = DuckRelationDataSource(duckdb.from_arrow(table), "batch")
    try:
        suite.run([source], ResultKey(dt.date(2026, 1, 1), {}), enable_plugins=False)
    except DQXError as exc:  # DQX aborts on NULL and NaN metric values
        return Failed(str(exc))
    (result,) = suite.collect_results()
    if isinstance(result.metric, Success):
        return float(result.metric.unwrap())
    return Failed(result.metric.failure()[0].error_message)


def duckdb_value(table: pa.Table, expression: str) -> Reference:
    """``SELECT expression FROM batch`` in DuckDB (double precision); NULL/NaN/inf are failures."""
    connection = duckdb.connect()
    connection.register("batch", table)
    (value,) = connection.execute(f"SELECT CAST(({expression}) AS DOUBLE) FROM batch").fetchone()  # type: ignore[misc]
    connection.close()
    if value is None:
        return Failed("NULL value")
    if math.isnan(value) or math.isinf(value):
        return Failed(f"{value} value")
    return float(value)


def epoch_hours_before(now: dt.datetime, table: pa.Table, column: str, *, temporal: str) -> Reference:
    """Freshness per docs/semantics.md, 'The reference: DQX itself': hours between ``now`` and MAX(c); dates are midnight UTC, naive timestamps UTC."""
    cast = "CAST(MAX({c}) AS TIMESTAMP)" if temporal in ("date", "ntz") else "MAX({c})"
    newest = duckdb_value(table, f"epoch_us({cast.format(c=column)})")
    if isinstance(newest, Failed):
        return newest
    now_us = (now - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1)
    return (now_us - newest) / 3_600_000_000
