"""Nothing of a hand-written check goes unsaid: what cannot run is SKIPPED or FAILED with the reason, the other
assertions unaffected; what dqlib itself refuses is refused (docs/semantics.md, 'Hand-written DQX checks')."""

from __future__ import annotations

from typing import Any

import pytest
from dqx.api import check
from pyspark.sql import SparkSession
from returns.result import Success

from dqx_gx import ChecksError, ContractWarning, run_checks
from dqx_gx.checks.reading import read_checks
from tests.checks.reference import KEY, assert_same, dqlib_results, reason
from tests.checks.test_differential import MIXED


@check(name="SQL", datasets=["orders"])
def with_sql(mp: Any, ctx: Any) -> None:
    ctx.assert_that(mp.custom_sql("SUM(CASE WHEN qty > 0 THEN qty ELSE 0 END)")).config(name="positive qty").is_gt(0)
    ctx.assert_that(mp.num_rows()).config(name="rows").is_geq(1)


def test_custom_sql_runs_only_when_allowed_and_then_equals_dqlib(spark: SparkSession) -> None:
    frame = MIXED.frame(spark)
    with pytest.warns(ContractWarning, match="its custom_sql metric runs only when SQL is allowed"):
        skipped, rows = run_checks([with_sql], frame, key=KEY).results
    assert (skipped.status, rows.status) == ("SKIPPED", "PASSED")
    assert reason(skipped).startswith("its custom_sql metric runs only when SQL is allowed (allow_sql=True")
    allowed = run_checks([with_sql], frame, key=KEY, allow_sql=True).results
    assert_same(allowed, dqlib_results([with_sql], MIXED.table(), "orders"))
    assert allowed[0].metric == Success(21.0)


def test_custom_sql_goes_through_the_sql_door(spark: SparkSession) -> None:
    @check(name="Doors", datasets=["orders"])
    def doors(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.custom_sql("(SELECT COUNT(*) FROM secrets)")).config(name="other table").noop()
        ctx.assert_that(mp.custom_sql("reflect('java.lang.System', 'exit', 0)")).config(name="java").noop()
        ctx.assert_that(mp.custom_sql("COUNT(*) FILTER (WHERE qty > 0)")).config(name="filtered").is_eq(4)
        ctx.assert_that(mp.custom_sql("list_sum([1, 2])")).config(name="duckdb only").noop()
        ctx.assert_that(mp.custom_sql("qty * 2")).config(name="no aggregate").noop()

    spark.range(3).createOrReplaceTempView("secrets")
    other, java, own, duckdb_only, per_row = run_checks([doors], MIXED.frame(spark), key=KEY, allow_sql=True).results
    assert other.status == java.status == "FAILED"
    assert "secrets" in reason(other) and "only the batch" in reason(other)
    assert "reflect" in reason(java) and "which runs arbitrary JVM code" in reason(java)
    assert (own.status, own.metric) == ("PASSED", Success(4.0))
    assert reason(duckdb_only).startswith("custom_sql(") and "LIST_SUM" in reason(duckdb_only)
    assert reason(per_row).endswith("the query returned more than one row; it must return exactly one value")


def test_a_check_function_that_raises_is_one_failed_result(spark: SparkSession) -> None:
    @check(name="Careless", datasets=["orders"])
    def careless(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows", severity="P0").is_positive()
        raise KeyError("threshold")

    @check(name="Careful", datasets=["orders"])
    def careful(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows").is_eq(7)

    def plain(mp: Any, ctx: Any) -> None:  # no @check: dqlib refuses its assertions
        ctx.assert_that(mp.num_rows()).config(name="rows").is_eq(7)

    broken, fine, undecorated = run_checks([careless, careful, plain], MIXED.frame(spark), key=KEY).results
    assert (broken.check, broken.assertion, broken.severity, broken.status) == ("Careless", "careless", "P0", "FAILED")
    assert reason(broken) == "the check function careless raised KeyError: 'threshold'"
    assert_same([fine], dqlib_results([careful], MIXED.table(), "orders"))
    assert (undecorated.assertion, undecorated.severity, undecorated.status) == ("plain", "P1", "FAILED")
    assert reason(undecorated).startswith("the check function plain raised DQXError: Cannot create assertion outside")


def test_a_metric_spark_cannot_measure_fails_with_why(spark: SparkSession) -> None:
    @check(name="Columns", datasets=["orders"])
    def columns(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.average("colour")).config(name="no such column").is_positive()
        ctx.assert_that(mp.average("name")).config(name="mean of text").is_positive()
        ctx.assert_that(mp.first("tags")).config(name="first list").noop()
        ctx.assert_that(mp.first("name")).config(name="first text").noop()
        ctx.assert_that(mp.average("qty") > 1).config(name="a comparison").noop()
        ctx.assert_that(mp.num_rows()).config(name="rows").is_eq(7)

    missing, text, listed, word, comparison, rows = run_checks([columns], MIXED.frame(spark), key=KEY).results
    assert reason(missing).startswith("average(colour): ") and "colour" in reason(missing)
    assert reason(text) == "average(name): mean needs a numeric column; 'name' is string"
    assert reason(listed) == "first(tags) needs a numeric, boolean or text column; 'tags' is array<string>"
    assert reason(word) == "first(name): the first row's value is not a number"
    assert "StrictGreaterThan" in reason(comparison) and "cannot store or evaluate" in reason(comparison)
    assert (rows.status, rows.metric) == ("PASSED", Success(7.0))


def test_what_dqlib_refuses_is_refused() -> None:
    @check(name="Twice", datasets=["orders"])
    def first(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows").noop()

    @check(name="Twice", datasets=["orders"])
    def second(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows").noop()
        ctx.assert_that(mp.num_rows()).config(name="rows").noop()

    @check(name="Elsewhere", datasets=["customers"])
    def elsewhere(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows").noop()

    with pytest.raises(ChecksError, match="Duplicate check name: 'Twice'"):
        read_checks([first, second], dataset="orders")
    with pytest.raises(ChecksError, match="Assertion name 'rows' appears 2 times in check 'Twice'"):
        read_checks([second], dataset="orders")
    with pytest.raises(ChecksError, match="Check 'Elsewhere' specifies dataset 'customers'"):
        read_checks([elsewhere], dataset="orders")
    with pytest.raises(ChecksError, match="the checks name datasets 'customers', 'orders': say which"):
        run_checks([first, elsewhere], None)  # type: ignore[arg-type]  # refused before the batch is looked at
    with pytest.raises(ChecksError, match="no checks given"):
        run_checks([], None)  # type: ignore[arg-type]
