"""dqx-gx's own expressions (dqx_gx/spark/own_expressions.py): PySpark's record of where each expression was
built is off while dqx-gx builds, and each Spark function is looked up once. The private names it turns, what
turning them changes, and that no call site is recorded from dqx-gx's code in a contract's first run, the row
gate, the outputs, a CSV batch's casts or a draft's profile."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path

import pytest
from pyspark.errors import ArithmeticException
from pyspark.sql import Column, DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from dqx_gx import read_data, run_contract
from dqx_gx.draft.profile import profile
from dqx_gx.expectations.built import BUILT, BuiltColumns
from dqx_gx.rows import annotate_rows
from dqx_gx.rows.choices import Output
from dqx_gx.rows.gate import gated
from dqx_gx.rows.outputs import write_split
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark_versions import CALL_SITE_SWITCH as pyspark_errors
from dqx_gx.spark_versions import CALL_SITES
from dqx_gx.spark_versions import FUNCTIONS as pyspark_functions
from tests.conftest import needs
from tests.documents import one_table
from tests.gateway import commands_sent
from tests.rows.test_gate import DDL, awkward_rows, every_row_level_kind, statuses

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

SWITCH = "_enable_debugging_cache"
LOOKUP = "_get_jvm_function"
PYSPARKS_LOOKUP = getattr(pyspark_functions, LOOKUP)


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """PySpark's recording on, as a session with its default settings has it."""
    monkeypatch.setattr(pyspark_errors, SWITCH, True)


@pytest.fixture
def recorded_from(recording: None, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file and line that called each column function whose call site PySpark records (it still records
    them)."""
    callers: list[str] = []
    capture = pyspark_errors._capture_call_site

    def recorded(depth: int) -> str:
        outside = [f for f in traceback.extract_stack() if "/pyspark/" not in f.filename and f.filename != __file__]
        callers.append(f"{outside[-1].filename}:{outside[-1].lineno}")
        return capture(depth)

    monkeypatch.setattr(pyspark_errors, "_capture_call_site", recorded)
    return callers


def division_error(spark: SparkSession, quotient: Column) -> str:
    with pytest.raises(ArithmeticException) as raised:
        spark.range(3).select(quotient).collect()
    return str(raised.value)


@needs(CALL_SITES)
def test_an_expression_built_inside_names_no_line_of_its_builder(spark: SparkSession, recording: None) -> None:
    here = f"{Path(__file__).name}:"
    outside = F.col("id") / F.lit(0)
    with own_expressions():
        inside = F.col("id") / F.lit(0)
    assert here in division_error(spark, outside)
    assert here not in division_error(spark, inside)


@needs(CALL_SITES)
def test_the_switch_is_put_back_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    for before in (None, True):
        monkeypatch.setattr(pyspark_errors, SWITCH, before)
        with own_expressions():
            with own_expressions():
                assert getattr(pyspark_errors, SWITCH) is False
            assert getattr(pyspark_errors, SWITCH) is False  # the outer use still builds
        assert getattr(pyspark_errors, SWITCH) is before
        with pytest.raises(LookupError, match="while building"), own_expressions():
            raise LookupError("while building")
        assert getattr(pyspark_errors, SWITCH) is before
        assert getattr(pyspark_functions, LOOKUP) is PYSPARKS_LOOKUP

    def someone_elses(name: str, sc: object) -> object:
        return PYSPARKS_LOOKUP(name, sc)

    monkeypatch.setattr(pyspark_functions, LOOKUP, someone_elses)
    with own_expressions():
        assert getattr(pyspark_functions, LOOKUP) is not someone_elses
    assert getattr(pyspark_functions, LOOKUP) is someone_elses  # what was there before, not PySpark's own


def test_inside_each_spark_function_is_looked_up_once(spark: SparkSession, monkeypatch: pytest.MonkeyPatch) -> None:
    def built() -> object:
        return F.upper(F.lit("a"))

    assert commands_sent(built, monkeypatch).count("r") == 4  # PySpark's own lookups: two per function
    with own_expressions():
        assert getattr(pyspark_functions, LOOKUP) is not PYSPARKS_LOOKUP
        built()
        assert commands_sent(built, monkeypatch) == ["c", "c"]  # the two calls alone
    assert getattr(pyspark_functions, LOOKUP) is PYSPARKS_LOOKUP
    assert commands_sent(built, monkeypatch).count("r") == 4
    with own_expressions():
        kept = F.upper(F.lit("a"))
    assert spark.range(1).select(kept.alias("v")).first() == Row(v="A")  # a kept function still calls Spark's


@needs(CALL_SITES)
def test_uses_on_two_threads_that_overlap_share_the_switch(recording: None) -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    waited: list[bool] = []
    seen: list[object] = []

    def first() -> None:
        with own_expressions():
            first_in.set()
            waited.append(second_in.wait(30))
        first_out.set()

    def second() -> None:
        waited.append(first_in.wait(30))
        with own_expressions():
            second_in.set()
            waited.append(first_out.wait(30))
            seen.append(getattr(pyspark_errors, SWITCH))  # the first one ended: still off for this one

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert waited == [True, True, True]  # the two uses did overlap
    assert seen == [False]
    assert getattr(pyspark_errors, SWITCH) is True


@needs(CALL_SITES)
def test_kept_expressions_are_built_with_the_recording_off(recording: None) -> None:
    assert BuiltColumns().get("key", pyspark_errors.is_debugging_enabled) is False
    assert pyspark_errors.is_debugging_enabled() is True


@needs(CALL_SITES)
def test_no_call_site_is_recorded_from_dqx_gx_in_a_first_run_the_gate_or_a_draft(
    spark: SparkSession, recorded_from: list[str]
) -> None:
    contract, frame = every_row_level_kind(), spark.createDataFrame(awkward_rows(), DDL)
    references: dict[str, DataFrame] = statuses(spark)
    F.col("id")  # the spy sees what PySpark records
    assert len(recorded_from) == 1
    BUILT.clear()
    run = run_contract(contract, frame, references=references)
    annotate_rows(contract, frame, verdict=run, references=references)
    profile(frame, max_values=10)
    assert [caller for caller in recorded_from if "/dqx_gx/" in caller] == []


@needs(CALL_SITES)
def test_no_call_site_is_recorded_from_dqx_gx_for_a_csv_batch_gated_and_written(
    spark: SparkSession, recorded_from: list[str], tmp_path: Path
) -> None:
    contract = one_table(
        [{"name": "id", "logicalType": "integer", "unique": True}, {"name": "note", "logicalType": "string"}]
    )
    (tmp_path / "batch.csv").write_text("id,note\n1,a\n2,b\n2,c\nx,d\n")
    F.col("id")
    assert len(recorded_from) == 1
    batch = read_data(spark, contract, path=str(tmp_path / "batch.csv"))  # cast from text
    with gated(contract, batch) as gate:
        run = run_contract(contract, gate.batch)
        written = write_split(
            gate.annotated(run), Output(str(tmp_path / "v")), Output(str(tmp_path / "q")), "csv", overwrite=False
        )
    assert [w.rows for w in written] == [1, 3]  # the repeated id's rows and the one that did not cast
    assert [caller for caller in recorded_from if "/dqx_gx/" in caller] == []


@needs(CALL_SITES)
def test_no_call_site_is_recorded_from_gx_metric_partials_for_its_own_rules(
    spark: SparkSession, recorded_from: list[str]
) -> None:
    """GX's own conditions for ``engine: greatExpectations`` rules are metric partials: built with the recording
    off too (gx_private.lighter_metric_resolution), and the rules report what GX counts."""
    gx_rule = {"type": "custom", "engine": "greatExpectations"}
    contract = one_table(
        [
            {
                "name": "status",
                "logicalType": "string",
                "quality": [
                    {
                        **gx_rule,
                        "name": "status set",
                        "implementation": {"type": "expect_column_values_to_not_be_null"},
                    },
                    {
                        **gx_rule,
                        "name": "status known",
                        "implementation": {
                            "type": "expect_column_values_to_be_in_set",
                            "kwargs": {"value_set": ["new", "paid"]},
                        },
                    },
                ],
            }
        ]
    )
    frame = spark.createDataFrame([("new",), ("paid",), ("lost",), (None,)], "status string")
    F.col("status")
    assert len(recorded_from) == 1
    run = run_contract(contract, frame)
    counts = {r.rule.name: (r.assertion.status, r.assertion.metric.unwrap()) for r in run.rule_results}
    assert (counts["status set"], counts["status known"]) == (("FAILED", 1.0), ("FAILED", 1.0))
    assert [caller for caller in recorded_from if "/great_expectations/" in caller or "/dqx_gx/" in caller] == []
