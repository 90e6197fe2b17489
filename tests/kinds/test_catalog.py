"""Every kind and constraint is declared once, completely, with its Spark half under the same name; the GX
backend is built from the declarations."""

from __future__ import annotations

import great_expectations as gx
import pytest

from dqx_gx.expectations.catalog import EXPECTATIONS, KindExpectation
from dqx_gx.gx_private import registered_expectation_types
from dqx_gx.kinds import CONSTRAINTS, KINDS, Constraint, ConstraintKind, Metric, MetricKind, Scale, Value
from dqx_gx.kinds.kind import Accepts, Arity, BatchOnly, Marks, Param
from dqx_gx.spark.kinds import SPARK, VIOLATIONS, Pass

EXAMPLE_METRICS = {
    MetricKind.NUM_ROWS: Metric(MetricKind.NUM_ROWS),
    MetricKind.MISSING_COUNT: Metric(MetricKind.MISSING_COUNT, ("a",), values=("", "n/a"), scale=Scale.PERCENT),
    MetricKind.INVALID_COUNT: Metric(MetricKind.INVALID_COUNT, ("a",), values=(1, 2.5, True)),
    MetricKind.COUNT_VALUES: Metric(MetricKind.COUNT_VALUES, ("a",), values=("x",), scale=Scale.FRACTION),
    MetricKind.UNLISTED_COUNT: Metric(MetricKind.UNLISTED_COUNT, ("a",), values=("x", "y")),
    MetricKind.PATTERN_INVALID_COUNT: Metric(MetricKind.PATTERN_INVALID_COUNT, ("a",), pattern="^[a-z]+$"),
    MetricKind.DUPLICATE_COUNT: Metric(MetricKind.DUPLICATE_COUNT, ("a", "b")),
    MetricKind.VIOLATION_COUNT: Metric(
        MetricKind.VIOLATION_COUNT, ("a",), constraint=Constraint(ConstraintKind.MINIMUM, "2026-01-01")
    ),
    MetricKind.PERCENTILE: Metric(MetricKind.PERCENTILE, ("a",), percentile=0.95),
    MetricKind.MIN_LENGTH: Metric(MetricKind.MIN_LENGTH, ("a",), column_type="list"),
    MetricKind.MAX_LENGTH: Metric(MetricKind.MAX_LENGTH, ("a",), column_type="string"),
    MetricKind.AVG_LENGTH: Metric(MetricKind.AVG_LENGTH, ("a",), column_type="map"),
    MetricKind.FRESHNESS_HOURS: Metric(MetricKind.FRESHNESS_HOURS, ("a",), aggregation="min"),
    MetricKind.MISSING_PARTITIONS: Metric(
        MetricKind.MISSING_PARTITIONS, ("a",), granularity="weekly", lookback_days=90, allow_future_gaps=False
    ),
    MetricKind.MISSING_REFERENCE_COUNT: Metric(
        MetricKind.MISSING_REFERENCE_COUNT, ("a", "b"), reference="customers", reference_columns=("id", "region")
    ),
}


def example(kind: MetricKind) -> Metric:
    return EXAMPLE_METRICS.get(kind, Metric(kind, ("a",)))


def test_every_metric_kind_is_declared_once() -> None:
    assert set(KINDS) == set(MetricKind)
    assert set(SPARK) == set(MetricKind)
    assert all(metric is kind.metric for metric, kind in KINDS.items())
    assert len({kind.expectation for kind in KINDS.values()}) == len(KINDS)


@pytest.mark.parametrize("metric", list(MetricKind))
def test_each_declaration_is_complete(metric: MetricKind) -> None:
    kind = KINDS[metric]
    spark = SPARK[metric]
    assert callable(spark.aggregate)
    assert isinstance(kind.accepts_for(example(metric)), Accepts)
    assert kind.describe(example(metric))
    marks = kind.marks
    assert (isinstance(marks, Marks) and callable(spark.predicate)) or (
        isinstance(marks, BatchOnly) and marks.why and spark.predicate is None
    )
    assert kind.row_level == isinstance(marks, Marks)
    assert kind.expectation.startswith("expect_dqx_")
    assert (spark.of_key is not None) == (spark.pass_ is Pass.SECOND)  # the run reads a key-based kind so


def test_words_of_each_kind() -> None:
    words = {metric: KINDS[metric].describe(example(metric)) for metric in MetricKind}
    assert words[MetricKind.NUM_ROWS] == "num_rows()"
    assert words[MetricKind.NULL_COUNT] == "null_count(a)"
    assert words[MetricKind.MISSING_COUNT] == "100 * (null_count(a) + count_values(a, ['', 'n/a'])) / num_rows()"
    assert words[MetricKind.INVALID_COUNT] == "num_rows() - count_values(a, [1, 2.5, True])"
    assert words[MetricKind.COUNT_VALUES] == "count_values(a, ['x']) / num_rows()"
    assert words[MetricKind.PATTERN_INVALID_COUNT] == "num_rows() - count_matching(a, /^[a-z]+$/)"
    assert words[MetricKind.DUPLICATE_COUNT] == "duplicate_count(a, b)"
    assert words[MetricKind.VIOLATION_COUNT] == "count_if(a < '2026-01-01')"
    assert words[MetricKind.PERCENTILE] == "percentile(a, 0.95)"
    assert words[MetricKind.MIN_LENGTH] == "min_length(a)"
    assert words[MetricKind.FRESHNESS_HOURS] == "freshness_hours(a, oldest)"
    assert words[MetricKind.STDDEV] == "stddev(a)"
    assert words[MetricKind.MISSING_PARTITIONS] == "missing_partitions(a, weekly, 90d, trailing gaps count)"
    assert words[MetricKind.MISSING_REFERENCE_COUNT] == "missing_reference_count((a, b) → customers.(id, region))"
    one = Metric(MetricKind.MISSING_REFERENCE_COUNT, ("a",), reference="customers", reference_columns=("id",))
    assert KINDS[MetricKind.MISSING_REFERENCE_COUNT].describe(one) == "missing_reference_count(a → customers.id)"


def test_only_row_counts_are_scaled() -> None:
    scalable = {metric for metric, kind in KINDS.items() if kind.value is Value.ROWS}
    assert scalable == {
        MetricKind.NULL_COUNT,
        MetricKind.FIELD_NULL_COUNT,
        MetricKind.MISSING_COUNT,
        MetricKind.INVALID_COUNT,
        MetricKind.COUNT_VALUES,
        MetricKind.UNLISTED_COUNT,
        MetricKind.PATTERN_INVALID_COUNT,
        MetricKind.DUPLICATE_COUNT,
        MetricKind.VIOLATION_COUNT,
        MetricKind.MISSING_REFERENCE_COUNT,
    }
    assert KINDS[MetricKind.MEAN].describe(Metric(MetricKind.MEAN, ("a",), scale=Scale.FRACTION)) == "mean(a)"


@pytest.mark.parametrize("metric", list(MetricKind))
def test_expectation_arguments_round_trip(metric: MetricKind) -> None:
    kind = KINDS[metric]
    arguments = kind.arguments(example(metric))
    assert tuple(arguments) == kind.argument_names
    assert kind.metric_of(arguments) == example(metric)
    assert ("column" in arguments) == (kind.arity is Arity.ONE)
    assert ("columns" in arguments) == (kind.arity is Arity.MANY)


@pytest.mark.parametrize("metric", list(MetricKind))
def test_each_kind_is_one_registered_gx_expectation(metric: MetricKind) -> None:
    kind = KINDS[metric]
    expectation = EXPECTATIONS[metric]
    assert issubclass(expectation, KindExpectation) and expectation.kind is kind
    assert expectation.expectation_type == kind.expectation
    assert registered_expectation_types()[kind.expectation] is expectation
    built = expectation(
        rule="r",
        **kind.arguments(example(metric)),
        **({"now": {"$PARAMETER": "now()"}} if kind.value.needs_now else {}),
    )
    assert built.metric == example(metric)
    suite = gx.ExpectationSuite(name="s", expectations=[built])
    assert suite.expectations[0].expectation_type == kind.expectation


def test_every_constraint_is_declared_once() -> None:
    assert set(CONSTRAINTS) == set(ConstraintKind)
    words = {kind: check.describe("c", 3) for kind, check in CONSTRAINTS.items()}
    assert words[ConstraintKind.MIN_LENGTH] == "length(c) < 3"
    assert words[ConstraintKind.MULTIPLE_OF] == "c % 3 != 0"
    assert CONSTRAINTS[ConstraintKind.MAXIMUM].describe("c", "2026-01-31") == "c > '2026-01-31'"
    assert set(VIOLATIONS) == set(ConstraintKind)
    assert all(callable(violates) for violates in VIOLATIONS.values())


def test_params_name_metric_fields() -> None:
    fields = set(Metric.__dataclass_fields__)
    assert {p.value for p in Param} - {"constraint"} <= fields
