"""Aggregate expressions kept between runs (expectations/built.py): reused only for what they were built from."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, run_contract
from dqx_gx.expectations.built import BUILT, BuiltColumns
from dqx_gx.spark.text import Sql
from tests.documents import one_table
from tests.gateway import methods_called


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


@pytest.fixture(scope="module")
def several() -> Contract:
    """Rules on four typed columns and a key: metrics of different arguments that come to the same text (each
    column's count of values that did not cast is the same typed NULL on a typed batch; ``count(1)``)."""
    nulls = [{"name": "nulls", "metric": "nullValues", "mustBe": 0}]
    return one_table(
        [
            {
                "name": "id",
                "logicalType": "integer",
                "quality": [{"name": "id unique", "metric": "duplicateValues", "mustBe": 0}],
            },
            *({"name": name, "logicalType": "number", "quality": nulls} for name in ("amount", "score")),
            {"name": "label", "logicalType": "string", "quality": nulls},
        ],
        [{"name": "rows", "metric": "rowCount", "mustBeGreaterThan": 0}],
    )


def test_a_first_run_adds_only_one_round_trip_per_column_and_answers_as_a_run_again(
    several: Contract, spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = spark.createDataFrame(
        [(1, 1.0, None, "a"), (1, None, 2.0, "b"), (2, 3.0, 4.0, None)],
        "id int, amount double, score double, label string",
    )
    made: list[str] = []
    column = Sql.column

    def recorded(expression: Sql, name: str | None = None) -> Column:
        made.append(expression.text)
        return column(expression, name)

    def results() -> list[tuple[Any, ...]]:
        run = run_contract(several, frame)
        return [(r.rule.name, r.observed, r.assertion.status) for r in run.rule_results]

    first_run: list[tuple[Any, ...]] = []
    run_again: list[tuple[Any, ...]] = []
    results()  # GX's own first calls are behind us
    results()  # the failing rules take their samples in the pass from the second run on: the plan of every run after
    BUILT.clear()
    jvm: Any = spark._jvm
    compiled = jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    before = compiled.getCount()
    with monkeypatch.context() as patched:
        patched.setattr(Sql, "column", recorded)
        first = methods_called(lambda: first_run.extend(results()), monkeypatch)
    # new Column objects, the same plan: Spark's code cache serves the first run's generated code
    assert compiled.getCount() == before
    again = methods_called(lambda: run_again.extend(results()), monkeypatch)
    assert first_run == run_again
    assert first_run  # every rule answered
    # the four columns' counts of values that did not cast (a typed batch: none) are four metrics of one text: one Column
    assert made.count("CAST(NULL AS bigint)") == 1
    # each Column one round trip; the only calls a first run adds to a run again's are Columns' (a name is
    # given in the text, not by a round trip for Column.alias)
    assert first.count("expr") == len(made)
    added = Counter(first)
    added.subtract(again)
    del added["setCallSite"]  # PySpark names a query's call site or not by how the run's threads overlap
    assert {method: n for method, n in added.items() if n} == {"expr": first.count("expr") - again.count("expr")}
    assert added["expr"] >= 15  # the aggregates and the key grouping built once, kept for the run again
