"""The Spark expressions kinds are written in (dqx_gx/spark/expressions.py, as text: dqx_gx/spark/text.py): a list's
values cast to the column's type by the type's text, as by the type itself; literals typed as ``F.lit`` types them;
names and text from a contract never read as SQL."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from dqx_gx.spark import text as S
from dqx_gx.spark.columns import NESTED_PATH
from dqx_gx.spark.expressions import is_in

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
def test_a_value_cast_by_the_types_text_is_the_value_cast_by_the_type(
    spark: SparkSession, data_type: T.DataType
) -> None:
    values = ["1", "0.5", "2026-11-27", "2026-11-27 10:30:00", "true", "x", "1 02:03:04", "1-2"]
    by_text = [S.lit(v).try_cast(S.sql_type(data_type)).column() for v in values]
    by_type = [F.lit(v).try_cast(data_type) for v in values]
    frame = spark.range(1).select(*[c.alias(f"n{i}") for i, c in enumerate(by_text + by_type)])
    types = [f.dataType for f in frame.schema.fields]
    assert types[: len(values)] == types[len(values) :]  # char and varchar are cast as string either way
    as_text = frame.select(*[F.col(f"n{i}").cast("string") for i in range(2 * len(values))]).first()
    assert as_text is not None
    assert list(as_text)[: len(values)] == list(as_text)[len(values) :]


def test_a_composite_types_field_names_are_quoted(spark: SparkSession) -> None:
    composite = T.StructType(
        [
            T.StructField("a b", T.IntegerType()),
            T.StructField("x`y", T.ArrayType(T.MapType(T.StringType(), T.DateType()))),
        ]
    )
    assert S.sql_type(composite) == "struct<`a b`:int,`x``y`:array<map<string,date>>>"
    assert spark.range(1).select(S.null(composite).column()).schema.fields[0].dataType == composite


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
        is_in(S.col(fields["price"]), fields["price"], ["1.5", "x"]).column().alias("price"),
        is_in(S.col(fields["day"]), fields["day"], ["2026-11-27"]).column().alias("day"),
        is_in(S.col(fields["n"]), fields["n"], [7, "8.0"]).column().alias("n"),
    ).collect()
    # a value that does not cast is NULL in the list: no match against it is NULL, as SQL's IN is
    assert [tuple(r) for r in found] == [(True, True, True), (None, False, None), (None, None, None)]


LITERALS = [
    None,
    True,
    False,
    0,
    -7,
    -(2**31),
    2**31 - 1,
    2**31,
    -(2**63),
    2**63 - 1,
    1.5,
    -0.0,
    1e-05,
    1e300,
    float("inf"),
    float("-inf"),
    "",
    "plain text",
    "it's",
    "back\\slash",
    "\\' OR 1=1 --",
    "line\nbreak é 😀",
    "a${x}b",
    "${env:HOME}",
    "^user[0-9]+$",
    Decimal("1.50"),
    Decimal("-12345678901234567890.123"),
    dt.date(2026, 11, 27),
]


@pytest.mark.parametrize("escaped", ["false", "true"])
def test_a_literal_has_the_type_and_value_f_lit_gives_it_in_either_string_mode(
    spark: SparkSession, escaped: str
) -> None:
    """``spark.sql.parser.escapedStringLiterals`` changes what a backslash in quotes means; no value depends on it."""
    previous = spark.conf.get("spark.sql.parser.escapedStringLiterals")
    spark.conf.set("spark.sql.parser.escapedStringLiterals", escaped)
    try:
        ours = spark.range(1).select(*[S.lit(v).column().alias(f"v{i}") for i, v in enumerate(LITERALS)])
        theirs = spark.range(1).select(*[F.lit(v).alias(f"v{i}") for i, v in enumerate(LITERALS)])
        assert [f.dataType for f in ours.schema.fields] == [f.dataType for f in theirs.schema.fields]
        assert list(ours.first() or ()) == list(theirs.first() or ()) == LITERALS
    finally:
        spark.conf.set("spark.sql.parser.escapedStringLiterals", str(previous))


def test_nan_is_a_double_literal(spark: SparkSession) -> None:
    (value,) = spark.range(1).select(S.lit(float("nan")).column()).first() or (None,)
    assert math.isnan(value)


def test_a_literal_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match="no Spark literal for"):
        S.lit(dt.datetime(2026, 11, 27, 10, 30))
    with pytest.raises(TypeError, match="no Spark literal for"):
        S.lit(Decimal("NaN"))


def test_names_are_names_under_variable_substitution_and_regex_column_names(spark: SparkSession) -> None:
    """``${x}`` in a name is not substituted, ``a.b`` is not a regular expression matching ``aXb``."""
    frame = spark.createDataFrame(
        [(1, 10, 100, 1000, (5,)), (1, 20, 100, 2000, (6,))],
        "`a.b` int, aXb int, `a${x}b` int, ab int, `s t` struct<`u.v`:int>",
    )
    fields = {f.name: f for f in frame.schema.fields}
    nested = T.StructField("s t.u.v", T.IntegerType(), True, {NESTED_PATH: ["s t", "u.v"]})
    settings = {"spark.sql.parser.quotedRegexColumnNames": "true", "spark.sql.variable.substitute": "true"}
    before = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        found = frame.select(
            S.count_distinct(S.col(fields["a.b"])).column(),
            S.call("sum", S.col(fields["a${x}b"])).column(),
            S.call("max", S.col(nested)).column(),
        ).first()
    finally:
        for key, value in before.items():
            spark.conf.set(key, str(value))
    assert list(found or ()) == [1, 200, 6]


def test_a_column_named_in_its_text_has_the_name_whatever_it_holds(spark: SparkSession) -> None:
    frame = spark.createDataFrame([(2,)], "n int")
    named = frame.select((S.named("n") + 1).column("a.b `c`"), S.lit("x").column("_dqx_key_0"))
    assert named.columns == ["a.b `c`", "_dqx_key_0"]
    assert list(named.first() or ()) == [3, "x"]
    with pytest.raises(ValueError, match="holding"):
        S.lit(1).column("a${x}")


def test_a_name_that_text_cannot_hold_is_refused() -> None:
    assert S.lit(1).field("a `b`").text == "(1).`a ``b```"  # backticked, its backticks doubled
    with pytest.raises(ValueError, match="holding"):
        S.lit(1).field("a${x}")  # Spark would substitute it before parsing
    with pytest.raises(ValueError, match="holding"):
        S.sql_type(T.StructType([T.StructField("a${x}", T.IntegerType())]))


def test_awkward_column_names_and_a_lambda_read_their_own_values(spark: SparkSession) -> None:
    frame = spark.createDataFrame([(1, [1, 5], 3, 9)], "`a.b` int, `x``y` array<int>, `_dqx_element` int, `my col` int")
    fields = frame.schema.fields
    dotted, ticked, element, spaced = (S.col(f) for f in fields)
    big = S.exists(ticked, lambda item: item > 4)  # its element, not the column of the lambda variable's name
    row = frame.select(
        (dotted + spaced).column(), big.column(), (~(dotted == 1) | (spaced != 9)).column(), element.column()
    ).first()
    assert list(row or ()) == [10, True, False, 3]


def test_an_expression_has_no_truth_value() -> None:
    with pytest.raises(TypeError, match="no truth value"):
        bool(S.lit(1) == 1)
