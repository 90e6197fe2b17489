"""Every metric kind and value constraint, each declared once (SPEC §1, §3 and §5): the engine-neutral half.

A declaration is read by everything that deals with its kind: the contract's
words (``MetricRule.expression``), the GX expectation (``dqx_gx.expectations``),
the type check (``dqx_gx.spark.columns``), the reports and the row gate. What
Spark computes for a kind is its other half, given by the kind's name in
``dqx_gx.spark.kinds``; nothing here imports an engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

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
    Param,
    Reach,
    TypeFamily,
    Value,
)
from dqx_gx.rules import partitions
from dqx_gx.rules.metric import ConstraintKind, Metric, MetricKind, Scalar, declare_words

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

CONSTRAINTS: Mapping[ConstraintKind, ConstraintCheck] = {
    check.kind: check
    for check in (
        ConstraintCheck(ConstraintKind.MIN_LENGTH, "length({column}) < {value}", TEXT),
        ConstraintCheck(ConstraintKind.MAX_LENGTH, "length({column}) > {value}", TEXT),
        ConstraintCheck(ConstraintKind.PATTERN, "{column} !~ /{value}/", TEXT),
        ConstraintCheck(ConstraintKind.FORMAT, "{column} is not a valid {value}", TEXT),
        ConstraintCheck(ConstraintKind.MINIMUM, "{column} < {shown}", _bound),
        ConstraintCheck(ConstraintKind.MAXIMUM, "{column} > {shown}", _bound),
        ConstraintCheck(ConstraintKind.EXCLUSIVE_MINIMUM, "{column} <= {shown}", _bound),
        ConstraintCheck(ConstraintKind.EXCLUSIVE_MAXIMUM, "{column} >= {shown}", _bound),
        ConstraintCheck(
            ConstraintKind.MULTIPLE_OF,
            "{column} % {value} != 0",
            Accepts("applies to integer columns", allowed=frozenset({TypeFamily.INTEGER})),
        ),
        ConstraintCheck(ConstraintKind.MIN_ITEMS, "size({column}) < {value}", ARRAYS),
        ConstraintCheck(ConstraintKind.MAX_ITEMS, "size({column}) > {value}", ARRAYS),
        ConstraintCheck(
            ConstraintKind.UNIQUE_ITEMS,
            "{column} has repeated items",
            Accepts(
                "applies to arrays of comparable items",
                allowed=frozenset({TypeFamily.ARRAY}),
                refused=frozenset({TypeFamily.MAP}),
                nested=True,
            ),
        ),
    )
}


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


def _duplicated_words(metric: Metric) -> str:
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} is NULL or occurs in more than one row"
    return f"({', '.join(metric.columns)}) occurs in more than one row"


def _referenced(metric: Metric) -> str:
    """``customer_id → customers.id``; a composite key ``(a, b) → orders.(x, y)``."""
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} → {metric.reference}.{metric.reference_columns[0]}"
    return f"({', '.join(metric.columns)}) → {metric.reference}.({', '.join(metric.reference_columns)})"


def _unreferenced_words(metric: Metric) -> str:
    keys = metric.columns[0] if len(metric.columns) == 1 else f"({', '.join(metric.columns)})"
    return f"{keys} is not a key of {metric.reference} ({', '.join(metric.reference_columns)})"


BREAKS_THE_BOUND = Marks("{columns} alone breaks the rule's bound", Reach.BOUNDS)
"""Custom min/max with an operator: a row whose value alone would fail the rule (``max(c) < 100`` marks c ≥ 100)."""


def _freshness_words(metric: Metric) -> str:
    columns = ", ".join(metric.columns)
    return f"freshness_hours({columns}, oldest)" if metric.aggregation == "min" else f"freshness_hours({columns})"


def _gaps_words(metric: Metric) -> str:
    assert metric.granularity is not None and metric.lookback_days is not None
    return partitions.describe(
        ", ".join(metric.columns), metric.granularity, metric.lookback_days, allow_future_gaps=metric.allow_future_gaps
    )


def _statistic(
    expectation: str,
    metric: MetricKind,
    accepts: Accepts | Callable[[Metric], Accepts],
    marks: Marks | BatchOnly = WHOLE_BATCH,
    params: tuple[Param, ...] = (),
) -> Kind:
    """A floating statistic of the column's non-null values."""
    return Kind(
        metric,
        reads=f"{metric.value}({{columns}})",
        accepts=accepts,
        value=Value.NUMBER,
        marks=marks,
        expectation=expectation,
        params=params,
        shows_values=Param.COLUMN_TYPE not in params,
    )


KINDS: Mapping[MetricKind, Kind] = {
    kind.metric: kind
    for kind in (
        Kind(
            MetricKind.NUM_ROWS,
            reads="num_rows()",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_row_count",
            arity=Arity.NONE,
        ),
        Kind(
            MetricKind.NULL_COUNT,
            reads="null_count({columns})",
            accepts=ANY_TYPE,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL"),
            expectation="expect_dqx_null_count",
        ),
        Kind(
            MetricKind.MISSING_COUNT,
            reads="null_count({columns}) + count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL or one of {values}"),
            expectation="expect_dqx_missing_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.INVALID_COUNT,
            reads="num_rows() - count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is not one of {values}"),
            expectation="expect_dqx_invalid_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.COUNT_VALUES,
            reads="count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is one of {values}"),
            expectation="expect_dqx_value_count",
            params=(Param.VALUES,),
        ),
        Kind(
            MetricKind.PATTERN_INVALID_COUNT,
            reads="num_rows() - count_matching({columns}, /{pattern}/)",
            accepts=TEXT_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL or does not match /{pattern}/"),
            expectation="expect_dqx_pattern_invalid_count",
            params=(Param.PATTERN,),
        ),
        Kind(
            MetricKind.VIOLATION_COUNT,
            reads=_violation_words,
            accepts=_violation_accepts,
            value=Value.ROWS,
            marks=Marks(_violation_row_words),
            expectation="expect_dqx_violation_count",
            params=(Param.CONSTRAINT,),
        ),
        Kind(
            MetricKind.DUPLICATE_COUNT,
            reads="duplicate_count({columns})",
            accepts=COMPARABLE,
            value=Value.ROWS,
            marks=Marks(_duplicated_words, Reach.KEY),
            expectation="expect_dqx_duplicate_count",
            arity=Arity.MANY,
        ),
        Kind(
            MetricKind.CARDINALITY,
            reads="cardinality({columns})",
            accepts=COMPARABLE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_cardinality",
        ),
        Kind(
            MetricKind.COUNT,
            reads="count({columns})",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_count",
        ),
        _statistic("expect_dqx_min", MetricKind.MIN, NUMERIC_OR_BOOLEAN, marks=BREAKS_THE_BOUND),
        _statistic("expect_dqx_max", MetricKind.MAX, NUMERIC_OR_BOOLEAN, marks=BREAKS_THE_BOUND),
        _statistic("expect_dqx_mean", MetricKind.MEAN, NUMERIC),
        _statistic("expect_dqx_sum", MetricKind.SUM, NUMERIC),
        _statistic("expect_dqx_variance", MetricKind.VARIANCE, NUMERIC),
        _statistic("expect_dqx_stddev", MetricKind.STDDEV, NUMERIC),
        Kind(
            MetricKind.PERCENTILE,
            reads="percentile({columns}, {percentile})",
            accepts=NUMERIC,
            value=Value.NUMBER,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_percentile",
            params=(Param.PERCENTILE,),
            shows_values=True,
        ),
        _statistic("expect_dqx_min_length", MetricKind.MIN_LENGTH, _lengths, params=(Param.COLUMN_TYPE,)),
        _statistic("expect_dqx_max_length", MetricKind.MAX_LENGTH, _lengths, params=(Param.COLUMN_TYPE,)),
        _statistic("expect_dqx_avg_length", MetricKind.AVG_LENGTH, _lengths, params=(Param.COLUMN_TYPE,)),
        Kind(
            MetricKind.FRESHNESS_HOURS,
            reads=_freshness_words,
            accepts=INSTANTS,
            value=Value.AGE,
            marks=WHOLE_BATCH,
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
            marks=BatchOnly("a count of missing time partitions: a gap is the absence of rows"),
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
            marks=Marks(_unreferenced_words, Reach.REFERENCE),
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


declare_words({metric: kind.describe for metric, kind in KINDS.items()})
