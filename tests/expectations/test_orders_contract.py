"""The complete contract of DQX ODCS spec §6.7 on data built to pass, and on data built to fail each rule."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, run_contract

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)
TODAY = NOW.date()
STATUSES = ["pending", "processing", "shipped", "delivered", "cancelled"]
SCHEMA = "order_id bigint, status string, total_amount double, product_name string, order_date date"
Row = list[Any]


def good_rows() -> list[Row]:
    return [[i, STATUSES[i % 5], 20.0 + i, f"product {i}", TODAY] for i in range(1, 121)]


def set_column(index: int, value: Any, rows: int | None = None) -> Callable[[list[Row]], list[Row]]:
    def mutate(data: list[Row]) -> list[Row]:
        for row in data[:rows]:
            row[index] = value
        return data

    return mutate


CASES: dict[str, tuple[Callable[[list[Row]], list[Row]], set[str]]] = {
    "too few rows": (lambda rows: rows[:99], {"daily_row_count", "volume_floor"}),
    "duplicate key": (lambda rows: [*rows, list(rows[0])], {"composite_key_unique"}),
    "null order id": (set_column(0, None, 1), {"order_id_no_nulls", "order_id has no nulls (required)"}),
    "order id zero": (set_column(0, 0, 1), {"order_id_positive"}),
    "unknown status": (set_column(1, "returned", 1), {"status_valid_values"}),
    "many statuses": (
        lambda rows: [[*r[:1], f"s{i % 11}", *r[2:]] for i, r in enumerate(rows)],
        {"status_valid_values", "status_low_cardinality"},
    ),
    "expensive orders": (set_column(2, 1000.0), {"average_order_value_reasonable"}),
    "missing amount": (set_column(2, None, 1), {"total_amount_complete", "total_amount has no nulls (required)"}),
    "short names": (set_column(3, "ab"), {"product_name_length_sanity"}),
    "stale data": (set_column(4, TODAY - dt.timedelta(days=3)), {"SLA: Freshness check"}),
}

SEVERITY = {
    "daily_row_count": "P1",
    "volume_floor": "P1",
    "composite_key_unique": "P0",
    "order_id_no_nulls": "P0",
    "order_id has no nulls (required)": "P0",
    "order_id_positive": "P0",
    "status_valid_values": "P0",
    "status_low_cardinality": "P1",
    "average_order_value_reasonable": "P1",
    "total_amount_complete": "P0",
    "total_amount has no nulls (required)": "P0",
    "product_name_length_sanity": "P1",
    "SLA: Freshness check": "P0",
}


def test_good_data_passes_every_rule(spark: SparkSession, orders: Contract) -> None:
    run = run_contract(orders, spark.createDataFrame(good_rows(), SCHEMA), now=NOW)
    statuses = {r.assertion.assertion: r.assertion.status for r in run.rule_results}
    assert statuses.pop("fraud_sql_check") == "SKIPPED"
    assert set(statuses.values()) == {"PASSED"}
    assert len(statuses) == 20
    assert run.outcome == "passed_with_warnings"  # the sql rule could not be checked
    assert not run.is_critical()
    observed = {r.rule.name: r.observed for r in run.rule_results}
    assert observed["daily_row_count"] == 120
    assert observed["average_order_value_reasonable"] == pytest.approx(80.5)
    assert observed["product_name_length_sanity"] == pytest.approx((9 * 9 + 90 * 10 + 21 * 11) / 120)
    assert observed["SLA: Freshness check"] == pytest.approx(12.0)


@pytest.mark.parametrize("case", list(CASES))
def test_bad_data_fails_exactly_its_rules(spark: SparkSession, orders: Contract, case: str) -> None:
    mutate, expected = CASES[case]
    run = run_contract(orders, spark.createDataFrame(mutate(good_rows()), SCHEMA), now=NOW)
    failed = {r.assertion.assertion: r for r in run.rule_results if r.assertion.status == "FAILED"}
    assert set(failed) == expected
    assert {name: r.assertion.severity for name, r in failed.items()} == {name: SEVERITY[name] for name in expected}
    assert run.is_critical() == any(SEVERITY[name] == "P0" for name in expected)
    assert run.outcome == ("rejected" if run.is_critical() else "passed_with_warnings")


def test_wrong_column_type_fails_the_type_rule_with_dqx_wording(spark: SparkSession, orders: Contract) -> None:
    rows = [[r[0], r[1], str(r[2]), r[3], r[4]] for r in good_rows()]
    frame = spark.createDataFrame(rows, SCHEMA.replace("total_amount double", "total_amount string"))
    run = run_contract(orders, frame, now=NOW)
    failed = {r.assertion.assertion: r for r in run.rule_results if r.assertion.status == "FAILED"}
    assert set(failed) == {"total_amount has type number", "average_order_value_reasonable"}
    assert failed["total_amount has type number"].reason == (
        "Property 'total_amount' type mismatch: expected logicalType 'number' (float, double, decimal), got string"
    )
    assert failed["average_order_value_reasonable"].reason == "mean needs a numeric column; 'total_amount' is string"


def test_missing_column_fails_its_rules_and_the_rest_run(spark: SparkSession, orders: Contract) -> None:
    frame = spark.createDataFrame(good_rows(), SCHEMA).drop("product_name")
    run = run_contract(orders, frame, now=NOW)
    failed = {r.assertion.assertion: r.reason for r in run.rule_results if r.assertion.status == "FAILED"}
    assert set(failed) == {"product_name has type string", "product_name_length_sanity"}
    assert all(reason and reason.startswith("column 'product_name' is not in the batch") for reason in failed.values())
    passed = [r for r in run.rule_results if r.assertion.status == "PASSED"]
    assert len(passed) == 18
