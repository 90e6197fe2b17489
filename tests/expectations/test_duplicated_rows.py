"""docs/semantics.md, 'Rows: annotate, split, quarantine': a duplicates rule counts the extra copies of a key but marks every row of a repeated key (and,
for one column, every NULL key); the run reports the rows the gate marks, from its own grouping."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StructField

from dqx_gx import Contract, run_contract
from dqx_gx.rows import ERRORS, WARNINGS, annotate_rows
from dqx_gx.rules.rule import MetricRule
from dqx_gx.spark.keys import MAX_COLUMNS, KeyCounts, in_groupings, key_counts, key_query
from dqx_gx.spark.small_batch import is_small
from dqx_gx.spark.threads import as_caller
from dqx_gx.spark_versions import CLASSIC_SESSION_TAGS
from tests.conftest import ROOT, needs
from tests.documents import one_table
from tests.rows.test_samples import jobs

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

ROWS = [
    (1, "a", 10),
    (1, "a", 10),
    (1, "b", None),
    (2, None, None),
    (2, None, None),
    (3, None, 7),
    (None, "c", 7),
    (None, "d", 8),
    (4, "e", 9),
]
DDL = "id int, code string, n int"
RULES = ("ids", "id and code", "code and n", "n alone", "id, code and n")


def duplicates(name: str, properties: list[str], **operator: Any) -> dict[str, Any]:
    return {"name": name, "metric": "duplicateValues", "arguments": {"properties": properties}, **operator}


@pytest.fixture(scope="module")
def contract() -> Contract:
    return one_table(
        [
            {"name": "id", "logicalType": "integer"},
            {"name": "code", "logicalType": "string"},
            {"name": "n", "logicalType": "integer"},
        ],
        [
            duplicates("ids", ["id"], mustBe=0),
            duplicates("id and code", ["id", "code"], mustBe=0),
            duplicates("code and n", ["code", "n"], mustBeLessOrEqualTo=10),
            duplicates("n alone", ["n"], mustBeGreaterOrEqualTo=0),
            duplicates("id, code and n", ["id", "code", "n"], mustBe=0),
        ],
    )


def as_file(frame: DataFrame, folder: Path) -> DataFrame:
    """``frame`` written to parquet and read back: a batch whose size Spark knows, under the small batch's (grouped
    in one partition by ``inline``), where a list's DataFrame has no estimate (grouped by ``GROUPING SETS``)."""
    frame.write.parquet(str(folder))
    read = frame.sparkSession.read.parquet(str(folder))
    assert is_small(read) and not is_small(frame)
    return read


@pytest.fixture(scope="module", params=["unsized", "small"])
def frame(spark: SparkSession, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> DataFrame:
    listed = spark.createDataFrame(ROWS, DDL)
    return listed if request.param == "unsized" else as_file(listed, tmp_path_factory.mktemp("rows") / "batch")


def gate_marks(contract: Contract, frame: DataFrame) -> dict[str, int]:
    """Rows the gate marks per rule, errors and warnings alike."""
    annotated = annotate_rows(contract, frame)
    marks = annotated.select(F.explode(F.concat(F.coalesce(ERRORS, F.array()), F.coalesce(WARNINGS, F.array()))))
    return {row[0]: row[1] for row in marks.groupBy("col.rule").count().collect()}


def test_the_run_reports_the_rows_the_gate_marks(contract: Contract, frame: DataFrame) -> None:
    run = run_contract(contract, frame)
    reported = {r.rule.name: r.rows_marked for r in run.rule_results}
    counted = {r.rule.name: r.observed for r in run.rule_results}
    # one column: id 1 three times, 2 twice, and both NULLs (each NULL counted as a copy)
    assert counted["ids"] == 5 and reported["ids"] == 7
    # several columns: keys compared NULL-safely, (1, a) and (2, NULL) twice each
    assert counted["id and code"] == 2 and reported["id and code"] == 4
    # (NULL, NULL) twice, (a, 10) twice
    assert counted["code and n"] == 2 and reported["code and n"] == 4
    # 10 and 7 twice, NULL three times
    assert counted["n alone"] == 5 and reported["n alone"] == 7
    assert counted["id, code and n"] == 2 and reported["id, code and n"] == 4
    marked = gate_marks(contract, frame)
    for name in RULES:
        assert marked.get(name, 0) == reported[name], name


def test_names_are_found_as_spark_finds_them_and_a_missing_column_marks_nothing(
    contract: Contract, frame: DataFrame
) -> None:
    renamed = frame.select(F.col("id").alias("ID"), F.col("code").alias("Code"))  # no column n
    results = {r.rule.name: r for r in run_contract(contract, renamed).rule_results}
    assert results["ids"].rows_marked == 7 and results["id and code"].rows_marked == 4
    for name in ("code and n", "n alone", "id, code and n"):
        assert results[name].rows_marked is None and results[name].assertion.status == "FAILED", name


def test_the_stored_result_carries_the_rows_marked(contract: Contract, frame: DataFrame) -> None:
    context = gx.get_context(mode="ephemeral")
    run = run_contract(contract, frame, context=context)
    (key,) = run.checkpoint_result.run_results
    suite_result = context.validation_results_store.get(key)
    stored = {evr.expectation_config.meta["dqx"]["rule"]: evr.result.get("details") for evr in suite_result.results}
    assert stored["ids"]["rows_marked"] == 7
    assert stored["code and n"]["rows_marked"] == 4


def test_without_a_repeated_key_nothing_is_marked(spark: SparkSession, contract: Contract) -> None:
    unique = spark.createDataFrame([(1, "a", 1), (2, "a", 2), (3, None, 3)], DDL)
    run = run_contract(contract, unique)
    reported = {r.rule.name: r.rows_marked for r in run.rule_results}
    assert reported["id and code"] == 0 and reported["ids"] == 0
    assert reported["code and n"] == 0


def test_every_key_and_the_rows_it_marks_come_from_one_query(
    spark: SparkSession, contract: Contract, frame: DataFrame
) -> None:
    """Five duplicates rules that find copies cost the Spark jobs of one: their counts and rows marked
    are read from one grouping of all the batch's keys, not a pass plus a grouping per rule (no
    failed-row samples, which are drawn per failing rule)."""
    one = one_table(
        [{"name": "id", "logicalType": "integer"}, {"name": "code", "logicalType": "string"}],
        [duplicates("ids", ["id"], mustBe=0)],
    )
    with jobs(spark, "five-duplicates-rules") as five:
        run_contract(contract, frame, samples=0)
    with jobs(spark, "one-duplicates-rule") as single:
        run_contract(one, frame, samples=0)
    rows = one_table([{"name": "id", "logicalType": "integer"}], [{"name": "rows", "metric": "rowCount", "mustBe": 9}])
    with jobs(spark, "no-duplicates-rule") as none:
        run_contract(rows, frame, samples=0)
    assert five == single and single[0] > none[0]


@pytest.mark.parametrize("small", [False, True], ids=["unsized", "small"])
def test_one_grouping_counts_as_count_distinct_does(spark: SparkSession, small: bool, tmp_path: Path) -> None:
    """Keys of awkward values in one query: NaN equals NaN and -0.0 equals 0.0 (Spark normalises both, as
    ``count(DISTINCT)`` does), a dotted name, one column in two keys, one key given twice in two orders; the
    same by either plan."""
    frame = spark.createDataFrame(
        [(float("nan"), 1, "a"), (float("nan"), 1, "a"), (-0.0, None, "b"), (0.0, None, "b"), (None, 2, None)],
        "x double, `a.b` int, s string",
    )
    if small:
        frame = as_file(frame, tmp_path / "batch")
    fields = {field.name: field for field in frame.schema.fields}
    keys = [(fields["x"],), (fields["x"], fields["a.b"]), (fields["a.b"], fields["x"]), (fields["s"],)]
    counts = key_counts(frame, key_query(keys))
    for key, counted in zip(keys, counts, strict=True):
        columns = [F.col(f"`{field.name}`") for field in key]
        distinct = F.count_distinct(columns[0] if len(columns) == 1 else F.struct(*columns))
        assert counted.distinct == frame.agg(distinct).first()[0], key  # type: ignore[index]
        assert counted.rows == 5
    assert [c.marked for c in counts] == [5, 4, 4, 5]  # one column: the NULL row too


@pytest.mark.parametrize("small", [False, True], ids=["unsized", "small"])
def test_on_an_empty_batch_every_key_counts_nothing(spark: SparkSession, small: bool, tmp_path: Path) -> None:
    """No groups at all: each set's numbers are zeros (the grouping returns no row for any set)."""
    frame = spark.createDataFrame([], "x int, s string")
    if small:
        frame = as_file(frame, tmp_path / "batch")
    x, s = frame.schema.fields
    assert key_counts(frame, key_query([(x,), (x, s), (s,)])) == [KeyCounts(0, 0, 0)] * 3
    assert key_counts(frame, key_query([(x, s)])) == [KeyCounts(0, 0, 0)]


def test_past_the_columns_one_grouping_takes_the_keys_share_the_fewest_groupings() -> None:
    fields = [StructField(f"c{index}", IntegerType()) for index in range(MAX_COLUMNS + 10)]
    singles = [(field,) for field in fields]
    assert [len(grouped) for grouped in in_groupings(singles)] == [MAX_COLUMNS, 10]
    pair = (fields[0], fields[-1])  # its columns are already in the first and the second grouping
    assert [len(grouped) for grouped in in_groupings([*singles[:MAX_COLUMNS], pair])] == [MAX_COLUMNS, 1]
    assert in_groupings(singles[:3]) == [tuple(singles[:3])]


def test_seventy_unique_columns_are_each_counted_and_marked(spark: SparkSession) -> None:
    """More key columns than Spark groups at once (GROUPING SETS takes 64): still every rule's numbers."""
    columns = 70
    values = [[0, 1, 2, 3] if index % 2 == 0 else [0, 0, 1, 2] for index in range(columns)]
    frame = spark.createDataFrame(list(zip(*values, strict=True)), ", ".join(f"c{i} int" for i in range(columns)))
    contract = one_table([{"name": f"c{i}", "logicalType": "integer", "unique": True} for i in range(columns)], [])
    run = run_contract(contract, frame, samples=0)  # two groupings: 63 columns, then 7
    found = {
        r.rule.metric.columns[0]: (r.observed, r.rows_marked, r.assertion.status)
        for r in run.rule_results
        if isinstance(r.rule, MetricRule)
    }
    assert len(found) == columns
    for index in range(columns):
        expected = (0, 0, "PASSED") if index % 2 == 0 else (1, 2, "FAILED")
        assert found[f"c{index}"] == expected, index


def test_one_key_of_seventy_columns_is_grouped_plainly(spark: SparkSession) -> None:
    """A key wider than GROUPING SETS takes (64 columns) is the only set of its grouping: a plain groupBy."""
    columns = 70
    rows = [tuple([1] * columns), tuple([1] * columns), tuple([1] * (columns - 1) + [None]), tuple([2] * columns)]
    frame = spark.createDataFrame(rows, ", ".join(f"c{i} int" for i in range(columns)))
    contract = one_table(
        [{"name": f"c{i}", "logicalType": "integer"} for i in range(columns)],
        [duplicates("all seventy", [f"c{i}" for i in range(columns)], mustBe=0)],
    )
    (result,) = [r for r in run_contract(contract, frame, samples=0).rule_results if r.rule.name == "all seventy"]
    assert (result.observed, result.rows_marked, result.assertion.status) == (1, 2, "FAILED")


def test_the_queries_run_beside_the_others_run_in_the_callers_job_group(spark: SparkSession) -> None:
    """The key grouping and the percentiles' brackets run on a thread of their own, beside the run's other
    aggregates; a job the caller groups (to cancel it, say) or puts in a scheduler pool has them too."""
    sc = spark.sparkContext
    tracker, bus = sc.statusTracker(), sc._jsc.sc().listenerBus()  # type: ignore[union-attr]
    frame = spark.read.parquet(str(ROOT / "examples" / "orders" / "data" / "good.parquet"))
    p90 = {"check": "percentile", "column": "total_amount", "percentile": 0.9, "mustBeGreaterThan": 0}
    contract = one_table(
        [
            {"name": "order_id", "logicalType": "integer", "unique": True},
            {
                "name": "total_amount",
                "quality": [{"name": "p90", "type": "custom", "engine": "dqx", "implementation": p90}],
            },
        ]
    )
    bus.waitUntilEmpty()
    ungrouped = set(tracker.getJobIdsForGroup(None))
    sc.setJobGroup("dqx-gx-test", "a contract run")
    try:
        run = run_contract(contract, frame, now="2026-11-22T12:00:00Z")
    finally:
        for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
            sc.setLocalProperty(key, None)  # type: ignore[arg-type]  # PySpark clears a property with None
    bus.waitUntilEmpty()
    assert {r.rule.name: r.assertion.status for r in run.rule_results} == {
        "order_id is unique": "PASSED",
        "p90": "PASSED",
        "order_id has type integer": "PASSED",
        "total_amount exists": "PASSED",
    }
    assert set(tracker.getJobIdsForGroup(None)) - ungrouped == set()
    # the first pass, the brackets, the grouping and the refining pass: a job each on this small file
    assert len(tracker.getJobIdsForGroup("dqx-gx-test")) >= 4


@needs(CLASSIC_SESSION_TAGS)
def test_as_caller_carries_the_calling_threads_job_properties_and_tags(spark: SparkSession) -> None:
    sc = spark.sparkContext
    frame = spark.range(1)

    def seen() -> tuple[str | None, set[str]]:
        return sc.getLocalProperty("spark.job.description"), spark.getTags()

    with ThreadPoolExecutor(max_workers=1) as other:
        spark.addTag("an earlier caller's")
        try:
            carried_before = as_caller(frame, seen)
        finally:
            spark.clearTags()
        assert other.submit(carried_before).result() == (None, {"an earlier caller's"})
        sc.setLocalProperty("spark.job.description", "the caller's")
        spark.addTag("the caller's tag")
        try:
            carried = as_caller(frame, seen)
        finally:
            sc.setLocalProperty("spark.job.description", None)  # type: ignore[arg-type]
            spark.clearTags()
        assert other.submit(carried).result() == ("the caller's", {"the caller's tag"})  # the earlier tag cleared
    with ThreadPoolExecutor(max_workers=1) as another:
        assert another.submit(seen).result() == (None, set())
