"""The Spark half of every kind and value constraint: the expressions that measure and mark.

A kind's engine-neutral half (``dqx_gx.kinds.catalog``: words, accepted types, value, whether it marks
rows) is declared without Spark; this module gives each kind, by its name, what Spark computes for it:
one aggregate for the batch verdict (in a shared pass or a query of its own), the predicate of the rows
it marks, and for exact percentiles a second look. The model is Databricks DQX's ``register_rule``: a
rule is a named function producing Spark column expressions (written as SQL text: :mod:`dqx_gx.spark.text`).
A test holds both halves to the same names (``tests/kinds/test_catalog.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from functools import reduce
from typing import Any

from pyspark.sql import types as T
from pyspark.sql.types import StructField

from dqx_gx.kinds import Kind, Metric, MetricKind
from dqx_gx.kinds.catalog import MAX_LENGTH, MIN_LENGTH, OFFSET
from dqx_gx.kinds.params import (
    AGGREGATION,
    COLUMN_TYPE,
    CONSTRAINT,
    GRANULARITY,
    LOOKBACK_DAYS,
    PATTERN,
    PERCENTILE,
    VALUES,
)
from dqx_gx.rules import partitions
from dqx_gx.rules.metric import ConstraintKind
from dqx_gx.rules.threshold import Interval
from dqx_gx.rules.timestamps import epoch_micros
from dqx_gx.spark import expressions as X
from dqx_gx.spark import formats
from dqx_gx.spark import quantiles as Q
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import column_parts, element_field
from dqx_gx.spark.keys import KeyCounts
from dqx_gx.spark.text import Sql


class Pass(StrEnum):
    """Which shared aggregate pass computes a kind (DEVELOPERS.md, "Two passes at most")."""

    FIRST = "first"
    SECOND = "second"
    """Read from a grouping of the key (:mod:`dqx_gx.spark.keys`): Spark expands every row once per key,
    so the batch's keys share one query of their own after the first pass instead of slowing it."""
    OWN = "own"
    """A query of its own: the "aggregate" is a per-row value, and the metric is its distinct non-NULL
    values (completeness: the partition starts in the window, a few hundred at most), so no pass
    holds an ObjectHashAggregate (``collect_set``) that would turn off code generation for every rule."""
    REFERENCE = "reference"
    """A query of its own over the batch joined with the referenced dataset's keys (foreign keys): the
    aggregate reads :attr:`On.found`. The referenced dataset is given to the run, not stored in the suite."""


@dataclass(frozen=True)
class On:
    """What a kind's Spark expressions are built on: the metric and its columns as found in the batch."""

    metric: Metric
    fields: tuple[StructField, ...]
    columns: tuple[Sql, ...]
    """References to ``fields`` that survive any name (dots, spaces, backticks)."""
    interval: Interval | None = None
    """The rule's pass interval, for kinds whose marks depend on it (min, max)."""
    repeated: Sql | None = None
    """For key-reach marks: true where the row's key occurs in more than one row (the gate computes it)."""
    now: datetime | None = None
    """The run's moment, for kinds whose expressions read it (:attr:`SparkKind.reads_now`)."""
    found: Sql | None = None
    """For reference marks: true where the row's key is a key of the referenced dataset (joined in first)."""
    below: dict[str, Sql] | None = dataclasses.field(default=None, compare=False)  # On.field is its own
    """Where the pass asks for it (:meth:`once`): the per-row values to compute below its aggregate, by name."""

    def once(self, value: Sql) -> Sql:
        """``value`` (a kind's costly per-row predicate), or, when the pass asks (:attr:`below`), a column of that
        value computed once per row below its aggregate: the count and the samples' filter then both read it
        instead of each evaluating it (an interpreted aggregate shares nothing between them). The name is the
        value's digest, so the count and the samples of one rule name the same column (and each run the same, unless
        the value reads the run's moment)."""
        if self.below is None:
            return value
        name = f"{ONCE_PREFIX}{hashlib.sha256(value.text.encode()).hexdigest()[:16]}"
        self.below[name] = value
        return S.named(name)

    @property
    def field(self) -> StructField:
        return self.fields[0]

    @property
    def column(self) -> Sql:
        return self.columns[0]


SparkExpression = Callable[[On], Sql]

ONCE_PREFIX = "_dqx_once_"
"""The start of the name of a value :meth:`On.once` computes below the pass's aggregate."""


@dataclass(frozen=True)
class Refine:
    """A second look at the data, for a kind whose first-pass aggregate only narrows the value down.

    Exact percentiles: the first pass brackets the answer (``percentile_approx``), the refining
    aggregate counts and collects the few values in the bracket, and ``value`` reads the exact
    answer from them. Every refining aggregate of a batch shares one ``df.agg`` (DEVELOPERS.md,
    "Exact percentiles"); the brackets have one of their own (:attr:`SparkKind.object_aggregate`).
    """

    aggregate: Callable[[On, Any], Sql]
    """The refining aggregate, from the first-pass value; like :attr:`SparkKind.aggregate` it must never fail."""
    value: Callable[[Metric, Any], Any]
    """The metric's value from the refining aggregate's value, or None when that cannot decide it."""
    exact: SparkExpression
    """The value by one aggregate of its own (a job of its own): for when :attr:`value` cannot decide."""
    result_type: str
    """The Spark type of :attr:`aggregate`, for the typed NULL of a column that cannot be measured."""


@dataclass(frozen=True)
class SparkKind:
    """A kind's Spark half: one aggregate for the batch verdict, and the rows it marks."""

    aggregate: SparkExpression
    """One aggregate expression over the batch (for :attr:`Pass.OWN`, the per-row value whose distinct
    values are measured); it must never fail (a column it cannot measure is refused before, by
    :attr:`Kind.accepts`), else Spark would fail the whole shared pass."""
    predicate: SparkExpression | None = None
    """True for a row the rule counts, never NULL: given exactly for the row-level kinds (``Kind.marks``)."""
    result_type: str = "bigint"
    """The Spark type of the aggregate, for the typed NULL given when the column cannot be measured."""
    pass_: Pass = Pass.FIRST
    refine: Refine | None = None
    """A second look that turns the aggregate's value into the metric's (exact percentiles), or None."""
    of_key: Callable[[KeyCounts], int] | None = None
    """For a :attr:`Pass.SECOND` kind, its value from its key's counts, which the run reads instead of
    :attr:`aggregate` (the gate still decides with that)."""
    reads_now: bool = False
    """Its expressions read the run's moment (:attr:`On.now`): the run gives it to its aggregate, the row gate
    to its predicate, so the rows marked are the rows counted."""
    object_aggregate: bool = False
    """Its aggregate is a Spark object aggregate (``percentile_approx``): in the shared first ``df.agg`` it
    would turn the whole pass into an object hash aggregate, which has no whole-stage generated code and
    generates every aggregate's projections again in each task, so the run gives it a ``df.agg`` of its own
    beside that one. (A refining aggregate stays in the second ``df.agg``, which holds few others.)"""


def spark_of(kind: Kind | MetricKind) -> SparkKind:
    """The Spark half of a kind."""
    return SPARK[kind.name if isinstance(kind, Kind) else kind]


# --- value constraints (logicalTypeOptions, the native pattern check) --------------------------------------


def _literal(field: StructField, value: Any) -> Sql:
    """A bound as a Spark literal: an ISO date/time string becomes an exact instant of the column's type."""
    return X.temporal_literal(field, value) if isinstance(value, str) else S.lit(value)


VIOLATIONS: Mapping[ConstraintKind, Callable[[Sql, StructField, Any], Sql]] = {
    ConstraintKind.MIN_LENGTH: lambda c, f, v: S.call("length", c) < v,
    ConstraintKind.MAX_LENGTH: lambda c, f, v: S.call("length", c) > v,
    ConstraintKind.PATTERN: lambda c, f, v: ~c.rlike(v),
    ConstraintKind.FORMAT: lambda c, f, v: ~c.rlike(formats.FORMAT_PATTERNS[v]),
    ConstraintKind.MINIMUM: lambda c, f, v: c < _literal(f, v),
    ConstraintKind.MAXIMUM: lambda c, f, v: c > _literal(f, v),
    ConstraintKind.EXCLUSIVE_MINIMUM: lambda c, f, v: c <= _literal(f, v),
    ConstraintKind.EXCLUSIVE_MAXIMUM: lambda c, f, v: c >= _literal(f, v),
    ConstraintKind.MULTIPLE_OF: lambda c, f, v: S.call("pmod", c, v) != 0,
    ConstraintKind.MIN_ITEMS: lambda c, f, v: S.call("size", c) < v,
    ConstraintKind.MAX_ITEMS: lambda c, f, v: S.call("size", c) > v,
    ConstraintKind.UNIQUE_ITEMS: lambda c, f, v: S.call("size", S.call("array_distinct", c)) != S.call("size", c),
}
"""Each constraint's predicate: true for a value that breaks it (NULLs are left out by the caller)."""


def _violation(on: On) -> Sql:
    """True for a non-null value breaking the metric's constraint."""
    constraint = CONSTRAINT.of(on.metric)
    return on.once(on.column.is_not_null() & VIOLATIONS[constraint.kind](on.column, on.field, constraint.value))


# --- the kinds ------------------------------------------------------------------------------------------


def _is_in(on: On) -> Sql:
    return on.once(X.is_in(on.column, on.field, VALUES.of(on.metric)))


def _matches(on: On) -> Sql:
    return on.once(X.matches(on.column, PATTERN.of(on.metric)))


def _unlisted(on: On) -> Sql:
    """A non-NULL value outside the set; never NULL itself (``IN`` with a value that does not cast to the
    column's type is NULL for a value outside the rest: outside)."""
    return on.column.is_not_null() & ~X.counted(_is_in(on))


def _distinct(on: On) -> Sql:
    """``COUNT(DISTINCT c)`` (NULLs not counted) or, for several columns, of the row tuple (NULL members count)."""
    return S.count_distinct(on.column if len(on.columns) == 1 else S.call("struct", *on.columns))


def _duplicated(on: On) -> Sql:
    """The rows whose key occurs more than once; for one column also every NULL key, which the
    metric counts as a duplicate (``COUNT(DISTINCT c)`` leaves NULLs out)."""
    assert on.repeated is not None, "key-reach marks need the repeated keys (dqx_gx.spark.marks)"
    return on.column.is_null() | on.repeated if len(on.columns) == 1 else on.repeated


def _unreferenced(on: On) -> Sql:
    """The rows whose key has no NULL and is no key of the referenced dataset (SQL's MATCH SIMPLE: a key
    with a NULL references nothing and breaks nothing)."""
    assert on.found is not None, "reference marks need the referenced keys joined in (dqx_gx.spark.references)"
    whole = reduce(operator.and_, [column.is_not_null() for column in on.columns])
    return whole & ~on.found


def _breaks_the_bound(on: On) -> Sql:
    """Custom min/max with an operator: a row whose value alone would fail the rule (``max(c) < 100``
    marks c ≥ 100)."""
    return on.column.is_not_null() & ~X.within(on.column.cast("double"), on.interval)


def _sum(on: On) -> Sql:
    """Exact for integers: summed as decimal(38,0), as DuckDB sums into a 128-bit integer."""
    column = on.column.cast("decimal(38,0)") if isinstance(on.field.dataType, T.IntegralType) else on.column
    return X.with_nan_flag(S.call("try_sum", column))


def _length(statistic: str) -> SparkExpression:
    def aggregate(on: On) -> Sql:
        size = S.call("length" if COLUMN_TYPE.of(on.metric) == "string" else "size", on.column)
        return X.with_nan_flag(S.call(statistic, S.when(on.column.is_not_null(), size)))

    return aggregate


_ORDER_STATISTICS = (
    "struct<n:bigint,nans:bigint,below:bigint,before:double,low:double,at_low:bigint,inside:array<double>,"
    "high:double,at_high:bigint,after:double,scale:int>"
)
"""The Spark type of ``quantiles.order_statistics``."""


def _fraction(metric: Metric) -> float:
    """A percentile metric's fraction (0.95 for p95)."""
    return float(PERCENTILE.of(metric) or 0.0)


def _instant(on: On) -> Sql:
    value = S.call("max" if AGGREGATION.of(on.metric) == "max" else "min", on.column)
    return X.instant_micros(value, on.field)


def _partition_in_window(on: On) -> Sql:
    """Each row's partition start (epoch microseconds) from the window's first expected partition on;
    rows of the period holding "now" or later all give the window's end, which only says that later
    data exists (the latest present partition, docs/semantics.md, 'Completeness'). NULL before the window or for NULL
    values, so
    the distinct values are at most one per expected partition, plus one."""
    granularity = GRANULARITY.of(on.metric)
    assert on.now is not None, "the run's moment (SparkKind.reads_now)"
    span = partitions.window(on.now, partitions.Granularity(granularity), LOOKBACK_DAYS.of(on.metric))
    start = X.partition_start(on.column, on.field, granularity)
    return S.when(start >= epoch_micros(span.start), S.call("least", start, epoch_micros(span.end)))


def _length_outside(on: On) -> Sql:
    """A non-NULL value whose length (characters of a string, items of an array) is outside the limits."""
    size = S.call("size" if isinstance(on.field.dataType, T.ArrayType) else "length", on.column)
    outside = (size < MIN_LENGTH.of(on.metric)) | (size > MAX_LENGTH.of(on.metric))
    return on.once(on.column.is_not_null() & outside)


def _in_future(on: On) -> Sql:
    """A non-NULL instant (a date is midnight UTC, docs/semantics.md, 'Not in the future') after the run's moment plus
    the offset."""
    assert on.now is not None, "the run's moment (SparkKind.reads_now)"
    after = epoch_micros(on.now) + OFFSET.of(on.metric) * 1_000_000
    return on.once(on.column.is_not_null() & (X.instant_micros(on.column, on.field) > after))


def _null_in_its_struct(on: On) -> Sql:
    """The field is NULL and the struct holding it is not (Spark reads every field of a NULL struct as NULL)."""
    parts = column_parts(on.field)
    null = on.column.is_null()
    return S.named(*parts[:-1]).is_not_null() & null if len(parts) > 1 else null


def _statistic(aggregate: SparkExpression, predicate: SparkExpression | None = None) -> SparkKind:
    """A floating statistic of the column's non-null values, read back as ``[value, is_nan]``."""
    return SparkKind(aggregate, predicate, result_type="struct<v:double,nan:boolean>")


SPARK: Mapping[str, SparkKind] = {
    MetricKind.NUM_ROWS: SparkKind(lambda on: X.num_rows()),
    MetricKind.NULL_COUNT: SparkKind(lambda on: X.count_if(on.column.is_null()), lambda on: on.column.is_null()),
    MetricKind.FIELD_NULL_COUNT: SparkKind(lambda on: X.count_if(_null_in_its_struct(on)), _null_in_its_struct),
    MetricKind.MISSING_COUNT: SparkKind(
        lambda on: X.count_if(on.column.is_null()) + X.count_if(_is_in(on)),
        lambda on: on.column.is_null() | X.counted(_is_in(on)),
    ),
    MetricKind.INVALID_COUNT: SparkKind(
        lambda on: X.num_rows() - X.count_if(_is_in(on)), lambda on: ~X.counted(_is_in(on))
    ),
    MetricKind.COUNT_VALUES: SparkKind(lambda on: X.count_if(_is_in(on)), lambda on: X.counted(_is_in(on))),
    MetricKind.UNLISTED_COUNT: SparkKind(lambda on: X.count_if(_unlisted(on)), _unlisted),
    MetricKind.PATTERN_INVALID_COUNT: SparkKind(
        lambda on: X.num_rows() - X.count_if(_matches(on)),
        lambda on: ~X.counted(_matches(on)),
    ),
    MetricKind.VIOLATION_COUNT: SparkKind(lambda on: X.count_if(_violation(on)), lambda on: X.counted(_violation(on))),
    MetricKind.DUPLICATE_COUNT: SparkKind(
        lambda on: X.num_rows() - _distinct(on), _duplicated, pass_=Pass.SECOND, of_key=lambda key: key.copies
    ),
    MetricKind.CARDINALITY: SparkKind(_distinct, pass_=Pass.SECOND, of_key=lambda key: key.distinct),
    MetricKind.COUNT: SparkKind(lambda on: X.num_rows() - X.count_if(on.column.is_null())),
    MetricKind.MIN: _statistic(lambda on: X.with_nan_flag(S.call("min", on.column)), _breaks_the_bound),
    MetricKind.MAX: _statistic(lambda on: X.with_nan_flag(S.call("max", on.column)), _breaks_the_bound),
    MetricKind.MEAN: _statistic(lambda on: X.with_nan_flag(S.call("try_avg", on.column))),
    MetricKind.SUM: _statistic(_sum),
    MetricKind.VARIANCE: _statistic(lambda on: X.with_nan_flag(S.call("var_samp", on.column.cast("double")))),
    MetricKind.STDDEV: _statistic(
        lambda on: X.with_nan_flag(S.call("sqrt", S.call("var_samp", on.column.cast("double"))))
    ),
    MetricKind.PERCENTILE: SparkKind(
        lambda on: Q.bracket(on.column, _fraction(on.metric)),
        result_type="array<double>",
        refine=Refine(
            lambda on, bounds: Q.order_statistics(on.column, bounds, on.field),
            lambda metric, found: Q.quantile_cont(_fraction(metric), found),
            lambda on: Q.exact(on.column, _fraction(on.metric)),
            result_type=_ORDER_STATISTICS,
        ),
        object_aggregate=True,
    ),
    MetricKind.MIN_LENGTH: _statistic(_length("min")),
    MetricKind.MAX_LENGTH: _statistic(_length("max")),
    MetricKind.AVG_LENGTH: _statistic(_length("avg")),
    MetricKind.FRESHNESS_HOURS: SparkKind(_instant),
    MetricKind.MISSING_PARTITIONS: SparkKind(_partition_in_window, pass_=Pass.OWN, reads_now=True),
    MetricKind.MISSING_REFERENCE_COUNT: SparkKind(
        lambda on: X.count_if(_unreferenced(on)), _unreferenced, pass_=Pass.REFERENCE
    ),
    MetricKind.LENGTH_OUTSIDE_COUNT: SparkKind(lambda on: X.count_if(_length_outside(on)), _length_outside),
    MetricKind.FUTURE_COUNT: SparkKind(lambda on: X.count_if(_in_future(on)), _in_future, reads_now=True),
}
"""Every kind's Spark half, by the kind's name; ``tests/kinds`` holds it to :data:`dqx_gx.kinds.KINDS`."""


def count_of(kind: Kind, on: On) -> Sql:
    """The kind's aggregate; on array items, the rows with at least one element its predicate marks."""
    spark = spark_of(kind)
    if not on.metric.items:
        return spark.aggregate(on)
    return X.count_if(on.once(_any_element(spark, on)))


def marks_of(kind: Kind, on: On) -> Sql:
    """The kind's row predicate; on array items, true where at least one element is marked (docs/semantics.md, 'Nested
    and array items')."""
    spark = spark_of(kind)
    assert spark.predicate is not None  # a row-level kind
    return on.once(_any_element(spark, on)) if on.metric.items else spark.predicate(on)


def _any_element(spark: SparkKind, on: On) -> Sql:
    """``exists(array, element -> predicate)``, and on a field of the elements ``exists(array, element ->
    element IS NOT NULL AND predicate(element.field))`` (an array inside: ``exists`` again): one expression
    per row, never NULL (a NULL array has no element that breaks the rule; a NULL element or struct holds no
    field that does)."""
    predicate = spark.predicate
    assert predicate is not None

    def breaks(value: Sql, data_type: T.DataType, way: tuple[str, ...]) -> Sql:
        if not way:
            element = StructField(on.field.name, data_type, True)  # the element's value has no column of its own
            return X.counted(predicate(replace(on, fields=(element,), columns=(value,), below=None)))
        step, rest = way[0], way[1:]
        if step == "*":
            assert isinstance(data_type, T.ArrayType)
            return X.counted(S.exists(value, lambda inner: breaks(inner, data_type.elementType, rest)))
        field = element_field(data_type, step)
        return value.is_not_null() & breaks(value.field(field.name), field.dataType, rest)

    return breaks(on.column, on.field.dataType, ("*", *on.metric.element))
