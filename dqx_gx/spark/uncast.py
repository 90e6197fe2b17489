"""The hidden column of a batch read from an untyped source (docs/semantics.md, 'Data in'): the text each cast column
was read as.

``dqx_gx.sources.untyped`` adds it when it casts CSV or JSON text to the declared types: a struct
with one string field per cast column. A value whose text is there but whose cast is NULL did not
cast: the type rule counts those (``dqx.uncast_values``), the row gate marks them, samples show the
text, and the quarantine output writes each row as it was read. No message, listing or output shows
the column itself.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField, StructType

from dqx_gx.spark import text as S
from dqx_gx.spark.columns import UNCAST, Columns, spark_column
from dqx_gx.spark.expressions import counted
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.text import Sql

__all__ = ["UNCAST", "as_read", "read_text", "uncast_count", "uncast_mark"]


def uncast_count(columns: Columns, column: str) -> Sql:
    """How many rows hold a value of ``column`` that did not cast; NULL for a typed batch."""
    if columns.find(UNCAST) is None:
        return S.null("bigint")
    return S.call("count_if", uncast_mark(columns, column))


def uncast_mark(columns: Columns, column: str) -> Sql:
    """True for a row whose ``column`` value did not cast, never NULL (False for a column not cast)."""
    text = read_text(columns, column)
    found = columns.find(column)
    if text is None or found is None:
        return S.lit(False)
    return counted(text.is_not_null() & S.col(found).is_null())


def read_text(columns: Columns, column: str) -> Sql | None:
    """The text ``column`` was read as, when it was cast from text; else None."""
    cast = _cast_fields(columns)
    found = columns.find(column)
    if found is None or found.name not in cast:
        return None
    return S.named(UNCAST, found.name)


@own_expressions()
def as_read(frame: DataFrame) -> DataFrame:
    """``frame`` without ``_dqx_uncast``, each cast column back to the text it was read as (docs/semantics.md, 'Data
    in': the values that were there, so a corrected file reads again by the same contract)."""
    columns = Columns.of(frame)
    cast = _cast_fields(columns)
    if columns.find(UNCAST) is None:
        return frame
    kept = [
        F.col(UNCAST).getField(f.name).alias(f.name) if f.name in cast else spark_column(f)
        for f in frame.schema.fields
        if f.name != UNCAST
    ]
    return frame.select(*kept)


def _cast_fields(columns: Columns) -> set[str]:
    helper: StructField | None = columns.find(UNCAST)
    if helper is None or not isinstance(helper.dataType, StructType):
        return set()
    return {f.name for f in helper.dataType.fields}
