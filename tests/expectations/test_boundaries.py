"""Operator boundaries (docs/semantics.md, 'Operators'): at v−ε, v and v+ε every operator decides as DQX's own functions do,
in the rules layer and through a GX checkpoint; percent rules at exactly their threshold."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from dqx import functions as dqx
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, run_contract
from dqx_gx.rules.threshold import EPSILON, Operator, Threshold
from tests.documents import one_table

V = 10.0
A, B = 10.0, 20.0
POINTS = {"v-2e": V - 2 * EPSILON, "v-e": V - EPSILON, "v": V, "v+e": V + EPSILON, "v+2e": V + 2 * EPSILON}

REFERENCE: dict[Operator, Callable[[float], bool]] = {
    Operator.MUST_BE: lambda x: dqx.is_eq(x, V),
    Operator.MUST_NOT_BE: lambda x: dqx.is_neq(x, V),
    Operator.GREATER_THAN: lambda x: dqx.is_gt(x, V),
    Operator.GREATER_OR_EQUAL: lambda x: dqx.is_geq(x, V),
    Operator.LESS_THAN: lambda x: dqx.is_lt(x, V),
    Operator.LESS_OR_EQUAL: lambda x: dqx.is_leq(x, V),
    # Not each other's negation: at lower − ε a value is neither between nor outside.
    Operator.BETWEEN: lambda x: dqx.is_between(x, V, B),
    Operator.NOT_BETWEEN: lambda x: dqx.is_not_between(x, V, B),
}


def threshold(op: Operator) -> Threshold:
    return Threshold(op, (V, B) if op.takes_range else V)


@pytest.mark.parametrize("op", list(Operator))
@pytest.mark.parametrize("point", list(POINTS))
def test_threshold_matches_dqx(op: Operator, point: str) -> None:
    x = POINTS[point]
    assert threshold(op).passes(x) == REFERENCE[op](x)


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (Operator.MUST_BE, {"v-2e": False, "v-e": False, "v": True, "v+e": False, "v+2e": False}),
        (Operator.GREATER_THAN, {"v-2e": False, "v-e": False, "v": False, "v+e": False, "v+2e": True}),
        (Operator.GREATER_OR_EQUAL, {"v-2e": False, "v-e": False, "v": True, "v+e": True, "v+2e": True}),
        (Operator.LESS_OR_EQUAL, {"v-2e": True, "v-e": True, "v": True, "v+e": False, "v+2e": False}),
    ],
)
def test_tolerance_is_dqx_epsilon(op: Operator, expected: dict[str, bool]) -> None:
    """Spelled out, so a change of ε or of strictness cannot hide behind the reference."""
    assert {p: threshold(op).passes(x) for p, x in POINTS.items()} == expected


def test_upper_range_bound() -> None:
    between, outside = Threshold(Operator.BETWEEN, (A, B)), Threshold(Operator.NOT_BETWEEN, (A, B))
    for x, (inside, beyond) in {
        B - EPSILON: (True, False),
        B: (True, False),
        B + EPSILON / 2: (True, False),
        B + EPSILON: (False, False),  # the boundary itself: neither between nor outside, as in DQX
        B + 2 * EPSILON: (False, True),
    }.items():
        assert (
            (between.passes(x), outside.passes(x))
            == (inside, beyond)
            == (
                dqx.is_between(x, A, B),
                dqx.is_not_between(x, A, B),
            )
        )


def contract(rules: list[dict[str, Any]]) -> Contract:
    return one_table([{"name": p, "quality": []} for p in POINTS], rules)


def test_every_operator_through_gx(spark: SparkSession) -> None:
    """One row whose columns hold v−2ε … v+2ε: mean(column) is exactly that value."""
    rules = []
    for op in Operator:
        value: Any = [V, B] if op.takes_range else V
        for point in POINTS:
            rules.append(
                {
                    "name": f"{op.value}@{point}",
                    "type": "custom",
                    "engine": "dqx",
                    "implementation": {"check": "mean", "column": point, op.value: value},
                }
            )
    frame = spark.createDataFrame([tuple(POINTS.values())], ", ".join(f"`{p}` double" for p in POINTS))
    run = run_contract(contract(rules), frame)
    statuses = {r.rule.name: r.assertion.status for r in run.rule_results if "@" in r.rule.name}
    expected = {
        f"{op.value}@{point}": "PASSED" if REFERENCE[op](x) else "FAILED"
        for op in Operator
        for point, x in POINTS.items()
    }
    assert statuses == expected


@pytest.fixture(scope="module")
def one_null_in_100(spark: SparkSession) -> DataFrame:
    """Column ``x int``: one NULL and the integers 0–98."""
    return spark.createDataFrame([(None,)] + [(i,) for i in range(99)], "x int")


@pytest.mark.parametrize(
    ("rule", "status", "observed"),
    [
        ({"mustBeLessThan": 1, "unit": "percent"}, "FAILED", 1.0),  # exactly 1 %: not under 1 %
        ({"mustBeLessOrEqualTo": 1, "unit": "percent"}, "PASSED", 1.0),
        ({"mustBe": 1, "unit": "percent"}, "PASSED", 1.0),
        ({"mustBeGreaterThan": 1, "unit": "percent"}, "FAILED", 1.0),
        ({"mustBeLessThan": 2, "unit": "percent"}, "PASSED", 1.0),
        ({"mustBeLessThan": 1}, "FAILED", 1.0),  # rows, not percent: one NULL row is not fewer than 1
        ({"mustBeLessThan": 2}, "PASSED", 1.0),
    ],
)
def test_percent_rules_at_the_threshold(
    one_null_in_100: DataFrame, rule: dict[str, Any], status: str, observed: float
) -> None:
    """One NULL in 100 rows is exactly 1 % of all rows (docs/semantics.md, 'Percent': 0–100 scale)."""
    c = one_table([{"name": "x", "quality": [{"name": "nulls", "metric": "nullValues", **rule}]}])
    (result,) = [r for r in run_contract(c, one_null_in_100).rule_results if r.rule.name == "nulls"]
    assert result.observed == observed
    assert result.assertion.status == status


@pytest.mark.parametrize(("threshold_value", "status"), [(0.01, "PASSED"), (0.0099, "FAILED")])
def test_fraction_rule_at_the_threshold(one_null_in_100: DataFrame, threshold_value: float, status: str) -> None:
    """A DQX custom rule's ``return: pct`` is the fraction 0–1: one NULL in 100 rows is 0.01."""
    rule = {
        "name": "nulls",
        "type": "custom",
        "engine": "dqx",
        "implementation": {"check": "missing", "column": "x", "return": "pct", "mustBeLessOrEqualTo": threshold_value},
    }
    c = one_table([{"name": "x"}], [rule])
    (result,) = [r for r in run_contract(c, one_null_in_100).rule_results if r.rule.name == "nulls"]
    assert result.observed == pytest.approx(0.01)
    assert result.assertion.status == status
