"""The Spark query of the one dqlib metric no kind computes: the value of the batch's first row.

dqlib's ``first(c)`` is DuckDB's ``CAST(FIRST(c) AS DOUBLE)``: the value (NULL included) of the first row
of the relation in its order. A Spark DataFrame's rows are ordered by partition, then within each, and
``limit(1)`` reads them from the first partition on, so one query of its own (a job that reads the first
rows only) returns it. Not an aggregate of the shared pass: Spark refuses a non-deterministic expression
(``monotonically_increasing_id()``, which would number the rows) inside an aggregate, and its ``first()``
aggregate returns whichever partition's partial result reaches the final aggregate first.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql.types import StructField

from dqx_gx.kinds import TypeFamily
from dqx_gx.spark import text as S
from dqx_gx.spark.own_expressions import own_expressions

CASTS_TO_DOUBLE = frozenset({TypeFamily.INTEGER, TypeFamily.FRACTIONAL, TypeFamily.BOOLEAN, TypeFamily.TEXT})
"""The column types whose values a double can hold (text as the number it spells, when it spells one)."""


def first_row(batch: DataFrame, field: StructField) -> list[object] | None:
    """The first row's value as ``[value as a double, is NaN, is NULL]`` (GX would turn NaN into None, and a
    NULL must be told from text that is no number); None for an empty batch."""
    column = S.col(field)
    value = column.try_cast("double")
    with own_expressions():
        query = batch.select(
            value.column().alias("value"), S.call("isnan", value).column(), column.is_null().column()
        ).limit(1)
    rows = query.collect()
    return list(rows[0]) if rows else None
