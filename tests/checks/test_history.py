"""Metrics of earlier days (lag, day over day, week over week, stddev): dqx-gx reads them from the metric
database its earlier runs stored them in, and equals dqlib running over a source that holds every day; without
them the assertion is SKIPPED, naming the metric and the day (docs/semantics.md, 'Hand-written DQX checks')."""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from dqx.api import check
from dqx.common import Parameters, ResultKey
from dqx.datasource import DuckRelationDataSource
from dqx.orm.repositories import InMemoryMetricDB
from pyspark.sql import SparkSession
from returns.result import Success

from dqx_gx import run_checks
from tests.checks.reference import Batch, Column, assert_same, dqlib_results, reason

DAY = dt.date(2026, 11, 28)
COLUMNS = (Column("amount", "double", pa.float64()), Column("qty", "bigint", pa.int64()))
DAYS = {  # the days dqlib reads for the checks below: today, 1, 2 and 7 days before
    DAY - dt.timedelta(days=7): ((1.0, 3), (2.0, 4)),
    DAY - dt.timedelta(days=2): ((4.0, 1), (None, 2), (5.0, 3)),
    DAY - dt.timedelta(days=1): ((2.5, 0), (3.5, 0)),
    DAY: ((3.0, 5), (9.0, None), (6.0, 1), (0.5, 2)),
}


@check(name="Over days", datasets=["orders"])
def over_days(mp: Any, ctx: Any) -> None:
    a = ctx.assert_that
    a(mp.ext.day_over_day(mp.average("amount"))).config(name="mean amount day over day").is_lt(0.5)
    a(mp.ext.week_over_week(mp.num_rows())).config(name="rows week over week", severity="P0").is_leq(1)
    a(mp.ext.stddev(mp.sum("qty"), offset=0, n=3)).config(name="qty total's deviation").is_leq(3)
    a(mp.average("amount") - mp.average("amount", lag=1)).config(name="mean amount up").is_positive()
    a(mp.ext.day_over_day(mp.sum("qty"))).config(name="qty day over day").noop()


class DailySource(DuckRelationDataSource):
    """A dqlib data source holding every day, each day's rows found by its ``day`` column."""

    def cte(self, nominal_date: dt.date, parameters: Parameters | None = None) -> str:
        return f"SELECT * EXCLUDE (day) FROM {self._table_name} WHERE day = DATE '{nominal_date.isoformat()}'"


def every_day() -> DailySource:
    rows = [(day, *row) for day, day_rows in DAYS.items() for row in day_rows]
    table = pa.table(
        {
            "day": pa.array([r[0] for r in rows], pa.date32()),
            **{c.name: pa.array([r[i + 1] for r in rows], type=c.arrow) for i, c in enumerate(COLUMNS)},
        }
    )
    return DailySource(duckdb.from_arrow(table), "orders")


def test_earlier_days_from_the_metric_database_equal_dqlib_over_every_day(spark: SparkSession) -> None:
    db = InMemoryMetricDB()
    for day, rows in DAYS.items():  # each day's batch run on its day, storing its metrics
        results = run_checks([over_days], Batch(COLUMNS, rows).frame(spark), key=ResultKey(day, {}), db=db).results
    theirs = dqlib_results([over_days], every_day(), "orders", key=ResultKey(DAY, {}))
    assert_same(results, theirs)
    statuses = {r.assertion: r.status for r in results}
    assert statuses["qty day over day"] == "FAILED"  # yesterday's sum is 0: dqlib's own refusal
    assert (
        reason(results[-1])
        == f"Cannot calculate day over day: previous day value ({DAY - dt.timedelta(days=1)}) is zero."
    )
    assert {"PASSED", "FAILED"} <= set(statuses.values())


def test_without_the_earlier_days_the_assertions_are_skipped(spark: SparkSession) -> None:
    today = Batch(COLUMNS, DAYS[DAY]).frame(spark)
    without_db = run_checks([over_days], today, key=ResultKey(DAY, {})).results
    assert [r.status for r in without_db] == ["SKIPPED"] * 5
    assert reason(without_db[0]) == (
        "average(amount) of 1 day before the run is a metric of an earlier day: dqx-gx reads those from a metric "
        "database, and this run has none (give db= to run_checks or run_contract)"
    )
    db = InMemoryMetricDB()
    run_checks(
        [over_days],
        Batch(COLUMNS, DAYS[DAY - dt.timedelta(days=1)]).frame(spark),
        key=ResultKey(DAY - dt.timedelta(days=1), {}),
        db=db,
    )
    found = {r.assertion: r for r in run_checks([over_days], today, key=ResultKey(DAY, {}), db=db).results}
    assert found["mean amount day over day"].metric == Success(0.5416666269302368)  # |4.625 - 3| / 3, to 6 digits
    assert found["mean amount up"].metric == Success(1.625)  # (3 + 9 + 6 + 0.5) / 4 - (2.5 + 3.5) / 2
    assert found["rows week over week"].status == "SKIPPED"  # a P0 assertion skipped does not reject
    assert reason(found["rows week over week"]) == (
        f"num_rows() of {DAY - dt.timedelta(days=7)} is not in the metric database (db): run these checks on that "
        "day's batch with the same db first, which stores its metrics"
    )
    other_tags = run_checks([over_days], today, key=ResultKey(DAY, {"env": "prod"}), db=db).results
    assert other_tags[0].status == "SKIPPED"  # metrics are of a day and its tags, as dqlib stores them


def test_the_stored_metrics_are_dqlibs_own(spark: SparkSession) -> None:
    """What a run stores is what dqlib's analyzer would have stored: dqlib reads it back as its own Metric."""
    db = InMemoryMetricDB()
    run_checks([over_days], Batch(COLUMNS, DAYS[DAY]).frame(spark), key=ResultKey(DAY, {}), db=db)
    (stored,) = [m for m in db.get_by_execution_id(_only_execution(db)) if m.spec.name == "average(amount)"]
    assert stored.value == pytest.approx(4.625) and stored.state.n == 4.0 and stored.key == ResultKey(DAY, {})


def _only_execution(db: InMemoryMetricDB) -> str:
    from dqx.orm.repositories import Metric  # noqa: PLC0415
    from sqlalchemy import select  # noqa: PLC0415

    ids = {m.meta.execution_id for m in db.new_session().scalars(select(Metric))}
    (execution,) = ids
    assert execution is not None
    return execution
