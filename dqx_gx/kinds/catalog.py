"""Every metric kind and value constraint, each declared once (SPEC §1, §3 and §5).

A declaration is read by everything that deals with its kind: the contract's
words (``MetricRule.expression``), the GX expectation and metric provider
(``dqx_gx.expectations``), the type check (``dqx_gx.spark.columns``), the reports
and the row gate. The model is Databricks DQX's ``register_rule``: a rule is a
named function producing Spark column expressions, here with its words, accepted
column types and the kind of number it gives beside it.

Spark is bound on first use (:class:`~dqx_gx.lazy.LazyModule`), so loading a
contract never imports it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from functools import reduce
from typing import TYPE_CHECKING, Any

from dqx_gx.kinds.kind import (
    ANY_TYPE,
    COMPOSITES,
    NUMBERS,
    Accepts,
    Arity,
    BatchOnly,
    ConstraintCheck,
    Kind,
    Marks,
    On,
    Param,
    Pass,
    Reach,
    Refine,
    Spark,
    SparkExpression,
    TypeFamily,
    Value,
)
from dqx_gx.kinds.metric import ConstraintKind, Metric, MetricKind, Scalar
from dqx_gx.lazy import LazyModule
from dqx_gx.rules import partitions
from dqx_gx.rules.timestamps import epoch_micros

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    from pyspark.sql.types import StructField

    from dqx_gx.spark import expressions as X
    from dqx_gx.spark import formats
    from dqx_gx.spark import quantiles as Q
else:
    F = LazyModule("pyspark.sql.functions")
    T = LazyModule("pyspark.sql.types")
    X = LazyModule("dqx_gx.spark.expressions")
    formats = LazyModule("dqx_gx.spark.formats")
    Q = LazyModule("dqx_gx.spark.quantiles")

# --- the column types kinds accept --------------------------------------------------------------------

SINGLE_VALUES = Accepts("compares single values", refused=COMPOSITES)
TEXT_VALUES = Accepts("matches text", refused=COMPOSITES | {TypeFamily.BINARY})
COMPARABLE = Accepts("cannot compare map values", refused=frozenset({TypeFamily.MAP}), nested=True)
NUMERIC = Accepts("needs a numeric column", allowed=NUMBERS)
NUMERIC_OR_BOOLEAN = Accepts("needs a numeric column", allowed=NUMBERS | {TypeFamily.BOOLEAN})
INSTANTS = Accepts("needs a date or timestamp column", allowed=frozenset({TypeFamily.DATE, TypeFamily.TIMESTAMP}))
TEXT = Accepts("applies to text", allowed=frozenset({TypeFamily.TEXT}))
ARRAYS = Accepts("applies to arrays", allowed=frozenset({TypeFamily.ARRAY}))

_LENGTH_OF = {"string": TypeFamily.TEXT, "list": TypeFamily.ARRAY, "map": TypeFamily.MAP}


def _lengths(metric: Metric) -> Accepts:
    wanted = _LENGTH_OF.get(metric.column_type or "")
    allowed = frozenset({wanted}) if wanted else frozenset()
    return Accepts(f"with column_type {metric.column_type!r} needs a {metric.column_type} column", allowed=allowed)


def _bound(value: Scalar) -> Accepts:
    if isinstance(value, str):
        return Accepts(f"{value!r} is a date/time bound", allowed=frozenset({TypeFamily.DATE, TypeFamily.TIMESTAMP}))
    return NUMERIC


WHOLE_BATCH = BatchOnly("a number of the whole batch, not of any row")

# --- value constraints (logicalTypeOptions, the native pattern check) --------------------------------------


def _literal(field: StructField, value: Any) -> Column:
    """A bound as a Spark literal: an ISO date/time string becomes an exact instant of the column's type."""
    return X.temporal_literal(field, value) if isinstance(value, str) else F.lit(value)


CONSTRAINTS: Mapping[ConstraintKind, ConstraintCheck] = {
    check.kind: check
    for check in (
        ConstraintCheck(
            ConstraintKind.MIN_LENGTH, "length({column}) < {value}", TEXT, lambda c, f, v: F.length(c) < F.lit(v)
        ),
        ConstraintCheck(
            ConstraintKind.MAX_LENGTH, "length({column}) > {value}", TEXT, lambda c, f, v: F.length(c) > F.lit(v)
        ),
        ConstraintCheck(ConstraintKind.PATTERN, "{column} !~ /{value}/", TEXT, lambda c, f, v: ~c.rlike(v)),
        ConstraintCheck(
            ConstraintKind.FORMAT,
            "{column} is not a valid {value}",
            TEXT,
            lambda c, f, v: ~c.rlike(formats.FORMAT_PATTERNS[v]),
        ),
        ConstraintCheck(ConstraintKind.MINIMUM, "{column} < {shown}", _bound, lambda c, f, v: c < _literal(f, v)),
        ConstraintCheck(ConstraintKind.MAXIMUM, "{column} > {shown}", _bound, lambda c, f, v: c > _literal(f, v)),
        ConstraintCheck(
            ConstraintKind.EXCLUSIVE_MINIMUM, "{column} <= {shown}", _bound, lambda c, f, v: c <= _literal(f, v)
        ),
        ConstraintCheck(
            ConstraintKind.EXCLUSIVE_MAXIMUM, "{column} >= {shown}", _bound, lambda c, f, v: c >= _literal(f, v)
        ),
        ConstraintCheck(
            ConstraintKind.MULTIPLE_OF,
            "{column} % {value} != 0",
            Accepts("applies to integer columns", allowed=frozenset({TypeFamily.INTEGER})),
            lambda c, f, v: F.pmod(c, F.lit(v)) != 0,
        ),
        ConstraintCheck(
            ConstraintKind.MIN_ITEMS, "size({column}) < {value}", ARRAYS, lambda c, f, v: F.size(c) < F.lit(v)
        ),
        ConstraintCheck(
            ConstraintKind.MAX_ITEMS, "size({column}) > {value}", ARRAYS, lambda c, f, v: F.size(c) > F.lit(v)
        ),
        ConstraintCheck(
            ConstraintKind.UNIQUE_ITEMS,
            "{column} has repeated items",
            Accepts(
                "applies to arrays of comparable items",
                allowed=frozenset({TypeFamily.ARRAY}),
                refused=frozenset({TypeFamily.MAP}),
                nested=True,
            ),
            lambda c, f, v: F.size(F.array_distinct(c)) != F.size(c),
        ),
    )
}


def _violation(on: On) -> Column:
    """True for a non-null value breaking the metric's constraint."""
    constraint = on.metric.constraint
    assert constraint is not None
    return on.column.isNotNull() & CONSTRAINTS[constraint.kind].violates(on.column, on.field, constraint.value)


def _violation_words(metric: Metric) -> str:
    assert metric.constraint is not None
    check = CONSTRAINTS[metric.constraint.kind]
    return f"count_if({check.describe(', '.join(metric.columns), metric.constraint.value)})"


def _violation_row_words(metric: Metric) -> str:
    assert metric.constraint is not None
    return CONSTRAINTS[metric.constraint.kind].describe(", ".join(metric.columns), metric.constraint.value)


def _violation_accepts(metric: Metric) -> Accepts:
    assert metric.constraint is not None
    return CONSTRAINTS[metric.constraint.kind].accepts_for(metric.constraint.value)


# --- the kinds ------------------------------------------------------------------------------------------


def _is_in(on: On) -> Column:
    return X.is_in(on.column, on.field, on.metric.values)


def _distinct(on: On) -> Column:
    """``COUNT(DISTINCT c)`` (NULLs not counted) or, for several columns, of the row tuple (NULL members count)."""
    return F.count_distinct(on.column if len(on.columns) == 1 else F.struct(*on.columns))


def _duplicated(on: On) -> Column:
    """The rows whose key occurs more than once; for one column also every NULL key, which the
    metric counts as a duplicate (``COUNT(DISTINCT c)`` leaves NULLs out)."""
    assert on.repeated is not None, "key-reach marks need the repeated keys (dqx_gx.rows.marks)"
    return on.column.isNull() | on.repeated if len(on.columns) == 1 else on.repeated


def _duplicated_words(metric: Metric) -> str:
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} is NULL or occurs in more than one row"
    return f"({', '.join(metric.columns)}) occurs in more than one row"


def _unreferenced(on: On) -> Column:
    """The rows whose key has no NULL and is no key of the referenced dataset (SQL's MATCH SIMPLE: a key
    with a NULL references nothing and breaks nothing)."""
    assert on.found is not None, "reference marks need the referenced keys joined in (dqx_gx.spark.references)"
    whole = reduce(operator.and_, [column.isNotNull() for column in on.columns])
    return whole & ~on.found


def _referenced(metric: Metric) -> str:
    """``customer_id → customers.id``; a composite key ``(a, b) → orders.(x, y)``."""
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} → {metric.reference}.{metric.reference_columns[0]}"
    return f"({', '.join(metric.columns)}) → {metric.reference}.({', '.join(metric.reference_columns)})"


def _unreferenced_words(metric: Metric) -> str:
    keys = metric.columns[0] if len(metric.columns) == 1 else f"({', '.join(metric.columns)})"
    return f"{keys} is not a key of {metric.reference} ({', '.join(metric.reference_columns)})"


BREAKS_THE_BOUND = Marks(
    lambda on: on.column.isNotNull() & ~X.within(on.column.cast("double"), on.interval),
    "{columns} alone breaks the rule's bound",
    Reach.BOUNDS,
)
"""Custom min/max with an operator: a row whose value alone would fail the rule (``max(c) < 100`` marks c ≥ 100)."""


def _sum(on: On) -> Column:
    """Exact for integers: summed as decimal(38,0), as DuckDB sums into a 128-bit integer."""
    column = on.column.cast("decimal(38,0)") if isinstance(on.field.dataType, T.IntegralType) else on.column
    return X.with_nan_flag(F.try_sum(column))


def _length(statistic: str) -> SparkExpression:
    def aggregate(on: On) -> Column:
        size = F.length(on.column) if on.metric.column_type == "string" else F.size(on.column)
        return X.with_nan_flag(getattr(F, statistic)(F.when(on.column.isNotNull(), size)))

    return aggregate


_ORDER_STATISTICS = (
    "struct<n:bigint,nans:bigint,below:bigint,before:double,low:double,at_low:bigint,inside:array<double>,"
    "high:double,at_high:bigint,after:double,scale:int>"
)
"""The Spark type of ``quantiles.order_statistics`` (a literal here: declaring imports no Spark)."""


def _fraction(metric: Metric) -> float:
    """A percentile metric's fraction (0.95 for p95)."""
    return float(metric.percentile or 0.0)


def _instant(on: On) -> Column:
    value = F.max(on.column) if on.metric.aggregation == "max" else F.min(on.column)
    return X.instant_micros(value, on.field)


def _freshness_words(metric: Metric) -> str:
    columns = ", ".join(metric.columns)
    return f"freshness_hours({columns}, oldest)" if metric.aggregation == "min" else f"freshness_hours({columns})"


def _partition_in_window(on: On) -> Column:
    """Each row's partition start (epoch microseconds) from the window's first expected partition on;
    rows of the period holding "now" or later all give the window's end, which only says that later
    data exists (SPEC §7's "latest present partition"). NULL before the window or for NULL values, so
    the distinct values are at most one per expected partition, plus one."""
    metric = on.metric
    assert on.now is not None and metric.granularity is not None and metric.lookback_days is not None
    span = partitions.window(on.now, partitions.Granularity(metric.granularity), metric.lookback_days)
    start = X.partition_start(on.column, on.field, metric.granularity)
    return F.when(start >= F.lit(epoch_micros(span.start)), F.least(start, F.lit(epoch_micros(span.end))))


def _gaps_words(metric: Metric) -> str:
    assert metric.granularity is not None and metric.lookback_days is not None
    return partitions.describe(
        ", ".join(metric.columns), metric.granularity, metric.lookback_days, allow_future_gaps=metric.allow_future_gaps
    )


def _statistic(
    expectation: str,
    metric: MetricKind,
    accepts: Accepts | Callable[[Metric], Accepts],
    aggregate: SparkExpression,
    marks: Marks | BatchOnly = WHOLE_BATCH,
    **more: Any,
) -> Kind:
    """A floating statistic of the column's non-null values, read back as ``[value, is_nan]``."""
    return Kind(
        metric,
        reads=f"{metric.value}({{columns}})",
        accepts=accepts,
        value=Value.NUMBER,
        spark=Spark(aggregate, marks, result_type="struct<v:double,nan:boolean>"),
        expectation=expectation,
        shows_values=Param.COLUMN_TYPE not in more.get("params", ()),
        **more,
    )


KINDS: Mapping[MetricKind, Kind] = {
    kind.metric: kind
    for kind in (
        Kind(
            MetricKind.NUM_ROWS,
            reads="num_rows()",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            spark=Spark(lambda on: X.num_rows(), WHOLE_BATCH),
            expectation="expect_dqx_row_count",
            arity=Arity.NONE,
        ),
        Kind(
            MetricKind.NULL_COUNT,
            reads="null_count({columns})",
            accepts=ANY_TYPE,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.count_if(on.column.isNull()), Marks(lambda on: on.column.isNull(), "{columns} is NULL")
            ),
            expectation="expect_dqx_null_count",
        ),
        Kind(
            MetricKind.MISSING_COUNT,
            reads="null_count({columns}) + count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.count_if(on.column.isNull()) + X.count_if(_is_in(on)),
                Marks(lambda on: on.column.isNull() | X.counted(_is_in(on)), "{columns} is NULL or one of {values}"),
            ),
            expectation="expect_dqx_missing_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.INVALID_COUNT,
            reads="num_rows() - count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.num_rows() - X.count_if(_is_in(on)),
                Marks(lambda on: ~X.counted(_is_in(on)), "{columns} is not one of {values}"),
            ),
            expectation="expect_dqx_invalid_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.COUNT_VALUES,
            reads="count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.count_if(_is_in(on)),
                Marks(lambda on: X.counted(_is_in(on)), "{columns} is one of {values}"),
            ),
            expectation="expect_dqx_value_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.PATTERN_INVALID_COUNT,
            reads="num_rows() - count_matching({columns}, /{pattern}/)",
            accepts=TEXT_VALUES,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.num_rows() - X.count_if(X.matches(on.column, str(on.metric.pattern))),
                Marks(
                    lambda on: ~X.counted(X.matches(on.column, str(on.metric.pattern))),
                    "{columns} is NULL or does not match /{pattern}/",
                ),
            ),
            expectation="expect_dqx_pattern_invalid_count",
            params=(Param.PATTERN,),
        ),
        Kind(
            MetricKind.VIOLATION_COUNT,
            reads=_violation_words,
            accepts=_violation_accepts,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.count_if(_violation(on)), Marks(lambda on: X.counted(_violation(on)), _violation_row_words)
            ),
            expectation="expect_dqx_violation_count",
            params=(Param.CONSTRAINT,),
        ),
        Kind(
            MetricKind.DUPLICATE_COUNT,
            reads="duplicate_count({columns})",
            accepts=COMPARABLE,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.num_rows() - _distinct(on),
                Marks(_duplicated, _duplicated_words, Reach.KEY),
                pass_=Pass.SECOND,
            ),
            expectation="expect_dqx_duplicate_count",
            arity=Arity.MANY,
        ),
        Kind(
            MetricKind.CARDINALITY,
            reads="cardinality({columns})",
            accepts=COMPARABLE,
            value=Value.COUNT,
            spark=Spark(_distinct, WHOLE_BATCH, pass_=Pass.SECOND),
            expectation="expect_dqx_cardinality",
        ),
        Kind(
            MetricKind.COUNT,
            reads="count({columns})",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            spark=Spark(lambda on: X.num_rows() - X.count_if(on.column.isNull()), WHOLE_BATCH),
            expectation="expect_dqx_count",
        ),
        _statistic(
            "expect_dqx_min",
            MetricKind.MIN,
            NUMERIC_OR_BOOLEAN,
            lambda on: X.with_nan_flag(F.min(on.column)),
            marks=BREAKS_THE_BOUND,
        ),
        _statistic(
            "expect_dqx_max",
            MetricKind.MAX,
            NUMERIC_OR_BOOLEAN,
            lambda on: X.with_nan_flag(F.max(on.column)),
            marks=BREAKS_THE_BOUND,
        ),
        _statistic("expect_dqx_mean", MetricKind.MEAN, NUMERIC, lambda on: X.with_nan_flag(F.try_avg(on.column))),
        _statistic("expect_dqx_sum", MetricKind.SUM, NUMERIC, _sum),
        _statistic(
            "expect_dqx_variance",
            MetricKind.VARIANCE,
            NUMERIC,
            lambda on: X.with_nan_flag(F.var_samp(on.column.cast("double"))),
        ),
        _statistic(
            "expect_dqx_stddev",
            MetricKind.STDDEV,
            NUMERIC,
            lambda on: X.with_nan_flag(F.sqrt(F.var_samp(on.column.cast("double")))),
        ),
        Kind(
            MetricKind.PERCENTILE,
            reads="percentile({columns}, {percentile})",
            accepts=NUMERIC,
            value=Value.NUMBER,
            spark=Spark(
                lambda on: Q.bracket(on.column, _fraction(on.metric)),
                WHOLE_BATCH,
                result_type="array<double>",
                refine=Refine(
                    lambda on, bounds: Q.order_statistics(on.column, bounds, on.field),
                    lambda metric, found: Q.quantile_cont(_fraction(metric), found),
                    lambda on: Q.exact(on.column, _fraction(on.metric)),
                    result_type=_ORDER_STATISTICS,
                ),
            ),
            expectation="expect_dqx_percentile",
            params=(Param.PERCENTILE,),
            shows_values=True,
        ),
        _statistic(
            "expect_dqx_min_length", MetricKind.MIN_LENGTH, _lengths, _length("min"), params=(Param.COLUMN_TYPE,)
        ),
        _statistic(
            "expect_dqx_max_length", MetricKind.MAX_LENGTH, _lengths, _length("max"), params=(Param.COLUMN_TYPE,)
        ),
        _statistic(
            "expect_dqx_avg_length", MetricKind.AVG_LENGTH, _lengths, _length("avg"), params=(Param.COLUMN_TYPE,)
        ),
        Kind(
            MetricKind.FRESHNESS_HOURS,
            reads=_freshness_words,
            accepts=INSTANTS,
            value=Value.AGE,
            spark=Spark(_instant, WHOLE_BATCH),
            expectation="expect_dqx_freshness",
            params=(Param.AGGREGATION,),
            subject="freshness",
            shows_values=True,
        ),
        Kind(
            MetricKind.MISSING_PARTITIONS,
            reads=_gaps_words,
            accepts=INSTANTS,
            value=Value.GAPS,
            spark=Spark(
                _partition_in_window,
                BatchOnly("a count of missing time partitions: a gap is the absence of rows"),
                pass_=Pass.OWN,
            ),
            expectation="expect_dqx_missing_partitions",
            params=(Param.GRANULARITY, Param.LOOKBACK_DAYS, Param.ALLOW_FUTURE_GAPS),
            subject="completeness",
            shows_values=True,  # the missing periods it names are values of the column
        ),
        Kind(
            MetricKind.MISSING_REFERENCE_COUNT,
            reads=lambda metric: f"missing_reference_count({_referenced(metric)})",
            accepts=COMPARABLE,
            value=Value.ROWS,
            spark=Spark(
                lambda on: X.count_if(_unreferenced(on)),
                Marks(_unreferenced, _unreferenced_words, Reach.REFERENCE),
                pass_=Pass.REFERENCE,
            ),
            expectation="expect_dqx_missing_reference_count",
            arity=Arity.MANY,
            params=(Param.REFERENCE, Param.REFERENCE_COLUMNS),
            subject="foreign key",
        ),
    )
}


def kind_of(metric: Metric | MetricKind) -> Kind:
    """The declaration of a metric's kind."""
    return KINDS[metric.kind if isinstance(metric, Metric) else metric]
