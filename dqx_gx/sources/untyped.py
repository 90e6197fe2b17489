"""Untyped sources (SPEC §6): CSV and JSON store no types, so declared columns are cast from text.

Each declared column of a primitive type is cast (``try_cast``) to that type; every other rule
sees the cast values. The text each cast column was read as is kept in the hidden struct column
``_dqx_uncast`` (one string field per cast column): a value whose text is there but whose cast is
NULL did not cast. The type rule counts those (``dqx.uncast_values``), the row-level gate marks
them, samples show the text, and the quarantine output writes each row as it was read. No message,
listing or output shows the column itself.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import AtomicType, StructField, StructType

from dqx_gx.contract.model import Contract
from dqx_gx.rules.rule import DataType, TypeRule
from dqx_gx.spark.columns import UNCAST, Columns, spark_column
from dqx_gx.spark.types import type_mismatch

__all__ = ["UNCAST", "as_read", "cast_declared", "read_text", "spark_type", "uncast_count", "uncast_mark"]

_SPARK_TYPES = {"integer": "bigint", "number": "double", "boolean": "boolean", "date": "date", "string": "string"}


def cast_declared(frame: DataFrame, contract: Contract) -> DataFrame:
    """``frame`` (read as text) with each declared primitive column cast to its type, plus ``_dqx_uncast``.

    Columns already of a fitting type, undeclared columns and nested types are left as read
    (the type rule reports a nested declaration against text as a mismatch).
    """
    columns = Columns.of(frame)
    casts: dict[str, Column] = {}
    texts: list[Column] = []
    for rule in contract.rules:
        if not isinstance(rule, TypeRule) or rule.data_type is None or rule.column is None:
            continue
        found = columns.find(rule.column)
        target = spark_type(rule.data_type)
        if found is None or target is None or not isinstance(found.dataType, AtomicType) or found.name in casts:
            continue
        if type_mismatch(rule.data_type, found.dataType, rule.column) is None:
            continue
        raw = spark_column(found)
        casts[found.name] = raw.try_cast(target).alias(found.name)
        texts.append(raw.cast("string").alias(found.name))
    kept = [casts.get(f.name, spark_column(f)) for f in frame.schema.fields]
    return frame.select(*kept, F.struct(*texts).alias(UNCAST))


def spark_type(declared: DataType) -> str | None:
    """The Spark type text is cast to for a declared primitive type; None: not cast (nested, time, binary)."""
    if declared.logical_type == "timestamp":
        return "timestamp_ntz" if declared.options.get("timezone") is False else "timestamp"
    return _SPARK_TYPES.get(declared.logical_type)


def uncast_count(columns: Columns, column: str) -> Column:
    """How many rows hold a value of ``column`` that did not cast; NULL for a typed batch."""
    if columns.find(UNCAST) is None:
        return F.lit(None).cast("bigint")
    return F.count_if(uncast_mark(columns, column))


def uncast_mark(columns: Columns, column: str) -> Column:
    """True for a row whose ``column`` value did not cast, never NULL (False for a column not cast)."""
    text = read_text(columns, column)
    found = columns.find(column)
    if text is None or found is None:
        return F.lit(False)
    return F.coalesce(text.isNotNull() & spark_column(found).isNull(), F.lit(False))


def read_text(columns: Columns, column: str) -> Column | None:
    """The text ``column`` was read as, when it was cast from text; else None."""
    cast = _cast_fields(columns)
    found = columns.find(column)
    if found is None or found.name not in cast:
        return None
    return F.col(UNCAST).getField(found.name)


def as_read(frame: DataFrame) -> DataFrame:
    """``frame`` without ``_dqx_uncast``, each cast column back to the text it was read as (SPEC §6:
    the values that were there, so a corrected file reads again by the same contract)."""
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
