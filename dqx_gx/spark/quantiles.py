"""Exact percentiles (DuckDB's ``QUANTILE_CONT``, docs/semantics.md, 'The reference: DQX itself') without sorting the
batch once per percentile.

Two looks at the data. The first pass holds :func:`bracket` (in a ``df.agg`` of the brackets' own,
beside the shared one): ``percentile_approx`` at ``p ± MARGIN``, two values whose ranks are at most
``n / ACCURACY`` from the asked ones, so the exact order statistics around ``(n - 1) · p`` lie
between them. One more ``df.agg``, shared by
every percentile of the batch, holds :func:`order_statistics`: the count of values below the
bracket, the counts of values equal to its bounds (ties are counted, never collected), the sorted
values strictly inside it (about ``6 n / ACCURACY`` at most) and the nearest value on either side.
:func:`quantile_cont` reads the two neighbouring order statistics from that and
interpolates as DuckDB does; the bracket is only a hint, every rank is counted exactly, and when
the ranks fall outside what was collected it answers :data:`UNDECIDED` and :func:`exact` runs
(Spark's exact ``percentile``, a sort of the column) instead.

Order is DuckDB's and Spark's: NULLs are not values, NaN is greater than +inf (and NaN ranks
come last, counted rather than collected, because GX turns NaN into None), -0.0 equals 0.0.
"""

from __future__ import annotations

import math
from typing import Any, Final

from pyspark.sql.types import DecimalType, StructField

from dqx_gx.spark import text as S
from dqx_gx.spark.expressions import DOUBLE, with_nan_flag
from dqx_gx.spark.text import Sql

ACCURACY: Final = 10_000
"""``percentile_approx``'s accuracy (Spark's default): rank error at most ``n / ACCURACY``."""
MARGIN: Final = 2 / ACCURACY
"""How far either side of ``p`` the bracket is asked for: twice the rank error."""
UNDECIDED: Final = None
"""What :func:`quantile_cont` answers when the ranks it needs were not collected."""


def bracket(column: Sql, p: float) -> Sql:
    """Two values, by ``percentile_approx`` at ``p ± MARGIN``, between which the exact answer lies.

    NaN is summarised as +inf, its neighbour in the order: Spark's summary mis-ranks NaN (measured:
    ``[1, 2, NaN, NaN]`` gave NaN for p = 0).
    """
    value = column.cast(DOUBLE)
    where = S.call("array", max(0.0, p - MARGIN), min(1.0, p + MARGIN))
    return S.call("percentile_approx", S.when(S.call("isnan", value), math.inf, value), where, ACCURACY)


def order_statistics(column: Sql, bounds: list[float | None] | None, field: StructField) -> Sql:
    """What :func:`quantile_cont` needs of the values, given the bracket's ``bounds`` as GX returned them,
    and the scale of a decimal column (DuckDB interpolates decimals in their own scale).

    Values equal to a bound are counted, not collected, so ties cost nothing; only the values strictly
    inside the bracket are. No bounds (no values): nothing is collected. An upper bound of +inf may
    stand for NaN, which is never collected: NaN ranks are known from their count.
    """
    value = column.cast(DOUBLE)
    number = value.is_not_null() & ~S.call("isnan", value)
    low, high = bounds if bounds else (None, None)
    nothing = S.lit(False)
    below, at_low, inside, at_high, above = number, nothing, nothing, nothing, nothing
    if low is not None and high is not None:
        below = number & (value < low)
        at_low = number & (value == low)
        inside = number & (value > low) & (value < high)
        at_high = number & (value == high) & (high != low)
        above = number & (value > high)
    return S.named_struct(
        n=S.call("count", value),
        nans=S.call("count_if", S.call("isnan", value)),
        below=S.call("count_if", below),
        before=S.call("max", S.when(below, value)),
        low=S.lit(low).cast(DOUBLE),
        at_low=S.call("count_if", at_low),
        inside=S.call("sort_array", S.call("collect_list", S.when(inside, value))),
        high=S.lit(high).cast(DOUBLE),
        at_high=S.call("count_if", at_high),
        after=S.call("min", S.when(above, value)),
        scale=S.lit(field.dataType.scale if isinstance(field.dataType, DecimalType) else None).cast("int"),
    )


def quantile_cont(p: float, found: list[Any] | None) -> list[Any] | None:
    """``[QUANTILE_CONT(values, p), is NaN]`` from :func:`order_statistics`, or :data:`UNDECIDED`.

    DuckDB: ``RN = (n - 1) · p``; the order statistic at ``RN`` when it is whole, else, for the
    neighbours at ``floor(RN)`` and ``ceil(RN)`` and ``d = RN - floor(RN)``, ``lo · (1 - d) + hi · d``
    on doubles and ``lo + trunc((hi - lo) · d)`` in units of the scale on decimals.
    """
    if not found or not found[0]:
        return [None, False]
    position = (int(found[0]) - 1) * p
    lower, upper = math.floor(position), math.ceil(position)
    low, high = _ranked(lower, found), _ranked(upper, found)
    if low is None or high is None:
        return UNDECIDED
    d = position - lower
    scale = found[-1]
    if lower == upper:
        result = low
    elif scale is None:
        result = low * (1.0 - d) + high * d
    else:
        unit = 10**scale
        units = round(low * unit)
        result = (units + int((round(high * unit) - units) * d)) / unit
    return [None if math.isnan(result) else result, math.isnan(result)]


def _ranked(rank: int, found: list[Any]) -> float | None:
    """The value of 0-based ``rank`` in the batch's order, if :func:`order_statistics` collected it."""
    count, nans, below, before, low, at_low, inside, high, at_high, after, _ = found
    if rank >= count - nans:
        return math.nan
    runs = [(1, before), (at_low, low), *((1, v) for v in inside), (at_high, high), (1, after)]
    start = below - 1
    for length, run_value in runs:
        if start <= rank < start + length:
            return None if run_value is None else float(run_value)
        start += length
    return None


def exact(column: Sql, p: float) -> Sql:
    """Spark's exact ``percentile`` (a sort of the column): for when the bracket missed."""
    return with_nan_flag(S.call("percentile", column.cast(DOUBLE), p))
