"""Measure a Spark DataFrame for a draft: every statistic in one aggregation, the exact ones in a narrow second.

The plan, and why it is this one:

1. **One ``df.agg`` over every column** (one scan, Spark's two jobs): the row count; per column the
   NULL count; min and max of numbers, dates and times; the NaN count of floating columns; the
   longest string; and an *approximate* distinct count (``approx_count_distinct``, HyperLogLog++ at
   5 % relative error, 4 KiB per column). No exact distinct count and no value set here: Spark
   expands every input row once per ``count(DISTINCT …)`` of a plan (N columns → N copies of the
   data through the shuffle), and a ``collect_set`` on a column of ids would hold all of them in
   one buffer.
2. **Only for the columns that qualify, one more ``df.agg``**: ``count(DISTINCT c)`` of each column
   the estimate says may be unique (no NULL, estimate ≥ 80 % of the rows: four standard errors), because ``unique`` and
   ``primaryKey`` must hold exactly; and ``collect_set(c)`` of each string column whose estimate is
   at most twice the value limit (an estimate this small is close to exact, so no buffer grows
   large). Usually one to three columns; no second query when none qualifies.

Two scans where one with every distinct exact would do, but that one reads the data once per
column in its expansion (measured in benchmarks/draft.py). With ``sample``, both queries read the
same ``df.sample(fraction, seed)``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    CharType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegralType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
)

from dqx_gx.draft.stats import ColumnStats, Profile, Shape
from dqx_gx.rules import rule as rules
from dqx_gx.spark.columns import spark_column, type_text
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.types import type_mismatch
from dqx_gx.spark_versions import TIME_TYPES

SEED = 20261125
"""The sample's seed: the same data and fraction draw the same rows, so a draft can be repeated."""
RELATIVE_ERROR = 0.05
"""Spark's default for ``approx_count_distinct`` (512 registers a column): a smaller error needs so many
registers that the one aggregation copies its buffers row by row and takes many times as long."""
UNIQUE_ESTIMATE = 0.8
"""A column is checked exactly for uniqueness when its estimated distinct count reaches this share of rows."""

_TEXT = (StringType, CharType, VarcharType)
_FLOATING = (FloatType, DoubleType)
_TIMESTAMPS = (TimestampType, TimestampNTZType)
_ORDERED = (IntegralType, DecimalType, *_FLOATING, DateType, *_TIMESTAMPS, *TIME_TYPES)
_KEYS = (IntegralType, DecimalType, *_FLOATING, *_TEXT, DateType, *_TIMESTAMPS)
"""Types whose uniqueness a draft checks: the ones a duplicate count compares by value."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SIMPLE = ("string", "integer", "number", "boolean", "date", "timestamp", "time")

Progress = Callable[[str], None]


def shape_of(data_type: DataType) -> Shape:
    """The ODCS form of a Spark type; for a type ODCS v3.1 cannot name, no logicalType and the reason."""
    physical = type_text(data_type)
    simple = _logical(data_type)
    if simple is not None:
        timezone = isinstance(data_type, TimestampType) if isinstance(data_type, _TIMESTAMPS) else None
        return Shape(physical, simple, timezone=timezone)
    if isinstance(data_type, ArrayType):
        return Shape(physical, "array", items=shape_of(data_type.elementType))
    if isinstance(data_type, StructType):
        return Shape(physical, "object", fields=tuple((f.name, shape_of(f.dataType)) for f in data_type.fields))
    if isinstance(data_type, MapType):
        why = "ODCS v3.1 has no logicalType for a map (v3.2 adds one); only the column's presence is checked"
    elif isinstance(data_type, BinaryType):
        why = "ODCS has no logicalType for binary data; only the column's presence is checked"
    else:
        why = f"ODCS has no logicalType for Spark's {physical}; only the column's presence is checked"
    return Shape(physical, untyped=why)


def _logical(data_type: DataType) -> str | None:
    """The first simple logicalType the validator's own type rule accepts ``data_type`` for."""
    return next((name for name in _SIMPLE if type_mismatch(rules.DataType(name), data_type, "") is None), None)


def profile(
    frame: DataFrame, *, max_values: int, sample: float | None = None, progress: Progress | None = None
) -> Profile:
    """The statistics of ``frame`` a draft needs (see the module's docstring for the plan)."""
    say = progress or (lambda _: None)
    sample = sample if sample is not None and sample < 1 else None  # all of it: counted, not estimated
    if sample is not None:
        frame = frame.sample(fraction=sample, seed=SEED)
    fields = frame.schema.fields
    say(f"measuring {len(fields)} columns in one pass")
    first = frame.agg(*_first_pass(fields)).first()
    assert first is not None  # an aggregate without grouping has one row
    measured = first.asDict()
    rows = int(measured["rows"])
    exact = [(i, f) for i, f in enumerate(fields) if _maybe_unique(measured, i, f, rows)]
    small = [(i, f) for i, f in enumerate(fields) if _maybe_few(measured, i, f, max_values)]
    second: dict[str, Any] = {}
    if exact or small:
        say(f"checking {len(exact)} possible key(s) exactly and {len(small)} value set(s)")
        found = frame.agg(*_second_pass(exact, small)).first()
        assert found is not None
        second = found.asDict()
    columns = tuple(
        _column(i, f, measured=measured, second=second, rows=rows, max_values=max_values) for i, f in enumerate(fields)
    )
    return Profile(rows=rows, columns=columns, sample=sample)


@own_expressions()
def _first_pass(fields: list[StructField]) -> list[Column]:
    aggregates = [F.count(F.lit(1)).alias("rows")]
    for i, field in enumerate(fields):
        c, dt = spark_column(field), field.dataType
        aggregates.append(F.count_if(c.isNull()).alias(f"{i}_nulls"))
        if isinstance(dt, _ORDERED):
            aggregates += [_bound(F.min(c), dt).alias(f"{i}_min"), _bound(F.max(c), dt).alias(f"{i}_max")]
        if isinstance(dt, _FLOATING):
            aggregates.append(F.count_if(F.isnan(c)).alias(f"{i}_nans"))
        if isinstance(dt, _TEXT):
            aggregates.append(F.max(F.length(c)).alias(f"{i}_length"))
        if isinstance(dt, _KEYS):
            aggregates.append(F.approx_count_distinct(c, RELATIVE_ERROR).alias(f"{i}_estimate"))
    return aggregates


@own_expressions()
def _second_pass(exact: list[tuple[int, StructField]], small: list[tuple[int, StructField]]) -> list[Column]:
    aggregates = [F.count_distinct(spark_column(f)).alias(f"{i}_distinct") for i, f in exact]
    return aggregates + [F.collect_set(spark_column(f)).alias(f"{i}_values") for i, f in small]


def _bound(extreme: Column, data_type: DataType) -> Column:
    """A minimum or maximum as the draft keeps it: a decimal as the double Spark compares it as
    (so the drafted bound holds exactly), an instant as microseconds since the epoch (UTC)."""
    if isinstance(data_type, DecimalType):
        return extreme.cast("double")
    if isinstance(data_type, TimestampType):
        return F.unix_micros(extreme)
    return extreme


def _maybe_unique(measured: dict[str, Any], i: int, field: StructField, rows: int) -> bool:
    estimate = measured.get(f"{i}_estimate")
    return rows > 0 and measured[f"{i}_nulls"] == 0 and estimate is not None and estimate >= UNIQUE_ESTIMATE * rows


def _maybe_few(measured: dict[str, Any], i: int, field: StructField, max_values: int) -> bool:
    estimate = measured.get(f"{i}_estimate")
    return isinstance(field.dataType, _TEXT) and estimate is not None and 0 < estimate <= 2 * max_values


def _column(
    i: int, field: StructField, *, measured: dict[str, Any], second: dict[str, Any], rows: int, max_values: int
) -> ColumnStats:
    values = second.get(f"{i}_values")
    distinct = second.get(f"{i}_distinct")
    return ColumnStats(
        name=field.name,
        shape=shape_of(field.dataType),
        nulls=int(measured[f"{i}_nulls"]),
        minimum=_plain(measured.get(f"{i}_min"), field.dataType),
        maximum=_plain(measured.get(f"{i}_max"), field.dataType),
        nans=int(measured.get(f"{i}_nans") or 0),
        max_length=measured.get(f"{i}_length"),
        unique=distinct is not None and distinct == rows,
        values=tuple(sorted(values)) if values is not None and len(values) <= max_values else None,
    )


def _plain(value: Any, data_type: DataType) -> int | float | str | None:
    """A collected extreme as the neutral side takes it: numbers as they are, dates and times as ISO text."""
    if value is None:
        return None
    if isinstance(data_type, TimestampType):
        return (_EPOCH + timedelta(microseconds=value)).isoformat()
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, int | float):
        return value
    return str(value)
