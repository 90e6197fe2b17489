"""A batch's columns (dqx_gx/spark/columns.py): during a run, each batch's names are found by its session's case
rule as read once at the run's start."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import LongType, StringType, StructField, StructType

from dqx_gx.spark.columns import Columns, case_rule_read
from tests.gateway import commands_sent


def test_inside_a_run_the_case_rule_is_read_once(spark: SparkSession, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = spark.createDataFrame([(1, 2)], "b int, B int")
    frame.schema  # noqa: B018 - PySpark keeps a frame's schema once read
    assert commands_sent(lambda: Columns.of(frame), monkeypatch) != []  # the setting, read from the session
    with case_rule_read(spark):
        found = Columns.of(frame)
        assert commands_sent(lambda: Columns.of(frame), monkeypatch) == []
    assert found == Columns(frame.schema, case_sensitive=False)
    assert found.find("b") is None  # b and B are the same name ignoring case


def test_a_batch_of_another_session_is_read_by_its_own_rule(spark: SparkSession) -> None:
    other = spark.newSession()
    other.conf.set("spark.sql.caseSensitive", "true")
    frame = other.createDataFrame([(1, 2)], "b int, B int")
    with case_rule_read(spark):
        found = Columns.of(frame)
    assert found.case_sensitive is True
    assert found.find("B") == frame.schema["B"]


def test_columns_equal_by_schema_hash_alike_and_columns_of_other_types_stay_apart() -> None:
    text = Columns(StructType([StructField("a", StringType()), StructField("b", LongType())]))
    same = Columns(StructType([StructField("a", StringType()), StructField("b", LongType())]))
    retyped = Columns(StructType([StructField("a", LongType()), StructField("b", LongType())]))
    assert text == same and hash(text) == hash(same)
    assert text != retyped and text != Columns(text.schema, case_sensitive=True)
    kept = {text: "text", retyped: "retyped"}
    assert kept[same] == "text" and kept[retyped] == "retyped" and len(kept) == 2
