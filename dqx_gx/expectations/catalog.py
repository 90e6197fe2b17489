"""The expectations: one small class per DQX metric (SPEC §1), each reading the metrics it needs.

Type names follow GX's convention from the class name (``ExpectDqxNullCount`` →
``expect_dqx_null_count``); the ``dqx`` keeps them apart from GX's built-ins.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any, ClassVar, Union

from great_expectations.compatibility.pydantic import StrictBool, StrictFloat, StrictInt, StrictStr
from great_expectations.core.suite_parameters import SuiteParameterDict
from pyspark.sql.types import StructField

from dqx_gx.expectations.base import NUM_ROWS, DqxExpectation, Observation, Observed, Scale, Unmeasured
from dqx_gx.expectations.spark_types import type_mismatch, type_text, unsupported
from dqx_gx.rules.metric import ConstraintKind, MetricKind
from dqx_gx.rules.rule import DataType
from dqx_gx.rules.timestamps import epoch_micros

Value = Union[StrictBool, StrictInt, StrictFloat, StrictStr]  # noqa: UP007 - pydantic v1 needs typing.Union


class ExpectDqxRowCount(DqxExpectation):
    """``num_rows()``: rows in the batch."""

    metric_text: ClassVar[str] = "num_rows()"

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {NUM_ROWS: {}}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        return Observed(metrics[NUM_ROWS])


class ColumnExpectation(DqxExpectation):
    """A rule on one column: the column must be in the batch and of a type the metric can measure."""

    column: str
    kind: ClassVar[MetricKind]
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "column")

    def observe(self, metrics: dict[str, Any]) -> Observation:
        field = self.field(metrics, self.column)
        if isinstance(field, Unmeasured):
            return field
        problem = self.unsupported(field)
        if problem is not None:
            return Unmeasured(problem)
        return self.measure(metrics, field)

    def unsupported(self, field: StructField) -> str | None:
        return unsupported(self.kind, field)

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        raise NotImplementedError


class CountExpectation(ColumnExpectation):
    """A count of rows, reported as a count, a fraction (``return: pct``) or a percentage (``unit: percent``)."""

    scale: Scale = "count"
    success_keys: ClassVar[tuple[str, ...]] = (*ColumnExpectation.success_keys, "scale")

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        what = f"{self.kind}({self.column})"
        count = self.count(metrics)
        if count is None:
            return Unmeasured(no_count(what))
        return self.scaled(count, metrics[NUM_ROWS], self.scale, what)

    def count(self, metrics: dict[str, Any]) -> int | None:
        raise NotImplementedError


def no_count(what: str) -> str:
    return (
        f"{what} has no value: no row has a value to count (an empty batch, or only NULLs); "
        "DQX counts with DuckDB's COUNT_IF, which is NULL then"
    )


def total(*terms: tuple[int, Any]) -> int | None:
    """Σ sign × count, or None when any count is NULL (see ``metrics.count_if``)."""
    if any(value is None for _, value in terms):
        return None
    return sum(sign * int(value) for sign, value in terms)


class ExpectDqxNullCount(CountExpectation):
    """``null_count(c)``: NULL rows (NaN is a value)."""

    kind: ClassVar[MetricKind] = MetricKind.NULL_COUNT
    metric_text: ClassVar[str] = "null_count({column})"

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.null_count": {"column": self.column}, NUM_ROWS: {}}

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics["dqx.null_count"]))


class ExpectDqxMissingCount(CountExpectation):
    """``null_count(c) + count_values(c, values)``: NULLs plus sentinel values."""

    values: list[Value]
    kind: ClassVar[MetricKind] = MetricKind.MISSING_COUNT
    metric_text: ClassVar[str] = "missing_count({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*CountExpectation.success_keys, "values")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {
            "dqx.null_count": {"column": self.column},
            "dqx.count_values": {"column": self.column, "values": self.values},
            NUM_ROWS: {},
        }

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics["dqx.null_count"]), (1, metrics["dqx.count_values"]))


class ExpectDqxInvalidCount(CountExpectation):
    """``num_rows() - count_values(c, valid)``: rows not in the valid set, NULL included."""

    values: list[Value]
    kind: ClassVar[MetricKind] = MetricKind.INVALID_COUNT
    metric_text: ClassVar[str] = "invalid_count({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*CountExpectation.success_keys, "values")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.count_values": {"column": self.column, "values": self.values}, NUM_ROWS: {}}

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics[NUM_ROWS]), (-1, metrics["dqx.count_values"]))


class ExpectDqxValueCount(CountExpectation):
    """``count_values(c, values)``: rows equal to one of the values (a blacklist)."""

    values: list[Value]
    kind: ClassVar[MetricKind] = MetricKind.COUNT_VALUES
    metric_text: ClassVar[str] = "count_values({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*CountExpectation.success_keys, "values")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.count_values": {"column": self.column, "values": self.values}, NUM_ROWS: {}}

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics["dqx.count_values"]))


class ExpectDqxPatternInvalidCount(CountExpectation):
    """``num_rows() - count_matching(c, pattern)``: rows that are NULL or do not match."""

    pattern: str
    kind: ClassVar[MetricKind] = MetricKind.PATTERN_INVALID_COUNT
    metric_text: ClassVar[str] = "pattern_invalid_count({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*CountExpectation.success_keys, "pattern")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.count_matching": {"column": self.column, "pattern": self.pattern}, NUM_ROWS: {}}

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics[NUM_ROWS]), (-1, metrics["dqx.count_matching"]))


class ExpectDqxViolationCount(CountExpectation):
    """``count_if(c violates constraint)`` over non-null values (logicalTypeOptions, native pattern)."""

    constraint: str
    value: Value
    kind: ClassVar[MetricKind] = MetricKind.VIOLATION_COUNT
    metric_text: ClassVar[str] = "violations({column}: {constraint})"
    success_keys: ClassVar[tuple[str, ...]] = (*CountExpectation.success_keys, "constraint", "value")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        kwargs = {"column": self.column, "constraint": self.constraint, "value": self.value}
        return {"dqx.violation_count": kwargs, NUM_ROWS: {}}

    def unsupported(self, field: StructField) -> str | None:
        return unsupported(self.kind, field, constraint=ConstraintKind(self.constraint), constraint_value=self.value)

    def count(self, metrics: dict[str, Any]) -> int | None:
        return total((1, metrics["dqx.violation_count"]))


class ExpectDqxDuplicateCount(DqxExpectation):
    """``num_rows() - count_distinct(cols)`` with DuckDB's NULL handling (SPEC §1)."""

    columns: list[str]
    scale: Scale = "count"
    metric_text: ClassVar[str] = "duplicate_count({columns})"
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "columns", "scale")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.distinct_count": {"columns": self.columns}, NUM_ROWS: {}}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        for name in self.columns:
            field = self.field(metrics, name)
            if isinstance(field, Unmeasured):
                return field
            if problem := unsupported(MetricKind.DUPLICATE_COUNT, field):
                return Unmeasured(problem)
        duplicates = int(metrics[NUM_ROWS]) - int(metrics["dqx.distinct_count"])
        return self.scaled(duplicates, metrics[NUM_ROWS], self.scale, f"duplicate_count({', '.join(self.columns)})")


class ExpectDqxCardinality(ColumnExpectation):
    """``count_distinct(c)``: distinct non-null values."""

    kind: ClassVar[MetricKind] = MetricKind.CARDINALITY
    metric_text: ClassVar[str] = "cardinality({column})"

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.distinct_count": {"columns": [self.column]}}

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        return Observed(metrics["dqx.distinct_count"])


class ExpectDqxCount(ColumnExpectation):
    """``count(c)`` = num_rows − null_count: non-null rows."""

    kind: ClassVar[MetricKind] = MetricKind.COUNT
    metric_text: ClassVar[str] = "count({column})"

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.null_count": {"column": self.column}, NUM_ROWS: {}}

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        count = total((1, metrics[NUM_ROWS]), (-1, metrics["dqx.null_count"]))
        return Observed(count) if count is not None else Unmeasured(no_count(f"count({self.column})"))


class StatisticExpectation(ColumnExpectation):
    """A floating statistic of the column's non-null values (min, max, mean, sum, variance, percentile)."""

    metric: ClassVar[str]

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {self.metric: {"column": self.column}}

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        return floating(metrics[self.metric], f"{self.kind}({self.column})")


def floating(raw: Any, what: str) -> Observation:
    """Read ``[value, is_nan]`` from a floating metric (see ``metrics.with_nan_flag``)."""
    value, is_nan = raw if isinstance(raw, list | tuple) else (None, False)
    if is_nan:
        return Unmeasured(f"{what} is NaN (the column holds NaN values)")
    if value is None:
        return Unmeasured(f"{what} has no value: the batch has no non-null values to compute it from")
    return Observed(float(value))


class ExpectDqxMin(StatisticExpectation):
    kind: ClassVar[MetricKind] = MetricKind.MIN
    metric: ClassVar[str] = "dqx.min"
    metric_text: ClassVar[str] = "min({column})"


class ExpectDqxMax(StatisticExpectation):
    kind: ClassVar[MetricKind] = MetricKind.MAX
    metric: ClassVar[str] = "dqx.max"
    metric_text: ClassVar[str] = "max({column})"


class ExpectDqxMean(StatisticExpectation):
    kind: ClassVar[MetricKind] = MetricKind.MEAN
    metric: ClassVar[str] = "dqx.mean"
    metric_text: ClassVar[str] = "mean({column})"


class ExpectDqxSum(StatisticExpectation):
    kind: ClassVar[MetricKind] = MetricKind.SUM
    metric: ClassVar[str] = "dqx.sum"
    metric_text: ClassVar[str] = "sum({column})"


class ExpectDqxVariance(StatisticExpectation):
    """Sample variance; needs at least two non-null values."""

    kind: ClassVar[MetricKind] = MetricKind.VARIANCE
    metric: ClassVar[str] = "dqx.variance"
    metric_text: ClassVar[str] = "variance({column})"


class ExpectDqxStddev(StatisticExpectation):
    """sqrt(sample variance)."""

    kind: ClassVar[MetricKind] = MetricKind.STDDEV
    metric: ClassVar[str] = "dqx.variance"
    metric_text: ClassVar[str] = "stddev({column})"

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        variance = floating(metrics[self.metric], f"stddev({self.column})")
        if isinstance(variance, Unmeasured):
            return variance
        return Observed(math.sqrt(variance.value))


class ExpectDqxPercentile(StatisticExpectation):
    """``QUANTILE_CONT(c, p)``: exact, linear interpolation."""

    percentile: float
    kind: ClassVar[MetricKind] = MetricKind.PERCENTILE
    metric: ClassVar[str] = "dqx.percentile"
    metric_text: ClassVar[str] = "percentile({column}, {percentile})"
    success_keys: ClassVar[tuple[str, ...]] = (*ColumnExpectation.success_keys, "percentile")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {self.metric: {"column": self.column, "percentile": self.percentile}}


class LengthExpectation(ColumnExpectation):
    """min/max/avg of string length, list size or map size over non-null values."""

    column_type: str
    statistic: ClassVar[str]
    success_keys: ClassVar[tuple[str, ...]] = (*ColumnExpectation.success_keys, "column_type")

    def unsupported(self, field: StructField) -> str | None:
        return unsupported(self.kind, field, column_type=self.column_type)

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.length": {"column": self.column, "column_type": self.column_type, "statistic": self.statistic}}

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        return floating([metrics["dqx.length"], False], f"{self.kind}({self.column})")


class ExpectDqxMinLength(LengthExpectation):
    kind: ClassVar[MetricKind] = MetricKind.MIN_LENGTH
    statistic: ClassVar[str] = "min"
    metric_text: ClassVar[str] = "min_length({column})"


class ExpectDqxMaxLength(LengthExpectation):
    kind: ClassVar[MetricKind] = MetricKind.MAX_LENGTH
    statistic: ClassVar[str] = "max"
    metric_text: ClassVar[str] = "max_length({column})"


class ExpectDqxAvgLength(LengthExpectation):
    kind: ClassVar[MetricKind] = MetricKind.AVG_LENGTH
    statistic: ClassVar[str] = "avg"
    metric_text: ClassVar[str] = "avg_length({column})"


class ExpectDqxFreshness(ColumnExpectation):
    """Hours between ``now`` and the newest (or oldest) value; ``now`` is a run-time parameter."""

    now: Union[datetime, date, SuiteParameterDict]  # type: ignore[type-arg]  # noqa: UP007 - pydantic v1 needs typing.Union
    aggregation: str = "max"
    kind: ClassVar[MetricKind] = MetricKind.FRESHNESS_HOURS
    metric_text: ClassVar[str] = "freshness_hours({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*ColumnExpectation.success_keys, "now", "aggregation")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.epoch_micros": {"column": self.column, "aggregation": self.aggregation}}

    def measure(self, metrics: dict[str, Any], field: StructField) -> Observation:
        newest = metrics["dqx.epoch_micros"]
        if newest is None:
            return Unmeasured(f"freshness_hours({self.column}) has no value: no non-null values in the batch")
        if isinstance(self.now, dict):
            return Unmeasured("'now' was not given at run time (expectation parameter 'now')")
        age = (epoch_micros(self.now) - int(newest)) / 3_600_000_000
        return Observed(age, {"now": self.now.isoformat()})


class ExpectDqxColumnType(DqxExpectation):
    """The column exists and its Spark type fits the declared logical type (DQX ODCS spec §7)."""

    column: str
    data_type: dict[str, Any] | None = None
    """The declared type (``DataType.to_dict()``); None checks existence only."""
    metric_text: ClassVar[str] = "type({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "column", "data_type")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        field = self.field(metrics, self.column)
        if isinstance(field, Unmeasured):
            return field
        details: dict[str, Any] = {}
        if field.name != self.column:
            details["note"] = f"matched column {field.name!r} (case differs from the contract)"
        if self.data_type is not None:
            problem = type_mismatch(DataType.from_dict(self.data_type), field.dataType, f"Property '{self.column}'")
            if problem:
                details["failure"] = problem
        return Observed(type_text(field.dataType), details)


class ExpectDqxSqlValue(DqxExpectation):
    """The value of a contract's SQL query over the batch (``type: sql``, opted in with ``allow_sql``)."""

    query: str
    metric_text: ClassVar[str] = "sql({query})"
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "query")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.sql_value": {"query": self.query}}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        outcome = metrics["dqx.sql_value"]
        if "error" in outcome:
            return Unmeasured(outcome["error"])
        if outcome["value"] is None:
            return Unmeasured("the query returned NULL")
        return Observed(outcome["value"])
