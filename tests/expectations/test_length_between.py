"""``length_between``: the rows whose string (in characters) or array (in items) is shorter or longer than the
limits, counted by the run and marked by the row gate alike; NULL has no length (docs/semantics.md)."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractValidationError, annotate_rows, run_contract
from dqx_gx.run import ContractRun
from tests.documents import native_document, odcs_document, one_table
from tests.rows.test_gate import marked_counts

TEXTS = ["a", "", "abcd", "日本語", "e\u0301", "😀😀", None, "abc"]
"""Characters, as Spark counts them: code points (``e`` and a combining accent are two)."""
LISTS: list[list[str | None] | None] = [[], ["a"], ["a", "b", "c", "d"], None, [None], ["x", "y"], None, ["a", "b"]]
"""Items: a NULL item is an item."""
LIMITS = [(1, 3), (0, 0), (2, 2), (4, 10)]


def outside(value: Any, low: int, high: int) -> bool:
    return value is not None and not low <= len(value) <= high


def frame(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        list(zip(TEXTS, LISTS, range(len(TEXTS)), strict=True)), "s string, l array<string>, n int"
    )


def contract() -> Contract:
    def rules(column: str) -> list[dict[str, Any]]:
        return [
            {
                "name": f"{column} {low}-{high}",
                "type": "custom",
                "engine": "dqx",
                "severity": "warning",
                "implementation": {"check": "length_between", "column": column, "min_length": low, "max_length": high},
                "mustBe": 0,
            }
            for low, high in LIMITS
        ]

    return one_table(
        [
            {"name": "s", "logicalType": "string", "quality": rules("s")},
            {"name": "l", "logicalType": "array", "items": {"logicalType": "string"}, "quality": rules("l")},
        ]
    )


@pytest.fixture(scope="module")
def run(spark: SparkSession) -> ContractRun:
    return run_contract(contract(), frame(spark))


def test_the_count_is_the_values_outside_the_limits(run: ContractRun) -> None:
    observed = {r.rule.name: r.observed for r in run.rule_results if "-" in r.rule.name}
    expected = {
        f"{column} {low}-{high}": sum(outside(v, low, high) for v in values)
        for column, values in (("s", TEXTS), ("l", LISTS))
        for low, high in LIMITS
    }
    assert observed == expected
    assert observed["s 1-3"] == 2 and observed["l 1-3"] == 2  # "" and "abcd"; [] and four items
    assert observed["s 2-2"] == 5  # "e\u0301" and "😀😀" are two characters, "日本語" three


def test_the_gate_marks_exactly_the_rows_counted(spark: SparkSession, run: ContractRun) -> None:
    counted = {r.rule.name: r.observed for r in run.rule_results if "-" in r.rule.name and r.observed}
    assert marked_counts(annotate_rows(run.contract, frame(spark), verdict=run)) == counted
    words = {r.rule.name: r.rule.expression() for r in run.rule_results}
    assert words["s 1-3"] == "count_if(length(s) not between 1 and 3) = 0"


def test_a_native_check_counts_a_share(spark: SparkSession) -> None:
    checks = [
        {"name": "short", "type": "length_between", "min_length": 1, "max_length": 3, "return": "pct", "max": 0.1}
    ]
    columns = [{"name": "s", "type": "string", "description": "s", "checks": checks}]
    run = run_contract(Contract.from_yaml(native_document(columns)), frame(spark).select("s"))
    (result,) = [r for r in run.rule_results if r.rule.name == "short"]
    assert result.observed == pytest.approx(2 / len(TEXTS))
    assert result.assertion.status == "FAILED"


def test_a_column_without_a_length_fails_the_rule_with_the_reason(spark: SparkSession) -> None:
    rule = {
        "type": "custom",
        "engine": "dqx",
        "name": "n",
        "implementation": {"check": "length_between", "column": "n", "min_length": 1, "max_length": 2},
    }
    run = run_contract(one_table([{"name": "n", "logicalType": "integer", "quality": [rule]}]), frame(spark))
    (result,) = [r for r in run.rule_results if r.rule.name == "n"]
    assert result.assertion.status == "FAILED"
    assert "length_outside_count applies to strings and arrays; 'n' is int" in (result.reason or "")


@pytest.mark.parametrize(
    ("implementation", "message"),
    [
        ({"min_length": 3, "max_length": 1}, "min_length 3 is greater than max_length 1; give the shorter first"),
        ({"min_length": 1}, "check 'length_between' needs 'min_length:' and 'max_length:'"),
        ({"min_length": -1, "max_length": 2}, "min_length must be a whole number from 0 to 2147483647, got: -1"),
        ({"min_length": 1, "max_length": 2.5}, "max_length must be a whole number from 0 to 2147483647, got: 2.5"),
        ({"min_length": 1, "max_length": 2**31}, "max_length must be a whole number from 0 to 2147483647, got: 2147"),
    ],
)
def test_limits_that_cannot_be_measured_are_refused_naming_the_field(
    implementation: dict[str, Any], message: str
) -> None:
    rule = {
        "type": "custom",
        "engine": "dqx",
        "name": "x",
        "implementation": {"check": "length_between", "column": "s", **implementation},
    }
    document = odcs_document([{"name": "t", "properties": [{"name": "s", "quality": [rule]}]}])
    with pytest.raises(ContractValidationError, match=f"Quality rule 'x': {message}"):
        Contract.from_odcs(document)
    native = [
        {
            "name": "s",
            "type": "string",
            "description": "s",
            "checks": [{"name": "x", "type": "length_between", **implementation}],
        }
    ]
    with pytest.raises(ContractValidationError, match=message.replace("check ", "check type ")):
        Contract.from_yaml(native_document(native))


def test_the_limits_apply_only_to_their_check() -> None:
    rule = {"type": "custom", "engine": "dqx", "implementation": {"check": "min", "column": "s", "min_length": 1}}
    with pytest.raises(
        ContractValidationError, match="min_length and max_length apply only to length_between, not to 'min'"
    ):
        one_table([{"name": "s", "quality": [rule]}])
