"""dqx_gx/spark_versions.py: each difference between the PySpark versions dqx-gx runs on, pinned on the PySpark
installed (CI runs this module on every PySpark of its matrix), and what a path whose feature this PySpark lacks
answers: one line naming the version it needs, the rest of the run unchanged."""

from __future__ import annotations

import datetime as dt
import importlib.util
import inspect
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pyspark
import pyspark.errors.utils
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from dqx_gx import annotate_rows, read_data, run_contract
from dqx_gx.rows import ERRORS, WARNINGS
from dqx_gx.rules.rule import DataType
from dqx_gx.sources.choices import SourceError
from dqx_gx.spark.types import type_mismatch
from dqx_gx.spark_versions import (
    BOTTOM_K,
    CALL_SITE_SWITCH,
    CALL_SITES,
    CLASSIC_SESSION_TAGS,
    EXISTS_SUBQUERY,
    FIRST_CALL_IMPORTS,
    FUNCTIONS,
    GROUPING_SETS,
    PYSPARK,
    QUERY_CONTEXT_LOGS,
    TIME,
    TIME_NANOS,
    TIME_TYPES,
    error_condition,
    pyspark_logger,
)
from tests.documents import one_table

pytestmark = pytest.mark.compat


def test_the_version_is_pysparks_own() -> None:
    assert ".".join(map(str, PYSPARK)) == ".".join(pyspark.__version__.split(".")[:2])
    assert (3, 5) <= PYSPARK < (4, 4)  # the declared range (pyproject.toml)


def test_each_feature_is_there_exactly_where_it_is_said_to_be() -> None:
    assert TIME.available == hasattr(T, "TimeType")
    assert len(TIME_TYPES) == TIME.available
    assert EXISTS_SUBQUERY.available == (hasattr(DataFrame, "exists") and hasattr(Column, "outer"))
    assert GROUPING_SETS.available == hasattr(DataFrame, "groupingSets")
    assert CALL_SITES.available == hasattr(pyspark.errors.utils, "_enable_debugging_cache")
    assert CALL_SITE_SWITCH is (pyspark.errors.utils if CALL_SITES.available else None)
    assert QUERY_CONTEXT_LOGS.available == (importlib.util.find_spec("pyspark.logger") is not None)
    assert BOTTOM_K.available == ("k" in inspect.signature(F.min_by).parameters)
    assert callable(FUNCTIONS._get_jvm_function)
    assert F.upper.__module__ == FUNCTIONS.__name__  # the module whose lookup every F.<function> calls
    # what PySpark's first call into the JVM imports (its type converters), taken early by session.Starting
    assert bool(FIRST_CALL_IMPORTS) == ("pyspark.testing.utils" in inspect.getsource(T))


def test_a_missing_feature_says_which_version_it_needs() -> None:
    for feature in (
        TIME,
        TIME_NANOS,
        EXISTS_SUBQUERY,
        GROUPING_SETS,
        CALL_SITES,
        CLASSIC_SESSION_TAGS,
        QUERY_CONTEXT_LOGS,
        BOTTOM_K,
    ):
        since = ".".join(map(str, feature.since))
        expected = (
            None if feature.available else f"needs PySpark {since} or later (this is PySpark {pyspark.__version__})"
        )
        assert (feature.missing() or "").endswith(expected or "") and (feature.missing() is None) == feature.available


def test_session_tags_of_a_classic_session(spark: SparkSession) -> None:
    if CLASSIC_SESSION_TAGS.available:
        spark.addTag("dqx-gx-tag")
        try:
            assert "dqx-gx-tag" in spark.getTags()
        finally:
            spark.removeTag("dqx-gx-tag")
    else:
        with pytest.raises(Exception, match="only supported with Spark Connect"):
            spark.getTags()


def test_query_context_loggers_are_pysparks_where_it_has_them() -> None:
    logger = pyspark_logger("DataFrameQueryContextLogger")
    assert (logger is not None) == QUERY_CONTEXT_LOGS.available
    if logger is not None:
        assert type(logger).__name__ == "PySparkLogger"


def test_min_by_with_a_count_keeps_the_lowest_orders_ascending_from_spark_4_2(spark: SparkSession) -> None:
    """What the samples taken in a run's pass rest on: ``min_by(value, order, k)`` gives the ``k`` values of the
    lowest orders, lowest first, a NULL order never, NULL when no row has an order (struct orders compared field by
    field)."""
    frame = spark.createDataFrame([(v, o) for v, o in enumerate([5, None, 3, 9, 1, 3])], "v int, o int")
    order = "CASE WHEN o IS NULL THEN NULL ELSE named_struct('o', o, 'v', -v) END"
    query = f"min_by(v, {order}, 3)"
    if not BOTTOM_K.available:
        with pytest.raises(AnalysisException):
            frame.agg(F.expr(query)).collect()
        return
    assert frame.agg(F.expr(query)).first()[0] == [4, 5, 2]  # type: ignore[index]
    assert frame.where("o IS NULL").agg(F.expr(query)).first()[0] is None  # type: ignore[index]
    assert frame.where("false").agg(F.expr(query)).first()[0] is None  # type: ignore[index]


def test_the_error_condition_is_read_under_either_name(spark: SparkSession, tmp_path: object) -> None:
    with pytest.raises(AnalysisException) as raised:
        spark.read.parquet(f"{tmp_path}/nothing-here")
    assert error_condition(raised.value) == "PATH_NOT_FOUND"


def test_a_time_column_needs_spark_4_1() -> None:
    declared = DataType("time")
    problem = type_mismatch(declared, T.StringType(), "'t'")
    if TIME.available:
        assert problem == "'t' type mismatch: expected logicalType 'time' (time), got string"
        assert type_mismatch(declared, T.TimeType(), "'t'") is None
    else:
        assert problem == f"'t' type mismatch: expected logicalType 'time', got string: {TIME.missing()}"


def test_a_foreign_key_counts_on_every_pyspark(spark: SparkSession) -> None:
    """A correlated EXISTS from PySpark 4.0, a join with the distinct referenced keys before: the same count
    and marks, NULL keys never missing, a key repeated in the referenced dataset repeating no row."""
    contract = one_table(
        [
            {"name": "k", "logicalType": "integer", "relationships": [{"to": "r.k"}]},
            {"name": "v", "logicalType": "integer"},
        ],
        [{"type": "library", "metric": "rowCount", "mustBe": 4, "name": "rows"}],
    )
    frame = spark.createDataFrame([(1, 1), (2, 2), (9, 3), (None, 4)], "k int, v int")
    reference = spark.createDataFrame([(1,), (1,), (2,), (None,)], "k int")
    run = run_contract(contract, frame, references={"r": reference})
    by_name = {result.rule.name: result for result in run.rule_results}
    assert (by_name["rows"].assertion.status, by_name["rows"].observed) == ("PASSED", 4)
    key = by_name["foreign key k → r.k"]
    assert (key.assertion.status, key.observed, key.reason) == ("FAILED", 1, None)
    rows = annotate_rows(contract, frame, references={"r": reference}).orderBy("v").collect()
    assert [(row["k"], bool(row[ERRORS] or row[WARNINGS])) for row in rows] == [
        (1, False),
        (2, False),
        (9, True),
        (None, False),
    ]
    self_referencing = one_table(
        [
            {"name": "k", "logicalType": "integer", "relationships": [{"to": "t.v"}]},
            {"name": "v", "logicalType": "integer"},
        ],
        [],
    )
    run = run_contract(self_referencing, frame)
    assert [(r.assertion.status, r.observed) for r in run.rule_results if r.rule.name.startswith("foreign")] == [
        ("FAILED", 1)  # 9 is no v; NULL references nothing
    ]


def test_a_parquet_time_column_is_read_or_refused_naming_the_version(spark: SparkSession, tmp_path: Path) -> None:
    micros, nanos = tmp_path / "us.parquet", tmp_path / "ns.parquet"
    pq.write_table(pa.table({"at": pa.array([dt.time(10, 30)], pa.time64("us"))}), micros)
    pq.write_table(pa.table({"at": pa.array([dt.time(10, 30)], pa.time64("ns"))}), nanos)
    if TIME.available:  # read with Spark's TIME type on (the command turns it on; tests/sources covers the rest)
        spark.conf.set("spark.sql.timeType.enabled", "true")
        try:
            assert isinstance(read_data(spark, path=str(micros)).schema["at"].dataType, T.TimeType)
            if TIME_NANOS.available:
                assert read_data(spark, path=str(nanos)).schema["at"].dataType == T.TimeType(9)
            else:
                with pytest.raises(SourceError) as refused:
                    read_data(spark, path=str(nanos))
                assert f"column(s) 'at' of Parquet type TIME(NANOS): {TIME_NANOS.missing()}; " in str(refused.value)
        finally:
            spark.conf.unset("spark.sql.timeType.enabled")
    else:
        assert not TIME_NANOS.available
        with pytest.raises(SourceError) as refused:
            read_data(spark, path=str(micros))
        assert str(refused.value).endswith(
            f"column(s) 'at' of Parquet type TIME(MICROS): {TIME.missing()}; or write it as text"
        )
