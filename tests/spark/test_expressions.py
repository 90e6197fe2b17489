"""The Spark expressions kinds are written in (dqx_gx/spark/expressions.py): a list's values cast to the column's
type by the type's name, as they were by the type itself."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from dqx_gx.spark.expressions import cast_target, is_in

PLAIN_TYPES = [
    T.StringType(),
    T.CharType(3),
    T.VarcharType(5),
    T.ByteType(),
    T.ShortType(),
    T.IntegerType(),
    T.LongType(),
    T.FloatType(),
    T.DoubleType(),
    T.DecimalType(12, 2),
    T.DecimalType(38, 0),
    T.BooleanType(),
    T.DateType(),
    T.TimestampType(),
    T.TimestampNTZType(),
    T.BinaryType(),
    T.DayTimeIntervalType(),
    T.YearMonthIntervalType(),
]


@pytest.mark.parametrize("data_type", PLAIN_TYPES, ids=lambda t: t.simpleString())
def test_a_value_cast_by_the_types_name_is_the_value_cast_by_the_type(
    spark: SparkSession, data_type: T.DataType
) -> None:
    assert isinstance(cast_target(data_type), str)
    values = ["1", "0.5", "2026-11-27", "2026-11-27 10:30:00", "true", "x", "1 02:03:04", "1-2"]
    by_name = [F.lit(v).try_cast(cast_target(data_type)) for v in values]
    by_type = [F.lit(v).try_cast(data_type) for v in values]
    frame = spark.range(1).select(*[c.alias(f"n{i}") for i, c in enumerate(by_name + by_type)])
    types = [f.dataType for f in frame.schema.fields]
    assert types[: len(values)] == types[len(values) :]  # char and varchar are cast as string either way
    as_text = frame.select(*[F.col(f"n{i}").cast("string") for i in range(2 * len(values))]).first()
    assert as_text is not None
    assert list(as_text)[: len(values)] == list(as_text)[len(values) :]


def test_a_composite_type_is_cast_to_as_it_is() -> None:
    composite = T.StructType([T.StructField("a b", T.IntegerType())])
    assert cast_target(composite) is composite


def test_values_are_compared_in_the_columns_type(spark: SparkSession) -> None:
    schema = T.StructType(
        [
            T.StructField("price", T.DecimalType(5, 2)),
            T.StructField("day", T.DateType()),
            T.StructField("n", T.IntegerType()),
        ]
    )
    rows = [(Decimal("1.50"), dt.date(2026, 11, 27), 7), (Decimal("2.25"), dt.date(2026, 1, 1), 8), (None, None, None)]
    frame = spark.createDataFrame(rows, schema)
    fields = {f.name: f for f in schema.fields}
    found = frame.select(
        is_in(F.col("price"), fields["price"], ["1.5", "x"]).alias("price"),
        is_in(F.col("day"), fields["day"], ["2026-11-27"]).alias("day"),
        is_in(F.col("n"), fields["n"], [7, "8.0"]).alias("n"),
    ).collect()
    # a value that does not cast is NULL in the list: no match against it is NULL, as SQL's IN is
    assert [tuple(r) for r in found] == [(True, True, True), (None, False, None), (None, None, None)]
