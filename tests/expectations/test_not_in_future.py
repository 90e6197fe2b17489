"""``is_not_in_future`` (DQX's row check): the rows later than the run's moment plus an offset, counted by the
run and marked by the row gate from the same moment, whatever the session's time zone (docs/semantics.md)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, ContractValidationError, annotate_rows, expectation_suite, run_contract, split_rows
from dqx_gx.rules.timestamps import epoch_micros
from dqx_gx.run import ContractRun
from tests.documents import native_document, one_table
from tests.expectations.test_completeness import session_time_zone
from tests.rows.test_gate import marked_counts

UTC = dt.UTC
NOW = dt.datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
HOUR = dt.timedelta(hours=1)
MICRO = dt.timedelta(microseconds=1)

INSTANTS = [NOW - dt.timedelta(days=400), NOW - HOUR, NOW, NOW + MICRO, NOW + HOUR, NOW + 2 * HOUR, None]
"""Around the moment: the moment itself is not in the future, a microsecond after it is."""
DAYS = [dt.date(2026, 11, 21), dt.date(2026, 11, 22), dt.date(2026, 11, 23), dt.date(2026, 11, 24), None, None, None]
"""A date is its midnight UTC: the moment's own day is past, the next day is in the future."""
OFFSETS = [0, 3600, -86400, 86400]

COLUMNS = [
    {"name": "ts", "type": {"kind": "timestamp", "tz": "UTC"}, "description": "an instant"},
    {"name": "ntz", "type": {"kind": "timestamp"}, "description": "a wall-clock time, read as UTC"},
    {"name": "day", "type": "date", "description": "a day"},
]


def contract() -> Contract:
    checks = {
        column["name"]: [
            {"name": f"{column['name']} +{offset}", "type": "is_not_in_future", "offset": offset, "equals": 0}
            for offset in OFFSETS
        ]
        for column in COLUMNS
    }
    return Contract.from_yaml(native_document([{**c, "checks": checks[c["name"]]} for c in COLUMNS]))


def frame(spark: SparkSession) -> DataFrame:
    rows = [
        (instant, instant.replace(tzinfo=None) if instant else None, day)
        for instant, day in zip(INSTANTS, DAYS, strict=True)
    ]
    return spark.createDataFrame(rows, "ts timestamp, ntz timestamp_ntz, day date")


def in_future(value: dt.datetime | dt.date | None, offset: int) -> bool:
    """The reference: the value as an instant (a date at midnight UTC) after the moment plus the offset."""
    if value is None:
        return False
    instant = value if isinstance(value, dt.datetime) else dt.datetime(value.year, value.month, value.day, tzinfo=UTC)
    return instant.replace(tzinfo=UTC) > NOW + dt.timedelta(seconds=offset)


def expected() -> dict[str, int]:
    values: dict[str, list[Any]] = {"ts": INSTANTS, "ntz": INSTANTS, "day": DAYS}
    return {
        f"{name} +{offset}": sum(in_future(v, offset) for v in column)
        for name, column in values.items()
        for offset in OFFSETS
    }


@pytest.fixture(scope="module")
def run(spark: SparkSession) -> ContractRun:
    with session_time_zone(spark, "America/St_Johns"):  # a zone off UTC by a half hour
        return run_contract(contract(), frame(spark), now=NOW)


def test_the_count_is_the_values_after_the_moment_plus_the_offset(run: ContractRun) -> None:
    observed = {r.rule.name: r.observed for r in run.rule_results if " +" in r.rule.name}
    assert observed == expected()
    assert observed["ts +0"] == 3  # a microsecond, an hour, two hours after; the moment itself is not
    assert observed["ts +3600"] == 1 and observed["day +0"] == 2 and observed["day +-86400"] == 3
    statuses = {r.rule.name: r.assertion.status for r in run.rule_results}
    assert statuses["ts +0"] == "FAILED" and statuses["ts +86400"] == "PASSED"


def test_the_gate_marks_the_rows_the_run_counts_from_the_same_moment(spark: SparkSession, run: ContractRun) -> None:
    counts = {name: count for name, count in expected().items() if count}
    with session_time_zone(spark, "Asia/Kolkata"):
        assert marked_counts(annotate_rows(run.contract, frame(spark), verdict=run)) == counts  # the verdict's
        assert marked_counts(annotate_rows(run.contract, frame(spark), now=NOW)) == counts
    later = marked_counts(annotate_rows(run.contract, frame(spark), now=NOW + 3 * HOUR))
    assert later.get("ts +0", 0) == 0 and later["day +0"] == 2  # another moment marks other rows
    rows_marked = {r.rule.name: r.rows_marked for r in run.rule_results if r.rows_marked}
    assert rows_marked == counts


def test_splitting_by_the_runs_verdict_quarantines_the_future_rows_of_failed_p0_rules(spark: SparkSession) -> None:
    rule = {"name": "no future", "type": "is_not_in_future", "severity": "P0", "equals": 0}
    contract = Contract.from_yaml(native_document([{**COLUMNS[0], "checks": [rule]}]))
    batch = frame(spark).select("ts")
    run = run_contract(contract, batch, now=NOW)
    valid, quarantine = split_rows(contract, batch, verdict=run)
    held = quarantine.select(F.unix_micros("ts").alias("us")).collect()
    assert sorted(r["us"] for r in held) == [epoch_micros(i) for i in INSTANTS if i and i > NOW]
    assert valid.count() == 4


def test_an_odcs_rule_counts_a_share_and_names_its_column(spark: SparkSession) -> None:
    rule = {
        "name": "ahead",
        "type": "custom",
        "engine": "dqx",
        "implementation": {"check": "is_not_in_future", "column": "ts", "offset": -3600, "return": "pct"},
        "mustBeLessThan": 0.5,
    }
    contract = one_table([{"name": "ts", "logicalType": "timestamp", "quality": [rule]}])
    (result,) = [
        r for r in run_contract(contract, frame(spark).select("ts"), now=NOW).rule_results if r.rule.name == "ahead"
    ]
    assert result.rule.expression() == "count_if(ts > now() - 3600s) / num_rows() < 0.5"
    assert result.observed == pytest.approx(4 / 7)  # the moment and after it, of 7 rows
    assert result.assertion.status == "FAILED"


def test_a_column_that_is_not_an_instant_fails_the_rule_with_the_reason(spark: SparkSession) -> None:
    columns = [
        {"name": "s", "type": "string", "description": "text", "checks": [{"name": "f", "type": "is_not_in_future"}]}
    ]
    run = run_contract(Contract.from_yaml(native_document(columns)), spark.createDataFrame([("x",)], "s string"))
    (result,) = [r for r in run.rule_results if r.rule.name == "f"]
    assert result.assertion.status == "FAILED"
    assert "future_count needs a date or timestamp column; 's' is string" in (result.reason or "")


def test_the_suite_stores_the_offset_and_measures_from_the_runs_moment() -> None:
    suite = expectation_suite(contract())
    stored = [e.configuration.kwargs for e in suite.expectations if e.expectation_type == "expect_dqx_future_count"]
    assert len(stored) == len(COLUMNS) * len(OFFSETS)
    assert all(kwargs["now"] == {"$PARAMETER": "now()"} for kwargs in stored)
    assert sorted({kwargs.get("offset", 0) for kwargs in stored}) == sorted(OFFSETS)


@pytest.mark.parametrize(
    ("offset", "message"),
    [
        (1.5, "offset must be a whole number of seconds, got: 1.5"),
        ("1h", "offset must be a whole number of seconds, got: '1h'"),
        (-(10**13), "offset must be at most 1000000000000 seconds either way, got: -10000000000000"),
    ],
)
def test_an_offset_that_is_not_whole_seconds_is_refused(offset: Any, message: str) -> None:
    checks = [{"name": "f", "type": "is_not_in_future", "offset": offset}]
    with pytest.raises(ContractValidationError, match=message):
        Contract.from_yaml(native_document([{**COLUMNS[0], "checks": checks}]))
    with pytest.raises(ContractValidationError, match="offset applies only to is_not_in_future, not to 'max'"):
        one_table(
            [
                {
                    "name": "ts",
                    "quality": [
                        {
                            "type": "custom",
                            "engine": "dqx",
                            "implementation": {"check": "max", "column": "ts", "offset": 1},
                        }
                    ],
                }
            ]
        )
