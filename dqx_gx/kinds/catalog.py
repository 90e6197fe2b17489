"""Every metric kind and value constraint, each declared once (docs/semantics.md, 'Rules and what they compute'): the
engine-neutral half.

A kind is its name in :class:`MetricKind` and its :class:`~dqx_gx.kinds.kind.Kind` in :data:`KINDS`,
with its parameters and words; a parameter only one kind takes is declared beside it here. A declaration
is read by everything that deals with its kind: the contract's parsers and words (``MetricRule.expression``),
the GX expectation (``dqx_gx.expectations``), the type check (``dqx_gx.spark.columns``), the reports and
the row gate. What Spark computes for a kind is its other half, given by the kind's name in
``dqx_gx.spark.kinds``; nothing here imports an engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from dqx_gx.kinds.kind import (
    ANY_TYPE,
    COMPOSITES,
    NUMBERS,
    Accepts,
    Arity,
    BatchOnly,
    ConstraintCheck,
    DqlibMetrics,
    Extreme,
    Kind,
    Marks,
    Reach,
    TypeFamily,
    Unstated,
    Value,
    columns_text,
)
from dqx_gx.kinds.params import (
    AGGREGATION,
    ALLOW_FUTURE_GAPS,
    COLUMN_TYPE,
    CONSTRAINT,
    GRANULARITY,
    LOOKBACK_DAYS,
    NATIVE_PERCENTILE,
    NATIVE_VALUES,
    PERCENTILE,
    REFERENCE,
    REFERENCE_COLUMNS,
    VALUES,
    Param,
    whole_number,
)
from dqx_gx.kinds.params import PATTERN as PATTERN_PARAM
from dqx_gx.kinds.words import (
    CASE_SENSITIVE,
    COLUMN,
    COLUMNS,
    FLAGS,
    FORMAT,
    MAX_AGE_HOURS,
    MAX_GAP_COUNT,
    PARTITION_COLUMN,
    PATTERN,
    RETURN,
    TIMESTAMP_COLUMN,
    VALIDATORS,
    Check,
    Example,
    Format,
    Library,
    Option,
    Place,
    Words,
)
from dqx_gx.rules import partitions
from dqx_gx.rules.metric import ConstraintKind, Metric, Scalar


class MetricKind(StrEnum):
    """Every kind by its name (DQX's metric name), which metrics carry; its declaration is :data:`KINDS`'s."""

    NUM_ROWS = "num_rows"
    NULL_COUNT = "null_count"
    FIELD_NULL_COUNT = "field_null_count"
    MISSING_COUNT = "missing_count"
    INVALID_COUNT = "invalid_count"
    COUNT_VALUES = "count_values"
    UNLISTED_COUNT = "unlisted_count"
    PATTERN_INVALID_COUNT = "pattern_invalid_count"
    DUPLICATE_COUNT = "duplicate_count"
    CARDINALITY = "cardinality"
    MIN = "min"
    MAX = "max"
    MEAN = "mean"
    SUM = "sum"
    COUNT = "count"
    VARIANCE = "variance"
    STDDEV = "stddev"
    PERCENTILE = "percentile"
    MIN_LENGTH = "min_length"
    MAX_LENGTH = "max_length"
    AVG_LENGTH = "avg_length"
    FRESHNESS_HOURS = "freshness_hours"
    VIOLATION_COUNT = "violation_count"
    MISSING_PARTITIONS = "missing_partitions"
    MISSING_REFERENCE_COUNT = "missing_reference_count"
    LENGTH_OUTSIDE_COUNT = "length_outside_count"
    FUTURE_COUNT = "future_count"

    @property
    def declared(self) -> Kind:
        """Its declaration."""
        return KINDS[self]

    def describe(self, metric: Metric) -> str:
        return KINDS[self].describe(metric)

    def settled(self, given: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        return KINDS[self].settled(given)

    def reference_of(self, metric: Metric) -> str | None:
        return KINDS[self].reference_of(metric)

    def default_of(self, name: str) -> Any:
        """The default of the parameter ``name`` as the kinds declare it, which a metric of a kind without
        it reads (``metric.values`` of a null count: no values); AttributeError when no kind takes it."""
        for kind in KINDS.values():
            for param in kind.params:
                if param.name == name:
                    return param.default
        raise AttributeError(f"no kind takes a parameter {name!r}")


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
    column_type = COLUMN_TYPE.of(metric)
    wanted = _LENGTH_OF.get(column_type or "")
    allowed = frozenset({wanted}) if wanted else frozenset()
    return Accepts(f"with column_type {column_type!r} needs a {column_type} column", allowed=allowed)


def _bound(value: Scalar) -> Accepts:
    if isinstance(value, str):
        return Accepts(f"{value!r} is a date/time bound", allowed=frozenset({TypeFamily.DATE, TypeFamily.TIMESTAMP}))
    return NUMERIC


WHOLE_BATCH = BatchOnly("a number of the whole batch, not of any row")

COMPLETENESS_OPTIONS = (
    GRANULARITY.option,
    LOOKBACK_DAYS.option,
    ALLOW_FUTURE_GAPS.option,
    MAX_GAP_COUNT,
    PARTITION_COLUMN,
)

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


def _struct(metric: Metric) -> str:
    """The struct holding a field (``delivery`` of ``delivery.note``)."""
    return metric.columns[0].rpartition(".")[0]


def _violation_row_words(metric: Metric) -> str:
    constraint = CONSTRAINT.of(metric)
    return CONSTRAINTS[constraint.kind].describe(columns_text(metric), constraint.value)


def _violation_accepts(metric: Metric) -> Accepts:
    constraint = CONSTRAINT.of(metric)
    return CONSTRAINTS[constraint.kind].accepts_for(constraint.value)


# --- the kinds ------------------------------------------------------------------------------------------


def _duplicated_words(metric: Metric) -> str:
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} is NULL or occurs in more than one row"
    return f"({', '.join(metric.columns)}) occurs in more than one row"


def _referenced(metric: Metric) -> str:
    """``customer_id → customers.id``; a composite key ``(a, b) → orders.(x, y)``."""
    theirs = REFERENCE_COLUMNS.of(metric)
    if len(metric.columns) == 1:
        return f"{metric.columns[0]} → {REFERENCE.of(metric)}.{theirs[0]}"
    return f"({', '.join(metric.columns)}) → {REFERENCE.of(metric)}.({', '.join(theirs)})"


def _unreferenced_words(metric: Metric) -> str:
    keys = metric.columns[0] if len(metric.columns) == 1 else f"({', '.join(metric.columns)})"
    return f"{keys} is not a key of {REFERENCE.of(metric)} ({', '.join(REFERENCE_COLUMNS.of(metric))})"


def _breaks_the_bound(extreme: Extreme) -> Marks:
    """Custom min/max with an operator: a row whose value alone would fail the rule (``max(c) < 100`` marks
    c ≥ 100)."""
    return Marks("{columns} alone breaks the rule's bound", Reach.BOUNDS, extreme)


def _freshness_words(metric: Metric) -> str:
    columns = ", ".join(metric.columns)
    return f"freshness_hours({columns}, oldest)" if AGGREGATION.of(metric) == "min" else f"freshness_hours({columns})"


def _gaps_words(metric: Metric) -> str:
    return partitions.describe(
        ", ".join(metric.columns),
        GRANULARITY.of(metric),
        LOOKBACK_DAYS.of(metric),
        allow_future_gaps=ALLOW_FUTURE_GAPS.of(metric),
    )


def _dqx(name: str, *takes: Option, needs: tuple[str, ...] = ()) -> Check:
    """A DQX check of one column, named in an ODCS rule's ``implementation``."""
    return Check(name, Format.DQX, (COLUMN, *takes), ("column", *needs), column_options=("column",))


def _native(name: str, *takes: Option, needs: tuple[str, ...] = ()) -> Check:
    """A check of a native column."""
    return Check(name, Format.NATIVE_COLUMN, takes, needs)


def _dqx_example(check: str, column: str, bound: str, *more: str) -> Example:
    lines = "".join(f"\n  {line}" for line in (f"check: {check}", f"column: {column}", *more))
    return Example(Place.QUALITY, f"type: custom\nengine: dqx\nimplementation:{lines}\n{bound}", column)


def _native_example(check: str, column: str, name: str, *more: str) -> Example:
    return Example(Place.NATIVE_COLUMN, "\n".join((f"type: {check}", f"name: {name}", *more)), column)


def _statistic(
    expectation: str,
    metric: MetricKind,
    accepts: Accepts | Callable[[Metric], Accepts],
    description: str,
    examples: tuple[Example, ...],
    *,
    marks: Marks | BatchOnly = WHOLE_BATCH,
    params: tuple[Param[Any], ...] = (),
    dqlib: Callable[[Metric, DqlibMetrics], Any] | None = None,
) -> Kind:
    """A floating statistic of the column's non-null values, named alike in DQX and native checks."""
    lengths = (COLUMN_TYPE.option,) if COLUMN_TYPE in params else ()
    return Kind(
        metric,
        reads=f"{metric.value}({{columns}})",
        accepts=accepts,
        value=Value.NUMBER,
        marks=marks,
        expectation=expectation,
        words=Words(
            description,
            examples,
            checks=(
                _dqx(metric.value, *lengths, needs=tuple(o.name for o in lengths)),
                _native(metric.value),
            ),
        ),
        params=params,
        shows_values=COLUMN_TYPE not in params,
        dqlib=dqlib,
    )


# --- the parameters only one kind takes ------------------------------------------------------------------


_LONGEST = 2**31 - 1
"""No Spark string or array is longer: a larger limit would fail the pass that measures every rule."""


def _limit(name: str, description: str) -> Param[int]:
    return Param(
        name,
        int,
        read=whole_number,
        holds="whole number ≥ 0",
        description=description,
        schema={
            "type": "integer",
            "minimum": 0,
            "maximum": _LONGEST,
            "x-message": f"{name} must be a whole number from 0 to {_LONGEST}, got: {{value}}",
        },
        needs="(a whole number)",
        exclusive=True,
    )


MIN_LENGTH = _limit("min_length", "The shortest length allowed (characters of a string, items of an array).")
MAX_LENGTH = _limit("max_length", "The longest length allowed.")
_LIMITS = (MIN_LENGTH.name, MAX_LENGTH.name)


def _reversed_limits(metric: Metric) -> str | None:
    low, high = MIN_LENGTH.of(metric), MAX_LENGTH.of(metric)
    return f"min_length {low} is greater than max_length {high}; give the shorter first" if low > high else None


_FARTHEST = 10**12
"""Seconds, about 31,700 years: the moment plus it stays an exact Spark bigint of microseconds."""

OFFSET: Param[int] = Param(
    "offset",
    int,
    default=0,
    read=whole_number,
    holds="whole number of seconds",
    description="Added to the run's moment: a value later than the moment plus this many seconds is in the "
    "future (negative: that many seconds before the moment).",
    schema={
        "allOf": [
            {"type": "integer", "x-message": "offset must be a whole number of seconds, got: {value}"},
            {
                "minimum": -_FARTHEST,
                "maximum": _FARTHEST,
                "x-message": f"offset must be at most {_FARTHEST} seconds either way, got: {{value}}",
            },
        ]
    },
    exclusive=True,
    when_absent=0,
)


def _moment(metric: Metric) -> str:
    """``now()``, ``now() + 3600s`` or ``now() - 60s``: the instant a future value is after."""
    offset = OFFSET.of(metric)
    return "now()" if offset == 0 else f"now() {'+' if offset > 0 else '-'} {abs(offset)}s"


def _one(metric: Metric) -> str:
    """The column of a metric of one column."""
    return metric.columns[0]


def _negative_count(metric: Metric, dqlib: DqlibMetrics) -> Any:
    """dqlib counts the values breaking one constraint only, a minimum of 0 (``NegativeCount``)."""
    constraint = CONSTRAINT.of(metric)
    if constraint.kind is ConstraintKind.MINIMUM and constraint.value == 0:
        return dqlib.negative_count(_one(metric))
    raise Unstated


KINDS: Mapping[str, Kind] = {
    MetricKind(kind.name): kind
    for kind in (
        Kind(
            MetricKind.NULL_COUNT,
            reads="null_count({columns})",
            accepts=ANY_TYPE,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL"),
            expectation="expect_dqx_null_count",
            words=Words(
                "Rows whose value is NULL.",
                (
                    Example(Place.QUALITY, "metric: nullValues\nmustBe: 0"),
                    _dqx_example("missing", "status", "mustBeLessThan: 0.01", "return: pct"),
                    _native_example("missing", "order_id", "order_id is always given", "equals: 0"),
                ),
                checks=(_dqx("missing", RETURN), _native("missing", RETURN)),
                library=(Library("nullValues"), Library("missingValues")),
            ),
            dqlib=lambda m, dqlib: dqlib.null_count(_one(m)),
        ),
        Kind(
            MetricKind.FIELD_NULL_COUNT,
            reads=lambda metric: f"null_count({columns_text(metric)} where {_struct(metric)} is not NULL)",
            accepts=ANY_TYPE,
            value=Value.ROWS,
            marks=Marks(lambda metric: f"{columns_text(metric)} is NULL while {_struct(metric)} is not"),
            expectation="expect_dqx_field_null_count",
            words=Words(
                "Rows whose struct is there but whose field is NULL: a required field of an object. A row whose "
                "struct is NULL is the struct's own `required` rule's business (an optional struct may be absent).",
                (
                    Example(
                        Place.PROPERTY,
                        "logicalType: object\nproperties:\n  - name: note\n    logicalType: string\n    required: true",
                        "delivery",
                    ),
                ),
                elsewhere="An ODCS property's `required` on a field of an object (a struct field, by its path).",
            ),
        ),
        Kind(
            MetricKind.MISSING_COUNT,
            reads="null_count({columns}) + count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL or one of {values}"),
            expectation="expect_dqx_missing_count",
            words=Words(
                "Rows whose value is NULL or one of the values that stand for a missing one.",
                (
                    Example(
                        Place.QUALITY,
                        "metric: missingValues\narguments:\n  missingValues: ['', 'n/a']\nmustBeLessThan: 5\n"
                        "unit: percent",
                        "status",
                    ),
                ),
                library=(Library("missingValues", "missingValues"),),
            ),
            params=(VALUES,),
            dqlib=lambda m, dqlib: dqlib.null_count(_one(m)) + dqlib.count_values(_one(m), VALUES.of(m)),
        ),
        Kind(
            MetricKind.DUPLICATE_COUNT,
            reads="duplicate_count({columns})",
            accepts=COMPARABLE,
            value=Value.ROWS,
            marks=Marks(_duplicated_words, Reach.KEY),
            expectation="expect_dqx_duplicate_count",
            words=Words(
                "Rows minus distinct values (of one column, or of several columns together): NULL keys count "
                "as duplicates.",
                (
                    Example(Place.QUALITY, "metric: duplicateValues\nmustBe: 0"),
                    _dqx_example("duplicates", "customer_id", "mustBeLessOrEqualTo: 10"),
                    _native_example("duplicates", "order_id", "order_id is unique", "equals: 0"),
                    Example(
                        Place.NATIVE_TABLE,
                        "type: duplicates\nname: one row per customer and day\ncolumns: [customer_id, ordered_at]\n"
                        "equals: 0",
                    ),
                ),
                checks=(
                    _dqx("duplicates", RETURN),
                    _native("duplicates", RETURN),
                    Check(
                        "duplicates", Format.NATIVE_TABLE, (COLUMNS, RETURN), ("columns",), column_options=("columns",)
                    ),
                ),
                library=(Library("duplicateValues", "properties"),),
            ),
            arity=Arity.MANY,
            dqlib=lambda m, dqlib: dqlib.duplicate_count(m.columns),
        ),
        Kind(
            MetricKind.INVALID_COUNT,
            reads="num_rows() - count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is not one of {values}"),
            expectation="expect_dqx_invalid_count",
            words=Words(
                "Rows whose value is not one of the valid values (NULL is never valid).",
                (
                    Example(
                        Place.QUALITY,
                        "metric: invalidValues\narguments:\n  validValues: [open, shipped, closed]\nmustBe: 0",
                        "status",
                    ),
                    _dqx_example("whitelist", "status", "mustBe: 0", "values: [open, shipped, closed]"),
                    _native_example(
                        "whitelist", "status", "known statuses only", "values: [open, shipped, closed]", "equals: 0"
                    ),
                ),
                checks=(
                    _dqx("whitelist", VALUES.option, RETURN, needs=("values",)),
                    _native("whitelist", NATIVE_VALUES, RETURN, CASE_SENSITIVE, needs=("values",)),
                ),
                library=(Library("invalidValues", "validValues"),),
            ),
            params=(VALUES,),
            dqlib=lambda m, dqlib: dqlib.num_rows() - dqlib.count_values(_one(m), VALUES.of(m)),
        ),
        Kind(
            MetricKind.COUNT_VALUES,
            reads="count_values({columns}, {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is one of {values}"),
            expectation="expect_dqx_value_count",
            words=Words(
                "Rows whose value is one of the given values (NULL never matches).",
                (
                    _dqx_example("blacklist", "status", "mustBe: 0", "values: [test, dummy]"),
                    _native_example("blacklist", "status", "no test orders", "values: [test, dummy]", "equals: 0"),
                ),
                checks=(
                    _dqx("blacklist", VALUES.option, RETURN, needs=("values",)),
                    _native("blacklist", NATIVE_VALUES, RETURN, CASE_SENSITIVE, needs=("values",)),
                ),
            ),
            params=(VALUES,),
            dqlib=lambda m, dqlib: dqlib.count_values(_one(m), VALUES.of(m)),
        ),
        Kind(
            MetricKind.UNLISTED_COUNT,
            reads="count_if({columns} is not NULL and not in {values})",
            accepts=SINGLE_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is not one of {values}"),
            expectation="expect_dqx_unlisted_count",
            words=Words(
                "Non-NULL rows whose value is not one of a property's enum values (NULLs are what 'required' is "
                "about).",
                (
                    Example(
                        Place.PROPERTY,
                        "customProperties:\n  - property: enum\n    value: [open, shipped, closed]",
                        "status",
                    ),
                ),
                elsewhere="An ODCS property's enum (ODCS 3.2 `enum: [{value: …}]`, or datacontract-cli's `enum` "
                "custom property), a rule that no value lies outside it.",
            ),
            params=(VALUES,),
            dqlib=lambda m, dqlib: (
                dqlib.num_rows() - dqlib.null_count(_one(m)) - dqlib.count_values(_one(m), VALUES.of(m))
            ),
        ),
        Kind(
            MetricKind.PATTERN_INVALID_COUNT,
            reads="num_rows() - count_matching({columns}, /{pattern}/)",
            accepts=TEXT_VALUES,
            value=Value.ROWS,
            marks=Marks("{columns} is NULL or does not match /{pattern}/"),
            expectation="expect_dqx_pattern_invalid_count",
            words=Words(
                "Rows whose value is NULL or does not match the pattern.",
                (
                    Example(
                        Place.QUALITY,
                        "metric: invalidValues\narguments:\n  pattern: '^ORD-[0-9]+$'\nmustBe: 0",
                    ),
                ),
                library=(Library("invalidValues", "pattern"),),
                elsewhere="An ODCS property's logicalTypeOptions.pattern, a rule that every row matches it.",
            ),
            params=(PATTERN_PARAM,),
        ),
        Kind(
            MetricKind.VIOLATION_COUNT,
            reads=lambda metric: f"count_if({_violation_row_words(metric)})",
            accepts=_violation_accepts,
            value=Value.ROWS,
            marks=Marks(_violation_row_words),
            expectation="expect_dqx_violation_count",
            words=Words(
                "Non-NULL rows breaking a value constraint: a length, a format, a native pattern check, a bound, "
                "a multiple, an item count or unique items.",
                (
                    Example(Place.PROPERTY, "logicalType: string\nlogicalTypeOptions:\n  maxLength: 12"),
                    _native_example(
                        "pattern", "order_id", "order ids look right", "pattern: '^ORD-[0-9]+$'", "equals: 0"
                    ),
                ),
                checks=(
                    Check(
                        "pattern", Format.NATIVE_COLUMN, (PATTERN, FORMAT, FLAGS, RETURN), one_of=("pattern", "format")
                    ),
                ),
                elsewhere="An ODCS property's logicalTypeOptions (minLength, maxLength, format, minimum, "
                "maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minItems, maxItems, uniqueItems), each "
                "a rule that no row breaks it.",
            ),
            params=(CONSTRAINT,),
            subject=lambda metric: CONSTRAINT.of(metric).kind.value,
            dqlib=_negative_count,
        ),
        Kind(
            MetricKind.CARDINALITY,
            reads="cardinality({columns})",
            accepts=COMPARABLE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_cardinality",
            words=Words(
                "The number of distinct non-NULL values.",
                (
                    _dqx_example("cardinality", "status", "mustBeLessOrEqualTo: 5"),
                    _native_example("cardinality", "status", "a handful of statuses", "max: 5"),
                ),
                checks=(_dqx("cardinality"), _native("cardinality")),
            ),
            dqlib=lambda m, dqlib: dqlib.unique_count(_one(m)),
        ),
        _statistic(
            "expect_dqx_min",
            MetricKind.MIN,
            NUMERIC_OR_BOOLEAN,
            "The smallest non-NULL value; with a bound, each row below it is marked.",
            (
                _dqx_example("min", "amount", "mustBeGreaterOrEqualTo: 0"),
                _native_example("min", "amount", "no negative amounts", "min: 0"),
            ),
            marks=_breaks_the_bound(Extreme.LOWEST),
            dqlib=lambda m, dqlib: dqlib.minimum(_one(m)),
        ),
        _statistic(
            "expect_dqx_max",
            MetricKind.MAX,
            NUMERIC_OR_BOOLEAN,
            "The largest non-NULL value; with a bound, each row above it is marked.",
            (
                _dqx_example("max", "amount", "mustBeLessThan: 100000"),
                _native_example("max", "amount", "amounts below 100k", "max: 100000"),
            ),
            marks=_breaks_the_bound(Extreme.HIGHEST),
            dqlib=lambda m, dqlib: dqlib.maximum(_one(m)),
        ),
        _statistic(
            "expect_dqx_mean",
            MetricKind.MEAN,
            NUMERIC,
            "The mean of the non-NULL values.",
            (
                _dqx_example("mean", "amount", "mustBeBetween: [10, 500]"),
                _native_example("mean", "amount", "typical basket", "between: [10, 500]"),
            ),
            dqlib=lambda m, dqlib: dqlib.average(_one(m)),
        ),
        _statistic(
            "expect_dqx_sum",
            MetricKind.SUM,
            NUMERIC,
            "The sum of the non-NULL values (exact for integers).",
            (
                _dqx_example("sum", "amount", "mustBeGreaterThan: 0"),
                _native_example("sum", "amount", "some revenue", "min: 1"),
            ),
            dqlib=lambda m, dqlib: dqlib.sum(_one(m)),
        ),
        Kind(
            MetricKind.COUNT,
            reads="count({columns})",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_count",
            words=Words(
                "The number of non-NULL values.",
                (
                    _dqx_example("count", "customer_id", "mustBeGreaterThan: 0"),
                    _native_example("count", "customer_id", "some customers given", "min: 1"),
                ),
                checks=(_dqx("count"), _native("count")),
            ),
            dqlib=lambda m, dqlib: dqlib.num_rows() - dqlib.null_count(_one(m)),
        ),
        _statistic(
            "expect_dqx_variance",
            MetricKind.VARIANCE,
            NUMERIC,
            "The sample variance of the non-NULL values.",
            (
                _dqx_example("variance", "amount", "mustBeLessThan: 1000000"),
                _native_example("variance", "amount", "amounts do not scatter", "max: 1000000"),
            ),
            dqlib=lambda m, dqlib: dqlib.variance(_one(m)),
        ),
        _statistic(
            "expect_dqx_stddev",
            MetricKind.STDDEV,
            NUMERIC,
            "The sample standard deviation of the non-NULL values.",
            (
                _dqx_example("stddev", "amount", "mustBeLessThan: 1000"),
                _native_example("stddev", "amount", "amounts do not scatter", "max: 1000"),
            ),
            dqlib=lambda m, dqlib: dqlib.sqrt(dqlib.variance(_one(m))),
        ),
        Kind(
            MetricKind.PERCENTILE,
            reads="percentile({columns}, {percentile})",
            accepts=NUMERIC,
            value=Value.NUMBER,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_percentile",
            words=Words(
                "The exact percentile of the non-NULL values, interpolated between neighbours (0.5: the median).",
                (
                    _dqx_example("percentile", "amount", "mustBeLessThan: 2000", "percentile: 0.95"),
                    _native_example("percentile", "amount", "p95 below 2000", "percentile: 0.95", "max: 2000"),
                ),
                checks=(
                    _dqx("percentile", PERCENTILE.option, needs=("percentile",)),
                    _native("percentile", NATIVE_PERCENTILE, needs=("percentile",)),
                ),
            ),
            params=(PERCENTILE,),
            shows_values=True,
        ),
        _statistic(
            "expect_dqx_min_length",
            MetricKind.MIN_LENGTH,
            _lengths,
            "The smallest length of the non-NULL values (characters, list items or map entries).",
            (
                _dqx_example("min_length", "order_id", "mustBeGreaterOrEqualTo: 5", "column_type: string"),
                _native_example("min_length", "order_id", "ids are not cut", "min: 5"),
            ),
            params=(COLUMN_TYPE,),
            dqlib=lambda m, dqlib: dqlib.min_length(_one(m), COLUMN_TYPE.of(m)),
        ),
        _statistic(
            "expect_dqx_max_length",
            MetricKind.MAX_LENGTH,
            _lengths,
            "The largest length of the non-NULL values (characters, list items or map entries).",
            (
                _dqx_example("max_length", "order_id", "mustBeLessOrEqualTo: 12", "column_type: string"),
                _native_example("max_length", "order_id", "ids fit the screen", "max: 12"),
            ),
            params=(COLUMN_TYPE,),
            dqlib=lambda m, dqlib: dqlib.max_length(_one(m), COLUMN_TYPE.of(m)),
        ),
        _statistic(
            "expect_dqx_avg_length",
            MetricKind.AVG_LENGTH,
            _lengths,
            "The mean length of the non-NULL values (characters, list items or map entries).",
            (
                _dqx_example("avg_length", "order_id", "mustBeBetween: [8, 12]", "column_type: string"),
                _native_example("avg_length", "order_id", "ids are about 10 long", "between: [8, 12]"),
            ),
            params=(COLUMN_TYPE,),
        ),
        Kind(
            MetricKind.NUM_ROWS,
            reads="num_rows()",
            accepts=ANY_TYPE,
            value=Value.COUNT,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_row_count",
            words=Words(
                "The number of rows of the batch.",
                (
                    Example(Place.QUALITY, "metric: rowCount\nmustBeGreaterThan: 0"),
                    Example(
                        Place.QUALITY,
                        "type: custom\nengine: dqx\nimplementation:\n  check: num_rows\nmustBeGreaterThan: 0",
                    ),
                    Example(Place.NATIVE_TABLE, "type: num_rows\nname: not empty\nmin: 1"),
                ),
                checks=(
                    Check(
                        "num_rows",
                        Format.DQX,
                        refuses=("column",),
                        why="is table-level; remove 'column:' from its implementation",
                    ),
                    Check("num_rows", Format.NATIVE_TABLE),
                ),
                library=(Library("rowCount"),),
            ),
            arity=Arity.NONE,
            dqlib=lambda m, dqlib: dqlib.num_rows(),
        ),
        Kind(
            MetricKind.FRESHNESS_HOURS,
            reads=_freshness_words,
            accepts=INSTANTS,
            value=Value.AGE,
            marks=WHOLE_BATCH,
            expectation="expect_dqx_freshness",
            words=Words(
                "Hours between the run's moment and the newest (or oldest) value of a date or timestamp column.",
                (
                    Example(
                        Place.NATIVE_TABLE,
                        "type: freshness\nname: fresh orders\ntimestamp_column: ordered_at\nmax_age_hours: 24",
                    ),
                ),
                checks=(
                    Check(
                        "freshness",
                        Format.NATIVE_TABLE,
                        (MAX_AGE_HOURS, TIMESTAMP_COLUMN, AGGREGATION.option),
                        ("max_age_hours", "timestamp_column"),
                        column_options=("timestamp_column",),
                        at_most="max_age_hours",
                        dimension="timeliness",
                    ),
                ),
                elsewhere="The SLA: ODCS slaProperties (latency, with the element it reads) and the native "
                "format's sla block (schedule and lag_hours) each give one freshness rule.",
            ),
            params=(AGGREGATION,),
            needs_now=True,
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
            words=Words(
                "Expected time partitions (hours, days, ISO weeks or months) of a window ending at the run's "
                "moment that hold no row.",
                (
                    Example(
                        Place.QUALITY,
                        "type: custom\nengine: dqx\nimplementation:\n  check: completeness\n"
                        "  partition_column: ordered_at\n  granularity: daily\n  lookback_days: 7",
                        "ordered_at",
                    ),
                    Example(
                        Place.NATIVE_TABLE,
                        "type: completeness\nname: a partition every day\npartition_column: ordered_at\n"
                        "granularity: daily\nlookback_days: 30\nmax_gap_count: 1",
                    ),
                ),
                checks=(
                    Check(
                        "completeness",
                        Format.DQX,
                        (*COMPLETENESS_OPTIONS, COLUMN),
                        ("granularity",),
                        why="passes with at most max_gap_count missing partitions",
                        column_options=("partition_column", "column"),
                        on_property=True,
                        at_most="max_gap_count",
                    ),
                    Check(
                        "completeness",
                        Format.NATIVE_TABLE,
                        COMPLETENESS_OPTIONS,
                        ("partition_column", "granularity"),
                        refuses=VALIDATORS,
                        why="passes with at most max_gap_count missing partitions; min, max, equals, between, "
                        "not_between and tolerance do not apply",
                        column_options=("partition_column",),
                        at_most="max_gap_count",
                        dimension="completeness",
                    ),
                ),
            ),
            params=(GRANULARITY, LOOKBACK_DAYS, ALLOW_FUTURE_GAPS),
            needs_now=True,
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
            words=Words(
                "Rows whose key (no column NULL) is no key of the referenced dataset: a broken foreign key.",
                (Example(Place.PROPERTY, "relationships:\n  - to: customers.id", "customer_id"),),
                elsewhere="An ODCS property's (or schema object's) relationships: one rule per relationship, "
                "checked against the referenced dataset the run is given.",
            ),
            arity=Arity.MANY,
            params=(REFERENCE, REFERENCE_COLUMNS),
            subject="foreign key",
        ),
        Kind(
            MetricKind.LENGTH_OUTSIDE_COUNT,
            reads="count_if(length({columns}) not between {min_length} and {max_length})",
            accepts=Accepts("applies to strings and arrays", allowed=frozenset({TypeFamily.TEXT, TypeFamily.ARRAY})),
            value=Value.ROWS,
            marks=Marks("length({columns}) is not between {min_length} and {max_length}"),
            expectation="expect_dqx_length_outside_count",
            words=Words(
                "Rows whose length (characters of a string, items of an array) is below `min_length` or above "
                "`max_length`; a NULL has no length and is not counted.",
                (
                    _dqx_example("length_between", "order_id", "mustBe: 0", "min_length: 5", "max_length: 12"),
                    _native_example(
                        "length_between", "order_id", "ids fit", "min_length: 5", "max_length: 12", "equals: 0"
                    ),
                ),
                checks=(
                    _dqx("length_between", MIN_LENGTH.option, MAX_LENGTH.option, RETURN, needs=_LIMITS),
                    _native("length_between", MIN_LENGTH.option, MAX_LENGTH.option, RETURN, needs=_LIMITS),
                ),
            ),
            params=(MIN_LENGTH, MAX_LENGTH),
            refuses=_reversed_limits,
        ),
        Kind(
            MetricKind.FUTURE_COUNT,
            reads=lambda metric: f"count_if({columns_text(metric)} > {_moment(metric)})",
            accepts=INSTANTS,
            value=Value.ROWS,
            marks=Marks(lambda metric: f"{columns_text(metric)} is after {_moment(metric)}"),
            expectation="expect_dqx_future_count",
            words=Words(
                "Rows whose date or timestamp is later than the run's moment plus `offset` seconds: DQX's "
                "`is_not_in_future`. A NULL is not counted.",
                (
                    _dqx_example("is_not_in_future", "ordered_at", "mustBe: 0", "offset: 3600"),
                    _native_example("is_not_in_future", "ordered_at", "no orders from the future", "equals: 0"),
                ),
                checks=(
                    _dqx("is_not_in_future", OFFSET.option, RETURN),
                    _native("is_not_in_future", OFFSET.option, RETURN),
                ),
            ),
            params=(OFFSET,),
            needs_now=True,
        ),
    )
}


def kind_of(metric: Metric | MetricKind) -> Kind:
    """The declaration of a metric's kind."""
    return KINDS[metric.kind.value if isinstance(metric, Metric) else metric]


CHECKS: Mapping[Format, Mapping[str, tuple[Kind, Check]]] = {
    format: {check.name: (kind, check) for kind in KINDS.values() if (check := kind.words.check(format))}
    for format in Format
}
"""Every check name of each format, with its kind, in the order of the declarations."""

LIBRARY: Mapping[str, tuple[tuple[Kind, Library], ...]] = {
    name: tuple((kind, word) for kind in KINDS.values() for word in kind.words.library if word.metric == name)
    for name in dict.fromkeys(word.metric for kind in KINDS.values() for word in kind.words.library)
}
"""Every ODCS library metric name and the kinds it computes (told apart by their ``argument``)."""
