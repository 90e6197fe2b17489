"""The row gate on streams (issue 13 point 5): annotate and split a file stream, and gate each micro-batch
with ``foreachBatch`` keeping every batch's verdict."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from great_expectations.data_context.store.validation_results_store import ValidationResultsStore
from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.query import StreamingQuery

from dqx_gx import BatchVerdict, Contract, RowGateError, annotate_rows, gate_each_batch, run_contract, split_rows
from dqx_gx.kinds import KINDS, Value, kind_of
from dqx_gx.kinds.kind import Marks, Reach
from dqx_gx.rows import ERRORS, WARNINGS
from dqx_gx.rules.rule import MetricRule, Rule
from dqx_gx.run.artifacts import ephemeral_context
from dqx_gx.spark.marks import is_row_level
from tests.documents import one_table
from tests.rows.test_gate import DDL, awkward_rows, every_row_level_kind, marked_counts, statuses
from tests.rows.test_verdict import recorded

TIMEOUT = 300


def needs_other_rows(rule: Rule) -> bool:
    marks = kind_of(rule.metric).marks if isinstance(rule, MetricRule) else None
    return isinstance(marks, Marks) and marks.reach is Reach.KEY


@pytest.fixture(scope="module")
def row_only() -> Contract:
    """Every row-level kind whose marks need no other rows (the whole catalog but duplicates)."""
    contract = every_row_level_kind()
    kept = tuple(r for r in contract.rules if not needs_other_rows(r))
    assert len(kept) < len(contract.rules)
    kinds = {r.metric.kind for r in kept if isinstance(r, MetricRule) and is_row_level(r)}
    assert kinds == {m for m, k in KINDS.items() if isinstance(k.marks, Marks) and k.marks.reach != Reach.KEY}
    return dataclasses.replace(contract, rules=kept)


@pytest.fixture
def source(spark: SparkSession, tmp_path: Path) -> Path:
    """A folder of parquet files holding the awkward rows (NULLs, NaN, unicode, a hostile column name)."""
    folder = tmp_path / "in"
    spark.createDataFrame(awkward_rows(), DDL).coalesce(1).write.parquet(str(folder))
    return folder


def run_to_end(query: StreamingQuery) -> None:
    """Wait for an ``availableNow`` query to read everything there is, then stop it whatever happened."""
    try:
        assert query.awaitTermination(TIMEOUT), f"{query.name or query.id} did not finish in {TIMEOUT} s"
        assert query.exception() is None
    finally:
        query.stop()


def to_parquet(frame: DataFrame, folder: Path) -> None:
    writer = frame.writeStream.format("parquet").option("checkpointLocation", str(folder.with_suffix(".checkpoint")))
    run_to_end(writer.trigger(availableNow=True).start(str(folder)))


@pytest.mark.slow
def test_annotating_a_stream_marks_what_the_batch_run_counts(
    spark: SparkSession, row_only: Contract, source: Path, tmp_path: Path
) -> None:
    stream = spark.readStream.schema(DDL).parquet(str(source))
    annotated = annotate_rows(row_only, stream, references=statuses(spark))  # a foreign key: a stream-static join
    assert annotated.isStreaming
    query = (
        annotated.writeStream.format("memory")
        .queryName("annotated_stream")
        .option("checkpointLocation", str(tmp_path / "memory.checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    run_to_end(query)
    marked = marked_counts(spark.table("annotated_stream"))

    counts = {}
    for result in run_contract(row_only, spark.read.parquet(str(source)), references=statuses(spark)).rule_results:
        kind = KINDS[result.rule.metric.kind] if is_row_level(result.rule) else None  # type: ignore[union-attr]
        if kind is not None and kind.value is Value.ROWS:
            counts[result.rule.name] = int(result.observed or 0)
    assert len(counts) >= 13 and counts["foreign key status → statuses.code"] == 2
    assert {name: marked.get(name, 0) for name in counts} == counts
    assert sum(counts.values()) > 10  # the awkward rows do break the rules


@pytest.mark.slow
def test_splitting_a_stream_gives_the_rows_the_static_split_gives(
    spark: SparkSession, row_only: Contract, source: Path, tmp_path: Path
) -> None:
    stream = spark.readStream.schema(DDL).parquet(str(source))
    valid, quarantine = split_rows(row_only, stream, references=statuses(spark))
    to_parquet(valid, tmp_path / "valid")
    to_parquet(quarantine, tmp_path / "quarantine")

    def rows(frame: DataFrame) -> list[tuple[object, ...]]:
        errors = F.transform(F.col(ERRORS), lambda e: e["rule"]) if ERRORS in frame.columns else F.lit(None)
        warned = F.transform(F.col(WARNINGS), lambda e: e["rule"])
        return sorted(
            (tuple(r) for r in frame.select("id", "status", errors.alias("e"), warned.alias("w")).collect()), key=repr
        )

    expected_valid, expected_quarantine = split_rows(
        row_only, spark.read.parquet(str(source)), references=statuses(spark)
    )
    assert rows(spark.read.parquet(str(tmp_path / "valid"))) == rows(expected_valid)
    assert rows(spark.read.parquet(str(tmp_path / "quarantine"))) == rows(expected_quarantine)
    assert len(rows(expected_valid)) + len(rows(expected_quarantine)) == len(awkward_rows())
    assert rows(expected_valid) and rows(expected_quarantine)


def test_rules_that_compare_rows_are_refused_on_a_stream_naming_each(spark: SparkSession, source: Path) -> None:
    stream = spark.readStream.schema(DDL).parquet(str(source))
    message = (
        "rule(s) 'id is unique', 'status+code unique' compare rows across the batch, which a streaming "
        "DataFrame cannot do; gate each micro-batch instead: "
        "stream.writeStream.foreachBatch(dqx_gx.gate_each_batch(contract, ...)) (README 'Streams')"
    )
    for gate in (annotate_rows, split_rows):
        with pytest.raises(RowGateError) as refused:
            gate(every_row_level_kind(), stream)
        assert str(refused.value) == message


# --- foreachBatch: one verdict per micro-batch ------------------------------------------------------------


GOOD: list[dict[str, Any]] = [{"id": 1, "status": "new"}, {"id": 2, "status": "done"}, {"id": 3, "status": "new"}]
BAD: list[dict[str, Any]] = [
    {"id": 4, "status": "new"},
    {"id": 4, "status": "done"},
    {"id": 5, "status": None},
    {"id": 6, "status": "done"},
]


@pytest.fixture
def two_files(tmp_path: Path) -> Path:
    """Two JSON files, the good one older: read one per micro-batch, in that order."""
    folder = tmp_path / "events"
    folder.mkdir()
    for index, rows in enumerate((GOOD, BAD)):
        path = folder / f"part-{index}.json"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        os.utime(path, (1_700_000_000 + index * 60, 1_700_000_000 + index * 60))
    return folder


def keyed_contract() -> Contract:
    """A rule that compares rows (unique), a row rule (required) and a batch rule (row count)."""
    return one_table(
        [
            {"name": "id", "logicalType": "integer", "unique": True},
            {"name": "status", "logicalType": "string", "required": True},
        ],
        [{"name": "enough rows", "metric": "rowCount", "mustBeGreaterOrEqualTo": 3}],
    )


def gate_stream(spark: SparkSession, folder: Path, tmp_path: Path, gate: Callable[[DataFrame, int], None]) -> None:
    stream = spark.readStream.schema("id int, status string").option("maxFilesPerTrigger", 1).json(str(folder))
    query = (
        stream.writeStream.foreachBatch(gate)
        .option("checkpointLocation", str(tmp_path / "gate.checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    run_to_end(query)


def appender(folder: Path) -> Callable[[DataFrame, int], None]:
    return lambda rows, batch_id: rows.write.mode("append").parquet(str(folder))


@pytest.mark.slow
def test_each_micro_batch_is_gated_and_keeps_its_verdict(spark: SparkSession, two_files: Path, tmp_path: Path) -> None:
    verdicts: list[BatchVerdict] = []
    gate = gate_each_batch(
        keyed_contract(),
        valid=appender(tmp_path / "valid"),
        quarantine=appender(tmp_path / "quarantine"),
        on_verdict=verdicts.append,
        tags={"env": "test"},
    )
    gate_stream(spark, two_files, tmp_path, gate)

    assert [(v.batch_id, v.outcome) for v in verdicts] == [(0, "passed"), (1, "rejected")]
    first, second = ({r.rule.name: r for r in v.run.rule_results} for v in verdicts)
    assert {name: (r.assertion.status, r.observed) for name, r in first.items()} == {
        "id is unique": ("PASSED", 0),
        "status has no nulls (required)": ("PASSED", 0),
        "enough rows": ("PASSED", 3),
        "id has type integer": ("PASSED", "int"),
        "status has type string": ("PASSED", "string"),
    }
    assert {name: (r.assertion.status, r.observed) for name, r in second.items()} == {
        "id is unique": ("FAILED", 1),
        "status has no nulls (required)": ("FAILED", 1),
        "enough rows": ("PASSED", 4),
        "id has type integer": ("PASSED", "int"),
        "status has type string": ("PASSED", "string"),
    }
    assert {str(a.tags) for v in verdicts for a in v.run.results} == {
        str({"env": "test", "batch_id": "0"}),
        str({"env": "test", "batch_id": "1"}),
    }

    valid = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "valid")).select("id", "status").collect())
    assert valid == [(1, "new"), (2, "done"), (3, "new"), (6, "done")]
    quarantined = spark.read.parquet(str(tmp_path / "quarantine")).select(
        "id", F.transform(ERRORS, lambda e: e["rule"]).alias("rules")
    )
    assert sorted((r["id"], sorted(r["rules"])) for r in quarantined.collect()) == [
        (4, ["id is unique"]),  # every member of a repeated key: a micro-batch is a static DataFrame
        (4, ["id is unique"]),
        (5, ["status has no nulls (required)"]),
    ]


@pytest.mark.slow
def test_each_micro_batch_checks_its_foreign_key_against_the_static_dataset_given(
    spark: SparkSession, two_files: Path, tmp_path: Path
) -> None:
    keyed = one_table([{"name": "id"}, {"name": "status", "relationships": [{"to": "statuses.code"}]}])
    verdicts: list[BatchVerdict] = []
    references = {"statuses": spark.createDataFrame([("new",)], "code string")}
    gate = gate_each_batch(keyed, valid=appender(tmp_path / "valid"), on_verdict=verdicts.append, references=references)
    gate_stream(spark, two_files, tmp_path, gate)
    observed = [next(r.observed for r in v.run.rule_results if r.rule.name.startswith("foreign key")) for v in verdicts]
    assert observed == [1, 2]  # 'done' is no status: id 2, then ids 4 and 6; a NULL references nothing
    valid = spark.read.parquet(str(tmp_path / "valid")).select("id", F.transform(WARNINGS, lambda e: e["message"]))
    marked = sorted((r[0], r[1]) for r in valid.collect() if r[1])
    assert marked == [(2, ["status is not a key of statuses (code)"])] + [
        (i, ["status is not a key of statuses (code)"]) for i in (4, 6)
    ]


@pytest.mark.slow
def test_a_verdict_callback_that_raises_stops_the_stream_before_the_batch_is_written(
    spark: SparkSession, two_files: Path, tmp_path: Path
) -> None:
    def refuse(verdict: BatchVerdict) -> None:
        if verdict.outcome == "rejected":
            raise RuntimeError(f"batch {verdict.batch_id} rejected")

    gate = gate_each_batch(keyed_contract(), valid=appender(tmp_path / "valid"), on_verdict=refuse)
    with pytest.raises(StreamingQueryException, match="batch 1 rejected"):
        gate_stream(spark, two_files, tmp_path, gate)
    valid = sorted(r["id"] for r in spark.read.parquet(str(tmp_path / "valid")).collect())
    assert valid == [1, 2, 3]


def test_a_micro_batch_whose_rules_pass_quarantines_nothing(
    spark: SparkSession, two_files: Path, tmp_path: Path
) -> None:
    """P0 rules within their tolerance or without an operator pass: their rows are warned, never held back."""
    tolerant = one_table(
        [
            {"name": "id", "logicalType": "integer"},
            {
                "name": "status",
                "logicalType": "string",
                "quality": [recorded("nulls recorded", "status")],
            },
        ],
        [
            {
                "name": "one copy tolerated",
                "metric": "duplicateValues",
                "arguments": {"properties": ["id"]},
                "mustBeLessOrEqualTo": 1,
                "severity": "error",
            },
        ],
    )
    verdicts: list[BatchVerdict] = []
    gate = gate_each_batch(
        tolerant,
        valid=appender(tmp_path / "valid"),
        quarantine=appender(tmp_path / "quarantine"),
        on_verdict=verdicts.append,
    )
    gate_stream(spark, two_files, tmp_path, gate)
    assert [v.outcome for v in verdicts] == ["passed", "passed"]
    valid = spark.read.parquet(str(tmp_path / "valid"))
    warned = valid.select("id", F.transform(WARNINGS, lambda w: w["rule"]).alias("rules")).where(
        F.col("rules").isNotNull()
    )
    assert sorted((r["id"], r["rules"]) for r in warned.collect()) == [
        (4, ["one copy tolerated"]),
        (4, ["one copy tolerated"]),
        (5, ["nulls recorded"]),
    ]
    assert valid.count() == 7
    assert spark.read.parquet(str(tmp_path / "quarantine")).count() == 0


def test_a_streams_own_context_keeps_nothing_and_a_given_one_keeps_each_batchs_result(spark: SparkSession) -> None:
    """The context a gate makes for itself would otherwise hold one more validation result every micro-batch
    (in memory, for as long as the stream runs), and store its suite again each batch (a serialising of every
    rule); each verdict still has its whole GX result, the same as in a context that keeps everything."""
    batch = spark.createDataFrame(GOOD, "id int, status string")
    verdicts: list[BatchVerdict] = []
    kept: list[BatchVerdict] = []
    own = gate_each_batch(keyed_contract(), on_verdict=verdicts.append)
    given = gate_each_batch(keyed_contract(), context=ephemeral_context(), on_verdict=kept.append)
    for batch_id in range(3):
        own(batch, batch_id)
        given(batch, batch_id)
    assert own.context is not None and given.context is not None
    assert own.context.validation_results_store.list_keys() == []
    assert len(given.context.validation_results_store.list_keys()) == 3
    stored = [
        (len(c.suites.all()), len(c.validation_definitions.all()), len(c.checkpoints.all()))
        for c in (own.context, given.context)
    ]
    assert stored == [(0, 0, 0), (1, 1, 1)]
    assert [len(v.run.checkpoint_result.run_results) for v in verdicts] == [1, 1, 1]
    assert [[e.success for e in r.results] for v in verdicts for r in v.run.checkpoint_result.run_results.values()] == [
        [True] * 5
    ] * 3
    assert [v.run.results for v in verdicts] == [v.run.results for v in kept]


def test_a_run_stores_its_result_in_its_own_context_only_for_data_docs(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored: list[int] = []
    store = ValidationResultsStore.set

    def recorded_set(self: ValidationResultsStore, key: Any, value: Any, **kwargs: Any) -> Any:
        stored.append(value.statistics["evaluated_expectations"])
        return store(self, key, value, **kwargs)

    monkeypatch.setattr(ValidationResultsStore, "set", recorded_set)
    batch = spark.createDataFrame(GOOD, "id int, status string")
    assert run_contract(keyed_contract(), batch).outcome == "passed"
    assert stored == []
    assert run_contract(keyed_contract(), batch, data_docs=True).outcome == "passed"
    assert stored == [5]
    assert run_contract(keyed_contract(), batch, context=ephemeral_context()).outcome == "passed"
    assert stored == [5, 5]
