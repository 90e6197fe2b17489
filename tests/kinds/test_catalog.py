"""Every kind and constraint is declared once, completely, with its Spark half under the same name; the GX
backend is built from the declarations."""

from __future__ import annotations

import great_expectations as gx
import pytest

from dqx_gx.expectations.catalog import EXPECTATIONS, KindExpectation
from dqx_gx.gx_private import registered_expectation_types
from dqx_gx.kinds import CONSTRAINTS, KINDS, Constraint, ConstraintKind, Kind, Metric, MetricKind, Scale, Value
from dqx_gx.kinds.kind import Accepts, Arity, BatchOnly, Marks, Reach
from dqx_gx.rules.rule import MetricRule
from dqx_gx.spark.kinds import SPARK, VIOLATIONS, Pass
from tests.kinds.test_words import loaded

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


def example(kind: Kind) -> Metric:
    """The metric of the kind's first example in the checks reference (its own words)."""
    (rule,) = [
        r for r in loaded(kind.words.examples[0]).rules if isinstance(r, MetricRule) and r.metric.kind is kind.metric
    ]
    return rule.metric


DECLARED = list(KINDS.values())
"""Every declaration, for the tests that hold each one to what every layer needs."""


def test_every_metric_kind_is_declared_once() -> None:
    assert set(KINDS) == set(MetricKind)
    assert set(SPARK) == set(MetricKind)
    assert all(metric is kind.metric for metric, kind in KINDS.items())
    assert len({kind.expectation for kind in KINDS.values()}) == len(KINDS)


@pytest.mark.parametrize("kind", DECLARED, ids=lambda kind: kind.name)
def test_each_declaration_is_complete(kind: Kind) -> None:
    metric = kind.metric
    spark = SPARK[metric]
    assert callable(spark.aggregate)
    assert isinstance(kind.accepts_for(example(kind)), Accepts)
    assert kind.describe(example(kind))
    marks = kind.marks
    assert (isinstance(marks, Marks) and callable(spark.predicate)) or (
        isinstance(marks, BatchOnly) and marks.why and spark.predicate is None
    )
    assert kind.row_level == isinstance(marks, Marks)
    assert kind.expectation.startswith("expect_dqx_")
    assert (spark.of_key is not None) == (spark.pass_ is Pass.SECOND)  # the run reads a key-based kind so


def test_words_of_each_kind() -> None:
    words = {metric: KINDS[metric].describe(given) for metric, given in EXAMPLE_METRICS.items()}
    words |= {
        metric: KINDS[metric].describe(Metric(metric, ("a",))) for metric in (MetricKind.NULL_COUNT, MetricKind.STDDEV)
    }
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


@pytest.mark.parametrize("kind", DECLARED, ids=lambda kind: kind.name)
def test_only_row_counts_are_scaled(kind: Kind) -> None:
    """A count of rows is a row-level kind's count of the rows it marks (docs/semantics.md, 'Invariant'); the statistics whose
    marks are rows past a bound (min, max) are values, not counts."""
    counts_rows = isinstance(kind.marks, Marks) and kind.marks.reach is not Reach.BOUNDS
    assert (kind.value is Value.ROWS) == counts_rows
    fraction = Metric(kind.metric, example(kind).columns, scale=Scale.FRACTION, params=example(kind).params)
    assert kind.describe(fraction).endswith(" / num_rows()") == counts_rows
    assert ("scale" in kind.arguments(fraction)) == counts_rows
    assert KINDS[MetricKind.MEAN].describe(Metric(MetricKind.MEAN, ("a",), scale=Scale.FRACTION)) == "mean(a)"


@pytest.mark.parametrize("metric", [*EXAMPLE_METRICS.values(), *map(example, DECLARED)], ids=Metric.describe)
def test_expectation_arguments_round_trip(metric: Metric) -> None:
    kind = KINDS[metric.kind.value]
    arguments = kind.arguments(metric)
    assert tuple(arguments) == kind.argument_names
    assert kind.metric_of(arguments) == metric
    assert ("column" in arguments) == (kind.arity is Arity.ONE)
    assert ("columns" in arguments) == (kind.arity is Arity.MANY)


@pytest.mark.parametrize("kind", DECLARED, ids=lambda kind: kind.name)
def test_each_kind_is_one_registered_gx_expectation(kind: Kind) -> None:
    expectation = EXPECTATIONS[kind.metric.value]
    assert issubclass(expectation, KindExpectation) and expectation.kind is kind
    assert expectation.expectation_type == kind.expectation
    assert registered_expectation_types()[kind.expectation] is expectation
    built = expectation(
        rule="r",
        **kind.arguments(example(kind)),
        **({"now": {"$PARAMETER": "now()"}} if kind.needs_now else {}),
    )
    assert built.metric == example(kind)
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


@pytest.mark.parametrize("kind", DECLARED, ids=lambda kind: kind.name)
def test_each_parameter_is_a_metric_field_an_argument_and_an_expectation_field(kind: Kind) -> None:
    """A parameter is declared once: its metric holds it by name, the stored arguments carry it, and the
    expectation has a field of each argument's name."""
    metric = example(kind)
    assert [name for name, _ in metric.params] == [param.name for param in kind.params]
    fields = set(EXPECTATIONS[kind.metric.value].__fields__)
    for param in kind.params:
        assert getattr(metric, param.name) == param.of(metric) == metric.param(param.name)
        assert set(param.arguments(param.of(metric))) == set(param.argument_types) <= fields
    with pytest.raises(TypeError, match="takes no parameter"):
        Metric(kind.metric, metric.columns, no_such_parameter=1)
