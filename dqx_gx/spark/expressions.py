"""The Spark expressions the kind declarations (``dqx_gx.kinds.catalog``) are written in, as
:class:`~dqx_gx.spark.text.Sql` (one round trip each through Spark's gateway, not one per operation).

Values are DQX's DuckDB SQL's (docs/semantics.md, 'The reference: DQX itself'): NULLs are never counted as values, NaN
is a value, and a count taken with ``COUNT_IF`` is NULL when no row gave the
predicate a value. Floating results travel as ``[value, is_nan]`` because GX
turns NaN into None on the way back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql.types import DateType, StructField, TimestampType

from dqx_gx.rules.threshold import Interval
from dqx_gx.rules.timestamps import as_utc, epoch_micros
from dqx_gx.spark import text as S
from dqx_gx.spark.text import Sql

DOUBLE = "double"
LONG = "bigint"
NUMBER = "struct<v:double,nan:boolean>"
"""The Spark type of :func:`with_nan_flag`."""


def count_if(predicate: Sql) -> Sql:
    """DuckDB's ``COUNT_IF``, which DQX counts with: NULL, not 0, when no row gives the
    predicate a non-NULL value (an empty batch, or a comparison on an all-NULL column).

    The sum of the predicate as 0/1 is that in one aggregate function, where ``count > 0`` around
    ``count_if`` took two: fewer for Spark to analyse, plan and update per row."""
    return S.call("sum", predicate.cast("int"))


def num_rows() -> Sql:
    return S.call("count", 1)


def with_nan_flag(value: Sql) -> Sql:
    """``[value as double, is NaN]``: GX returns NaN as None, the flag keeps it apart from NULL."""
    as_double = value.cast(DOUBLE)
    return S.call("struct", as_double, S.call("isnan", as_double))


def is_in(column: Sql, field: StructField, values: Sequence[Any]) -> Sql:
    """``column IN values``, each value converted to the column's type; NULL for a NULL value.

    With no values (a list of only NULLs), false for every value and NULL for NULL, as ``IN ()`` would be.
    """
    if not values:
        return S.when(column.is_not_null(), False)
    target = S.sql_type(field.dataType)
    return column.isin(*[S.lit(v).try_cast(target) for v in values])


def matches(column: Sql, pattern: str) -> Sql:
    """The value's text contains a match of ``pattern`` (a Java regex search, as ODCS/JSON Schema mean it)."""
    return column.cast("string").rlike(pattern)


def counted(predicate: Sql) -> Sql:
    """A row mark from a predicate that may be NULL: NULL never marks a row."""
    return S.call("coalesce", predicate, False)


def within(value: Sql, interval: Interval | None) -> Sql:
    """:meth:`Interval.passes` as a Spark predicate (None: no bounds, every value passes)."""
    if interval is None:
        return S.lit(True)
    inside = S.lit(True)
    if interval.min_value is not None:
        low = S.lit(interval.min_value)
        inside = inside & (value > low if interval.strict_min else value >= low)
    if interval.max_value is not None:
        high = S.lit(interval.max_value)
        inside = inside & (value < high if interval.strict_max else value <= high)
    return ~inside if interval.outside else inside


HOUR_MICROS = 3_600_000_000
DAY_MICROS = 86_400_000_000


def instant_micros(value: Sql, field: StructField) -> Sql:
    """A date or timestamp as microseconds since the epoch, UTC: a date is midnight UTC, a timestamp
    without time zone is a wall-clock time read as UTC (docs/semantics.md, 'The reference: DQX itself'), independent of
    the session time zone.

    ``timestamp_ntz`` goes through ``ntz − epoch`` (an exact day-time interval; Spark subtracts NTZ
    values in UTC), never through ``timestamp_diff``, which casts NTZ to the session zone first:
    in Europe/Berlin ``2026-03-29 02:30`` (a wall-clock time that DST skips) would come out an hour late.
    """
    if isinstance(field.dataType, DateType):
        return S.call("unix_date", value).cast(LONG) * DAY_MICROS
    if isinstance(field.dataType, TimestampType):
        return S.call("unix_micros", value)
    since_epoch = value - S.lit("1970-01-01 00:00:00").cast("timestamp_ntz")
    return (since_epoch.cast("interval second").cast("decimal(20,6)") * 1_000_000).cast(LONG)


def partition_start(value: Sql, field: StructField, granularity: str) -> Sql:
    """The start of the UTC period holding a date or timestamp, as epoch microseconds (docs/semantics.md,
    'Completeness').

    Integer arithmetic on :func:`instant_micros` (hours, days, ISO weeks from Monday: 1970-01-05
    was one) and the calendar of a date for months; never ``date_trunc``, which truncates in the
    session time zone.
    """
    micros = instant_micros(value, field)
    if granularity == "hourly":
        return micros - S.call("pmod", micros, HOUR_MICROS)
    day_start = micros - S.call("pmod", micros, DAY_MICROS)
    if granularity == "daily":
        return day_start
    days = (day_start / DAY_MICROS).cast(LONG)
    if granularity == "weekly":
        return (days - S.call("pmod", days - 4, 7)) * DAY_MICROS
    month = S.call("trunc", S.call("date_from_unix_date", days.cast("int")), "month")
    return S.call("unix_date", month).cast(LONG) * DAY_MICROS


def temporal_literal(field: StructField, value: str) -> Sql:
    """An exact date/timestamp literal of the column's type, independent of the session time zone."""
    if isinstance(field.dataType, DateType):
        return S.lit(as_utc(value).date())
    if isinstance(field.dataType, TimestampType):
        return S.call("timestamp_micros", epoch_micros(value))
    return S.lit(as_utc(value).strftime("%Y-%m-%d %H:%M:%S.%f")).cast("timestamp_ntz")
