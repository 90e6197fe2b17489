"""Aggregate expressions kept between runs (expectations/built.py): reused only for what they were built from."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, run_contract
from dqx_gx.expectations.built import BUILT, BuiltColumns
from tests.documents import one_table


def test_a_kept_column_is_reused_and_the_least_recently_used_dropped(spark: SparkSession) -> None:
    kept = BuiltColumns(size=2)
    built: list[str] = []

    def build(name: str) -> Column:
        built.append(name)
        return F.col(name)

    first = kept.get("a", lambda: build("a"))
    kept.get("b", lambda: build("b"))
    assert kept.get("a", lambda: build("a")) is first  # reused, and now the most recently used
    kept.get("c", lambda: build("c"))  # drops b
    assert len(kept) == 2
    kept.get("a", lambda: build("a"))
    kept.get("b", lambda: build("b"))
    assert built == ["a", "b", "c", "b"]


@pytest.fixture(scope="module")
def contract() -> Contract:
    return one_table(
        [
            {
                "name": "amount",
                "logicalType": "number",
                "quality": [
                    {
                        "name": "amount max",
                        "type": "custom",
                        "engine": "dqx",
                        "severity": "error",
                        "implementation": {"check": "max", "column": "amount", "mustBeLessThan": 100},
                    },
                    {"name": "amount nulls", "metric": "nullValues", "mustBe": 0, "severity": "error"},
                ],
            }
        ]
    )


def observed(contract: Contract, spark: SparkSession, rows: list[Any], ddl: str) -> dict[str, Any]:
    run = run_contract(contract, spark.createDataFrame(rows, ddl))
    return {r.rule.name: (r.observed, r.assertion.status, r.reason) for r in run.rule_results}


def test_a_run_again_measures_its_own_batch_with_the_expressions_kept(contract: Contract, spark: SparkSession) -> None:
    BUILT.clear()
    first = observed(contract, spark, [(1.0,), (None,)], "amount double")
    observed(contract, spark, [(3.0,), (None,)], "amount double")  # failing again: its samples taken in the pass
    kept = len(BUILT)
    assert kept > 0
    again = observed(contract, spark, [(150.0,), (2.0,)], "amount double")
    assert len(BUILT) == kept  # nothing built again
    assert first["amount max"][:2] == (1.0, "PASSED") and first["amount nulls"][:2] == (1, "FAILED")
    assert again["amount max"][:2] == (150.0, "FAILED") and again["amount nulls"][:2] == (0, "PASSED")


def test_a_batch_of_another_schema_gets_expressions_of_its_own(contract: Contract, spark: SparkSession) -> None:
    BUILT.clear()
    observed(contract, spark, [(1.0,)], "amount double")
    kept = len(BUILT)
    text = observed(contract, spark, [("1.0",)], "amount string")
    assert len(BUILT) > kept
    assert text["amount max"][1] == "FAILED" and "string" in (text["amount max"][2] or "")
    assert text["amount nulls"][:2] == (0, "PASSED")
    kept = len(BUILT)
    renamed = observed(contract, spark, [(7.0,)], "AMOUNT double")  # found ignoring case, named as the batch names it
    assert len(BUILT) > kept
    assert renamed["amount max"][:2] == (7.0, "PASSED")
