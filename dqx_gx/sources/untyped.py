"""Untyped sources (docs/semantics.md, 'Data in'): CSV and JSON store no types, so declared columns are cast from text.

Each declared column of a primitive type is cast (SQL's ``TRY_CAST``: PySpark 3.5 has no ``Column.try_cast``)
to that type; every other rule sees the cast values. The text each cast column was read as is kept in the
hidden struct column ``_dqx_uncast`` (one string field per cast column; ``dqx_gx.spark.uncast`` reads it): a value whose
text is there but whose cast is NULL did not cast.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import AtomicType

from dqx_gx.contract.model import Contract
from dqx_gx.rules.rule import DataType, TypeRule
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns, spark_column
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.types import type_mismatch
from dqx_gx.spark.uncast import UNCAST

_SPARK_TYPES = {"integer": "bigint", "number": "double", "boolean": "boolean", "date": "date", "string": "string"}


@own_expressions()
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
        casts[found.name] = S.col(found).try_cast(target).column().alias(found.name)
        texts.append(raw.cast("string").alias(found.name))
    kept = [casts.get(f.name, spark_column(f)) for f in frame.schema.fields]
    return frame.select(*kept, F.struct(*texts).alias(UNCAST))


def spark_type(declared: DataType) -> str | None:
    """The Spark type text is cast to for a declared primitive type; None: not cast (nested, time, binary)."""
    if declared.logical_type == "timestamp":
        return "timestamp_ntz" if declared.options.get("timezone") is False else "timestamp"
    return _SPARK_TYPES.get(declared.logical_type)
