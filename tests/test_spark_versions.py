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

from dqx_gx import read_data, run_contract
from dqx_gx.rules.rule import DataType
from dqx_gx.sources.choices import SourceError
from dqx_gx.spark.types import type_mismatch
from dqx_gx.spark_versions import (
    CALL_SITE_SWITCH,
    CALL_SITES,
    CLASSIC_SESSION_TAGS,
    FIRST_CALL_IMPORTS,
    FOREIGN_KEYS,
    FUNCTIONS,
    GROUPING_SETS,
    PYSPARK,
    QUERY_CONTEXT_LOGS,
    TIME,
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
    assert FOREIGN_KEYS.available == (hasattr(DataFrame, "exists") and hasattr(Column, "outer"))
    assert GROUPING_SETS.available == hasattr(DataFrame, "groupingSets")
    assert CALL_SITES.available == hasattr(pyspark.errors.utils, "_enable_debugging_cache")
    assert CALL_SITE_SWITCH is (pyspark.errors.utils if CALL_SITES.available else None)
    assert QUERY_CONTEXT_LOGS.available == (importlib.util.find_spec("pyspark.logger") is not None)
    assert callable(FUNCTIONS._get_jvm_function)
    assert F.upper.__module__ == FUNCTIONS.__name__  # the module whose lookup every F.<function> calls
    # what PySpark's first call into the JVM imports (its type converters), taken early by session.Starting
    assert bool(FIRST_CALL_IMPORTS) == ("pyspark.testing.utils" in inspect.getsource(T))


def test_a_missing_feature_says_which_version_it_needs() -> None:
    for feature in (TIME, FOREIGN_KEYS, GROUPING_SETS, CALL_SITES, CLASSIC_SESSION_TAGS, QUERY_CONTEXT_LOGS):
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


def test_a_foreign_key_counts_or_fails_with_the_version_it_needs(spark: SparkSession) -> None:
    contract = one_table(
        [
            {"name": "k", "logicalType": "integer", "relationships": [{"to": "r.k"}]},
            {"name": "v", "logicalType": "integer"},
        ],
        [{"type": "library", "metric": "rowCount", "mustBe": 3, "name": "rows"}],
    )
    frame = spark.createDataFrame([(1, 1), (2, 2), (9, 3)], "k int, v int")
    reference = spark.createDataFrame([(1,), (2,)], "k int")
    run = run_contract(contract, frame, references={"r": reference})
    by_name = {result.rule.name: result for result in run.rule_results}
    assert (by_name["rows"].assertion.status, by_name["rows"].observed) == ("PASSED", 3)  # the rest of the run works
    key = by_name["foreign key k → r.k"]
    if FOREIGN_KEYS.available:
        assert (key.assertion.status, key.observed) == ("FAILED", 1)
    else:
        assert (key.assertion.status, key.observed, key.reason) == ("FAILED", None, FOREIGN_KEYS.missing())


def test_a_parquet_time_column_is_read_or_refused_naming_the_version(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "times.parquet"
    pq.write_table(pa.table({"at": pa.array([dt.time(10, 30)], pa.time64("us"))}), path)
    if TIME.available:  # read with Spark's TIME type on (the command turns it on; tests/sources covers the rest)
        spark.conf.set("spark.sql.timeType.enabled", "true")
        try:
            assert isinstance(read_data(spark, path=str(path)).schema["at"].dataType, T.TimeType)
        finally:
            spark.conf.unset("spark.sql.timeType.enabled")
    else:
        with pytest.raises(SourceError) as refused:
            read_data(spark, path=str(path))
        assert str(refused.value).endswith(f"column(s) 'at' of Parquet type TIME(MICROS): {TIME.missing()}")
