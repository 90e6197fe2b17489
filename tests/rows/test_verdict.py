"""docs/semantics.md, 'Errors and warnings': the batch verdict decides where a rule's marks go; only a failing P0 rule writes errors."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, run_contract
from dqx_gx.rows import ERRORS, WARNINGS, RowGateError, annotate_rows, split_rows
from tests.documents import one_table

ROWS = [(1, None, 5.0), (2, None, 7.0), (2, None, 9.0), (3, "a", 2.0), (4, "b", 1.0), (4, "c", 3.0)]
DDL = "id int, tag string, score double"


def rule(name: str, metric: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "metric": metric, "severity": "error", **extra}


def recorded(name: str, column: str) -> dict[str, Any]:
    """A DQX rule without an operator: its NULL count is recorded, and it never fails."""
    implementation = {"check": "missing", "column": column}
    return {"name": name, "type": "custom", "engine": "dqx", "severity": "error", "implementation": implementation}


def tag_rules() -> Contract:
    """Every way a P0 rule can pass or fail with marked rows: 3 NULL tags, 2 extra copies of ids."""
    return one_table(
        [
            {"name": "id", "logicalType": "integer"},
            {
                "name": "tag",
                "logicalType": "string",
                "quality": [
                    recorded("tags recorded", "tag"),
                    rule("tags within tolerance", "nullValues", mustBeLessOrEqualTo=3),
                    rule("tags past tolerance", "nullValues", mustBeLessOrEqualTo=2),
                    rule("tags share within", "nullValues", unit="percent", mustBeLessThan=60),
                    rule("tags none", "nullValues", mustBe=0),
                ],
            },
            {
                "name": "score",
                "logicalType": "number",
                "quality": [
                    {
                        "name": "score max above 8",  # passes (max 9): the 5 rows up to 8 are marked all the same
                        "type": "custom",
                        "engine": "dqx",
                        "severity": "error",
                        "implementation": {"check": "max", "column": "score", "mustBeGreaterThan": 8},
                    },
                    {
                        "name": "score max below 8",  # fails: one row, 9
                        "type": "custom",
                        "engine": "dqx",
                        "severity": "error",
                        "implementation": {"check": "max", "column": "score", "mustBeLessThan": 8},
                    },
                ],
            },
        ],
        [
            rule("ids once within", "duplicateValues", arguments={"properties": ["id"]}, mustBeLessOrEqualTo=2),
            rule("ids once past", "duplicateValues", arguments={"properties": ["id"]}, mustBeLessOrEqualTo=1),
        ],
    )


@pytest.fixture(scope="module")
def batch(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, DDL)


def rows_by_rule(annotated: DataFrame, column: str) -> dict[str, int]:
    entries = annotated.select(F.explode(column).alias("e")).groupBy("e.rule").count().collect()
    return {row["rule"]: row["count"] for row in entries}


EXPECTED_ERRORS = {"tags past tolerance": 3, "tags none": 3, "score max below 8": 1, "ids once past": 4}
EXPECTED_WARNINGS = {"tags recorded": 3, "tags within tolerance": 3, "tags share within": 3, "score max above 8": 5}
EXPECTED_WARNINGS["ids once within"] = 4


def test_the_run_fails_exactly_the_rules_whose_marks_are_errors(batch: DataFrame) -> None:
    run = run_contract(tag_rules(), batch)
    failed = {r.rule.name for r in run.rule_results if r.assertion.status == "FAILED"}
    assert failed == set(EXPECTED_ERRORS)


def test_without_a_verdict_the_gate_decides_as_the_checkpoint(batch: DataFrame) -> None:
    annotated = annotate_rows(tag_rules(), batch)
    assert rows_by_rule(annotated, ERRORS) == EXPECTED_ERRORS
    assert rows_by_rule(annotated, WARNINGS) == EXPECTED_WARNINGS


def test_with_the_runs_verdict_the_marks_are_the_same(batch: DataFrame) -> None:
    contract = tag_rules()
    annotated = annotate_rows(contract, batch, verdict=run_contract(contract, batch))
    assert rows_by_rule(annotated, ERRORS) == EXPECTED_ERRORS
    assert rows_by_rule(annotated, WARNINGS) == EXPECTED_WARNINGS


def test_an_accepted_batch_quarantines_no_row(spark: SparkSession, batch: DataFrame) -> None:
    """Only the rules that pass here: the batch is accepted, and their marked rows are warned, valid."""
    passing = one_table(
        [
            {"name": "id", "logicalType": "integer"},
            {
                "name": "tag",
                "logicalType": "string",
                "quality": [recorded("recorded", "tag"), rule("tolerated", "nullValues", mustBeLessOrEqualTo=100)],
            },
        ]
    )
    assert run_contract(passing, batch).outcome == "passed"
    valid, quarantine = split_rows(passing, batch)
    assert (valid.count(), quarantine.count()) == (6, 0)
    assert valid.where(F.size(WARNINGS) == 2).count() == 3


def test_a_tolerance_cannot_be_measured_on_a_stream(spark: SparkSession, tmp_path: Any) -> None:
    spark.createDataFrame(ROWS, DDL).write.parquet(str(tmp_path / "in"))
    stream = spark.readStream.schema(DDL).parquet(str(tmp_path / "in"))
    tolerant = one_table(
        [{"name": "tag", "logicalType": "string", "quality": [rule("few", "nullValues", mustBeLessOrEqualTo=2)]}]
    )
    with pytest.raises(RowGateError, match="rule\\(s\\) 'few' fail only past a tolerance over the whole batch"):
        annotate_rows(tolerant, stream)
    zero = one_table([{"name": "tag", "logicalType": "string", "quality": [rule("none", "nullValues", mustBe=0)]}])
    assert annotate_rows(zero, stream).isStreaming  # no tolerance: a marked row is a failed rule


def test_a_tolerance_on_array_items_counts_the_rows_with_a_marked_element(spark: SparkSession) -> None:
    """An items rule counts a row when any element breaks it: 2 rows here (3 NULL elements), so a
    tolerance of 2 passes (warnings) and one of 1 fails (errors), as the run says."""
    tags = {
        "name": "tags",
        "logicalType": "array",
        "items": {
            "logicalType": "string",
            "quality": [
                rule("two tolerated", "nullValues", mustBeLessOrEqualTo=2),
                rule("one tolerated", "nullValues", mustBeLessOrEqualTo=1),
            ],
        },
    }
    contract = one_table([tags])
    frame = spark.createDataFrame([(["a", None, None],), (["b"],), ([None],), (None,)], "tags array<string>")
    run = run_contract(contract, frame)
    assert {r.rule.name: (r.assertion.status, r.observed) for r in run.rule_results if r.rule.name.endswith("ed")} == {
        "two tolerated": ("PASSED", 2),
        "one tolerated": ("FAILED", 2),
    }
    for annotated in (annotate_rows(contract, frame), annotate_rows(contract, frame, verdict=run)):
        assert rows_by_rule(annotated, ERRORS) == {"one tolerated": 2}
        assert rows_by_rule(annotated, WARNINGS) == {"two tolerated": 2}
