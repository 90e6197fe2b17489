"""GX metrics for DQX's vocabulary, computed by Spark in at most two aggregate passes.

Every metric here is a *table-domain aggregate partial*. GX bundles partials
that share a compute domain and a graph level into one ``df.agg``
(``SparkDFExecutionEngine.resolve_metric_bundle``). The metrics without
dependencies share the first pass with ``table.row_count``; distinct counts
wait for the second, which GX's own map metrics (``engine: greatExpectations``
rules) need anyway (:class:`SecondPass`). GX's column-domain providers would not
do: they depend on ``table.columns``/``table.row_count`` and cannot share a pass
with anything at the first level.

A partial must never raise: GX would then re-run every metric of the bundle one
by one and retry three times. An unmeasurable column (missing, wrong type)
gives a typed NULL; the expectation explains it from the same checks.

Values are what SPEC §1 defines (DQX's DuckDB SQL): NULLs are never counted as
values, NaN is a value, floating results come as ``[value, is_nan]`` because GX
turns NaN into None on the way back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, ClassVar

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.core.metric_function_types import MetricPartialFunctionTypes
from great_expectations.execution_engine import SparkDFExecutionEngine
from great_expectations.expectations.metrics.metric_provider import metric_partial, metric_value
from great_expectations.expectations.metrics.table_metric_provider import TableMetricProvider
from great_expectations.validator.metric_configuration import MetricConfiguration
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, IntegralType, StructField, TimestampNTZType, TimestampType

from dqx_gx.expectations.spark_types import Columns, spark_column, unsupported
from dqx_gx.rules.formats import FORMAT_PATTERNS
from dqx_gx.rules.metric import ConstraintKind, MetricKind
from dqx_gx.rules.timestamps import as_utc, epoch_micros

DOUBLE = "double"
LONG = "bigint"


class BatchSchema(TableMetricProvider):
    """The batch's :class:`Columns` (Spark schema and case rule for names): column presence and types, no job.

    A ``metric_value`` result is handed to the expectations as is (it is never
    serialised), so the frozen :class:`Columns` itself is the value.
    """

    metric_name = "dqx.batch_schema"

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> Columns:
        df, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        return Columns.of(df)


class SqlValue(TableMetricProvider):
    """The single value a contract's (checked, opted-in) SQL query returns over the batch.

    Not part of the aggregate passes: the query is the contract's own plan. Any
    failure of the query becomes ``{"error": …}`` for the rule to report.
    """

    metric_name = "dqx.sql_value"
    value_keys = ("query",)

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> dict[str, Any]:
        df, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        try:
            rows = df.sparkSession.sql(metric_value_kwargs["query"], batch=df).limit(2).collect()
        except Exception as exc:  # user SQL fails in countless ways; the rule fails with the message
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return {"error": f"the query failed: {message}"}
        if len(rows) != 1 or len(rows[0]) != 1:
            shape = {0: "no rows", 1: f"{len(rows[0]) if rows else 0} columns"}.get(len(rows), "more than one row")
            return {"error": f"the query returned {shape}; it must return exactly one value"}
        value = rows[0][0]
        if isinstance(value, bool) or value is None:
            return {"value": None if value is None else float(value)}
        if not isinstance(value, int | float | Decimal):
            return {"error": f"the query returned {value!r}, not a number"}
        return {"value": float(value)}


class SecondPass(TableMetricProvider):
    """A marker metric computed after the first aggregate pass (it needs ``table.row_count``).

    GX's own map metrics (the ``engine: greatExpectations`` rules) reach that same depth of
    the validation graph, through their ``condition`` metric; metrics that depend on this
    one are bundled with them into the second ``df.agg`` instead of needing a third.
    """

    metric_name = "dqx.second_pass"

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> bool:
        return True

    @classmethod
    def _get_evaluation_dependencies(
        cls,
        metric: MetricConfiguration,
        configuration: Any = None,
        execution_engine: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
    ) -> dict[str, MetricConfiguration]:
        return {"table.row_count": MetricConfiguration("table.row_count", metric.metric_domain_kwargs)}


class DqxAggregate(TableMetricProvider):
    """Base for the aggregate metrics: subclasses build one Spark aggregate expression."""

    @metric_partial(
        engine=SparkDFExecutionEngine,
        partial_fn_type=MetricPartialFunctionTypes.AGGREGATE_FN,
        domain_type=MetricDomainTypes.TABLE,
    )
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> tuple[Column, dict[str, Any], dict[str, Any]]:
        df, compute_kwargs, accessor_kwargs = execution_engine.get_compute_domain(
            metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE
        )
        return cls.aggregate(Columns.of(df), metric_value_kwargs), compute_kwargs, accessor_kwargs

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: Mapping[str, Any]) -> Column:
        raise NotImplementedError


class NumRows(DqxAggregate):
    metric_name = "dqx.num_rows"

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: Mapping[str, Any]) -> Column:
        return F.count(F.lit(1))


class ColumnAggregate(DqxAggregate):
    """An aggregate over one column; NULL when the column is missing or of a type it cannot measure."""

    value_keys: tuple[str, ...] = ("column",)
    kind: ClassVar[MetricKind]
    result_type: ClassVar[str] = LONG

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: Mapping[str, Any]) -> Column:
        field = columns.find(kwargs["column"])
        if field is None or cls.unsupported(field, kwargs) is not None:
            return F.lit(None).cast(cls.result_type)
        return cls.measure(spark_column(field), field, kwargs)

    @classmethod
    def unsupported(cls, field: StructField, kwargs: Mapping[str, Any]) -> str | None:
        return unsupported(cls.kind, field)

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        raise NotImplementedError


def count_if(predicate: Column) -> Column:
    """DuckDB's ``COUNT_IF``, which DQX counts with: NULL, not 0, when no row gives the
    predicate a non-NULL value (an empty batch, or a comparison on an all-NULL column)."""
    return F.when(F.count(predicate) > 0, F.count_if(predicate))


def with_nan_flag(value: Column) -> Column:
    """``[value as double, is NaN]``: GX returns NaN as None, the flag keeps it apart from NULL."""
    as_double = value.cast(DOUBLE)
    return F.struct(as_double, F.isnan(as_double))


class NullCount(ColumnAggregate):
    metric_name = "dqx.null_count"
    kind = MetricKind.NULL_COUNT

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return count_if(column.isNull())


class CountValues(ColumnAggregate):
    """Rows equal to one of ``values``; each value is converted to the column's type, NULL never matches."""

    metric_name = "dqx.count_values"
    value_keys = ("column", "values")
    kind = MetricKind.COUNT_VALUES

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        values: Sequence[Any] = kwargs["values"]
        if not values:
            return count_if(F.when(column.isNotNull(), F.lit(False)))
        typed = [F.lit(v).try_cast(field.dataType) for v in values]
        return count_if(column.isin(*typed))


class CountMatching(ColumnAggregate):
    """Non-null rows whose text matches ``pattern`` (a search, as in ODCS/JSON Schema)."""

    metric_name = "dqx.count_matching"
    value_keys = ("column", "pattern")
    kind = MetricKind.PATTERN_INVALID_COUNT

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return count_if(column.cast("string").rlike(kwargs["pattern"]))


class DistinctCount(DqxAggregate):
    """``COUNT(DISTINCT c)`` (NULLs not counted) or, for several columns, of the row tuple (NULL members count).

    Computed in the second pass (see :class:`SecondPass`): Spark expands every row
    once per distinct aggregate, and with a percentile in the same ``df.agg`` (which
    disables code generation) one pass costs 2–4 times two (benchmarks/bench.py).
    """

    metric_name = "dqx.distinct_count"
    value_keys = ("columns",)

    @classmethod
    def _get_evaluation_dependencies(
        cls,
        metric: MetricConfiguration,
        configuration: Any = None,
        execution_engine: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
    ) -> dict[str, MetricConfiguration]:
        dependencies: dict[str, MetricConfiguration] = super()._get_evaluation_dependencies(
            metric, configuration, execution_engine, runtime_configuration
        )
        dependencies["second_pass"] = MetricConfiguration(SecondPass.metric_name, metric.metric_domain_kwargs)
        return dependencies

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: Mapping[str, Any]) -> Column:
        fields = [columns.find(name) for name in kwargs["columns"]]
        if any(f is None or unsupported(MetricKind.DUPLICATE_COUNT, f) for f in fields):
            return F.lit(None).cast(LONG)
        selected = [spark_column(f) for f in fields if f is not None]
        return F.count_distinct(selected[0] if len(selected) == 1 else F.struct(*selected))


class Minimum(ColumnAggregate):
    metric_name = "dqx.min"
    kind = MetricKind.MIN
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return with_nan_flag(F.min(column))


class Maximum(ColumnAggregate):
    metric_name = "dqx.max"
    kind = MetricKind.MAX
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return with_nan_flag(F.max(column))


class Mean(ColumnAggregate):
    metric_name = "dqx.mean"
    kind = MetricKind.MEAN
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return with_nan_flag(F.try_avg(column))


class Sum(ColumnAggregate):
    """Exact for integers (summed as decimal(38,0), as DuckDB sums into a 128-bit integer)."""

    metric_name = "dqx.sum"
    kind = MetricKind.SUM
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        if isinstance(field.dataType, IntegralType):
            column = column.cast("decimal(38,0)")
        return with_nan_flag(F.try_sum(column))


class Variance(ColumnAggregate):
    """Sample variance (``VAR_SAMP``); NULL for fewer than two values."""

    metric_name = "dqx.variance"
    kind = MetricKind.VARIANCE
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return with_nan_flag(F.var_samp(column.cast(DOUBLE)))


class Percentile(ColumnAggregate):
    """Exact percentile with linear interpolation (DuckDB's ``QUANTILE_CONT``)."""

    metric_name = "dqx.percentile"
    value_keys = ("column", "percentile")
    kind = MetricKind.PERCENTILE
    result_type = "struct<v:double,nan:boolean>"

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        return with_nan_flag(F.percentile(column.cast(DOUBLE), F.lit(float(kwargs["percentile"]))))


class Length(ColumnAggregate):
    """min/max/avg of string length (characters), list size or map size, over non-null values."""

    metric_name = "dqx.length"
    value_keys = ("column", "column_type", "statistic")
    kind = MetricKind.AVG_LENGTH
    result_type = DOUBLE

    @classmethod
    def unsupported(cls, field: StructField, kwargs: Mapping[str, Any]) -> str | None:
        return unsupported(cls.kind, field, column_type=kwargs["column_type"])

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        size = F.length(column) if kwargs["column_type"] == "string" else F.size(column)
        length = F.when(column.isNotNull(), size)
        statistic = {"min": F.min, "max": F.max, "avg": F.avg}[kwargs["statistic"]]
        return statistic(length).cast(DOUBLE)


class EpochMicros(ColumnAggregate):
    """Newest (``max``) or oldest (``min``) value as microseconds since the epoch, UTC.

    A date counts as midnight UTC; a timestamp without time zone is read as UTC.
    """

    metric_name = "dqx.epoch_micros"
    value_keys = ("column", "aggregation")
    kind = MetricKind.FRESHNESS_HOURS

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        value = F.max(column) if kwargs["aggregation"] == "max" else F.min(column)
        if isinstance(field.dataType, DateType):
            return F.unix_date(value).cast(LONG) * F.lit(86_400_000_000)
        if isinstance(field.dataType, TimestampType):
            return F.unix_micros(value)
        assert isinstance(field.dataType, TimestampNTZType)
        return F.timestamp_diff("MICROSECOND", F.lit("1970-01-01 00:00:00").cast("timestamp_ntz"), value)


class ViolationCount(ColumnAggregate):
    """Non-null rows breaking one ``logicalTypeOptions`` constraint (or a native pattern check)."""

    metric_name = "dqx.violation_count"
    value_keys = ("column", "constraint", "value")
    kind = MetricKind.VIOLATION_COUNT

    @classmethod
    def unsupported(cls, field: StructField, kwargs: Mapping[str, Any]) -> str | None:
        return unsupported(
            cls.kind, field, constraint=ConstraintKind(kwargs["constraint"]), constraint_value=kwargs["value"]
        )

    @classmethod
    def measure(cls, column: Column, field: StructField, kwargs: Mapping[str, Any]) -> Column:
        constraint = ConstraintKind(kwargs["constraint"])
        return count_if(column.isNotNull() & violates(column, field, constraint, kwargs["value"]))


def violates(column: Column, field: StructField, constraint: ConstraintKind, value: Any) -> Column:
    """The Spark predicate that is true for a value breaking ``constraint``."""
    bound = _temporal_bound(field, value) if isinstance(value, str) and constraint in _BOUNDS else F.lit(value)
    match constraint:
        case ConstraintKind.MIN_LENGTH:
            return F.length(column) < bound
        case ConstraintKind.MAX_LENGTH:
            return F.length(column) > bound
        case ConstraintKind.PATTERN:
            return ~column.rlike(value)
        case ConstraintKind.FORMAT:
            return ~column.rlike(FORMAT_PATTERNS[value])
        case ConstraintKind.MINIMUM:
            return column < bound
        case ConstraintKind.MAXIMUM:
            return column > bound
        case ConstraintKind.EXCLUSIVE_MINIMUM:
            return column <= bound
        case ConstraintKind.EXCLUSIVE_MAXIMUM:
            return column >= bound
        case ConstraintKind.MULTIPLE_OF:
            return F.pmod(column, bound) != 0
        case ConstraintKind.MIN_ITEMS:
            return F.size(column) < bound
        case ConstraintKind.MAX_ITEMS:
            return F.size(column) > bound
        case _:  # UNIQUE_ITEMS
            return F.size(F.array_distinct(column)) != F.size(column)


def _temporal_bound(field: StructField, value: str) -> Column:
    """An exact date/timestamp literal, independent of the session time zone."""
    if isinstance(field.dataType, DateType):
        return F.lit(as_utc(value).date())
    if isinstance(field.dataType, TimestampType):
        return F.timestamp_micros(F.lit(epoch_micros(value)))
    return F.lit(as_utc(value).strftime("%Y-%m-%d %H:%M:%S.%f")).cast("timestamp_ntz")


_BOUNDS = frozenset(
    {
        ConstraintKind.MINIMUM,
        ConstraintKind.MAXIMUM,
        ConstraintKind.EXCLUSIVE_MINIMUM,
        ConstraintKind.EXCLUSIVE_MAXIMUM,
    }
)
