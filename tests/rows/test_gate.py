"""The row gate against hand-written Spark filters and against the batch metrics (docs/semantics.md, 'Invariant')."""

from __future__ import annotations

import math
import warnings
from datetime import date
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, ContractWarning, run_contract
from dqx_gx.kinds import KINDS, Value
from dqx_gx.rows import ERRORS, WARNINGS, RowGateError, annotate_rows, split_annotated, split_rows
from dqx_gx.rows.gate import gated
from dqx_gx.spark.marks import is_row_level
from tests.documents import one_table

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

WEIRD = "we`ird name.x"
QUOTED = "`" + WEIRD.replace("`", "``") + "`"
DDL = (
    f"id int, status string, score double, tag string, {QUOTED} string, code string, tags array<string>, day date, "
    "ship struct<note: string>"
)
STATUSES = ["new", "done"]


def awkward_rows() -> list[tuple[Any, ...]]:
    """NULLs, NaN, ±inf, empty strings, unicode, repeated keys, days long past and far ahead."""
    return [
        (1, "new", 1.5, "a", "naïve", "AB12", ["x"], date(2999, 1, 1), ("x",)),
        (2, "done", float("nan"), "", "日本", "ab12", ["x", "x"], date(2020, 2, 29), (None,)),
        (3, None, None, None, None, None, None, None, None),
        (3, "NEW", float("inf"), "n/a", "ok", "ZZ99", [], None, ("y",)),
        (4, "done", -float("inf"), "a", "", "AB1", ["y", "z"], date(1999, 12, 31), ("w",)),
        (None, "new", 0.0, "b", "x", "CD34", ["a"], None, (None,)),
        (None, "gone", 100.0, "b", "x", "cd34", ["a", "b", "c"], date(2999, 12, 31), ("z",)),
    ]


def dqx(name: str, check: str, column: str, severity: str = "error", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": "custom",
        "engine": "dqx",
        "severity": severity,
        "implementation": {"check": check, "column": column, **extra},
    }


def every_row_level_kind() -> Contract:
    """One rule per row-level kind (and per bound-based one), P0 and P1 mixed."""
    properties = [
        {"name": "id", "logicalType": "integer", "unique": True, "logicalTypeOptions": {"minimum": 2}},
        {
            "name": "status",
            "logicalType": "string",
            "required": True,
            "relationships": [{"to": "statuses.code"}],
            "quality": [
                {
                    "name": "status valid",
                    "metric": "invalidValues",
                    "arguments": {"validValues": STATUSES},
                    "mustBe": 0,
                },
                {
                    "name": "status missing",
                    "metric": "missingValues",
                    "arguments": {"missingValues": ["gone"]},
                    "mustBe": 0,
                    "severity": "warning",
                },
                dqx("status blacklist", "blacklist", "status", values=["NEW"], mustBe=0),
                dqx("status whitelist", "whitelist", "status", severity="info", values=STATUSES, mustBe=0),
            ],
        },
        {
            "name": "score",
            "logicalType": "number",
            "quality": [
                dqx("score max", "max", "score", mustBeLessThan=50),
                dqx("score min", "min", "score", severity="warning", mustBeGreaterOrEqualTo=0),
            ],
        },
        {
            "name": "tag",
            "logicalType": "string",
            "logicalTypeOptions": {"minLength": 1, "pattern": "^[a-z]$"},
            "quality": [
                {"name": "tag nulls", "metric": "nullValues", "mustBe": 0, "severity": "low"},
                dqx("tag length", "length_between", "tag", severity="warning", min_length=1, max_length=2, mustBe=0),
            ],
        },
        {
            "name": WEIRD,
            "logicalType": "string",
            "quality": [
                {"name": "weird pattern", "metric": "invalidValues", "arguments": {"pattern": "^[a-z]+$"}, "mustBe": 0}
            ],
        },
        {
            "name": "code",
            "logicalType": "string",
            "logicalTypeOptions": {"maxLength": 3},
            "customProperties": [{"property": "enum", "value": ["AB1", "CD34"]}],
        },
        {
            "name": "tags",
            "logicalType": "array",
            "items": {"logicalType": "string", "logicalTypeOptions": {"pattern": "^[a-y]$"}},
            "logicalTypeOptions": {"uniqueItems": True, "maxItems": 2},
            "quality": [dqx("tags length", "length_between", "tags", severity="info", min_length=1, max_length=2)],
        },
        {
            "name": "day",
            "logicalType": "date",
            "quality": [dqx("day ahead", "is_not_in_future", "day", severity="warning", offset=86400, mustBe=0)],
        },
        {
            "name": "ship",
            "logicalType": "object",
            "properties": [{"name": "note", "logicalType": "string", "required": True}],
        },
    ]
    quality = [
        {
            "name": "status+code unique",
            "metric": "duplicateValues",
            "arguments": {"properties": ["status", "tag"]},
            "mustBe": 0,
        }
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        return one_table(properties, quality)


def statuses(spark: SparkSession) -> dict[str, DataFrame]:
    """The dataset the contract's foreign key refers to; a repeated key must not repeat a row."""
    return {"statuses": spark.createDataFrame([("new",), ("done",), ("done",)], "code string")}


@pytest.fixture(scope="module")
def contract() -> Contract:
    return every_row_level_kind()


@pytest.fixture(scope="module")
def references(spark: SparkSession) -> dict[str, DataFrame]:
    return statuses(spark)


@pytest.fixture(scope="module")
def frame(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(awkward_rows(), DDL)


def marked_counts(annotated: DataFrame) -> dict[str, int]:
    """Rule name → rows whose annotation names it (errors and warnings)."""
    entries = annotated.select(
        F.explode(F.concat(F.coalesce(F.col(ERRORS), F.array()), F.coalesce(F.col(WARNINGS), F.array()))).alias("e")
    )
    return {
        row["rule"]: row["n"]
        for row in entries.groupBy(F.col("e.rule").alias("rule")).agg(F.count("*").alias("n")).collect()
    }


def test_every_row_level_kind_is_in_the_contract(contract: Contract) -> None:
    kinds = {rule.metric.kind for rule in contract.rules if is_row_level(rule)}  # type: ignore[union-attr]
    assert kinds == {metric for metric, kind in KINDS.items() if kind.row_level}


def test_marked_rows_equal_each_rules_metric_count(
    contract: Contract, frame: DataFrame, references: dict[str, DataFrame]
) -> None:
    marked = marked_counts(annotate_rows(contract, frame, references=references))
    run = run_contract(contract, frame, references=references)
    checked = 0
    for result in run.rule_results:
        rule = result.rule
        if not is_row_level(rule):
            continue
        kind = KINDS[rule.metric.kind]  # type: ignore[union-attr]
        if kind.value is Value.ROWS:
            count = result.observed
            if "unique" in rule.name or "primary key" in rule.name or "duplicate" in rule.metric.kind:  # type: ignore[union-attr]
                assert marked.get(rule.name, 0) >= count, rule.name
            else:
                assert marked.get(rule.name, 0) == count, rule.name
            checked += 1
    assert checked >= 13


def test_marks_equal_hand_written_filters(
    contract: Contract, frame: DataFrame, references: dict[str, DataFrame]
) -> None:
    marked = marked_counts(annotate_rows(contract, frame, references=references))
    c = F.col
    expected = {
        "status has no nulls (required)": c("status").isNull(),
        "status valid": ~F.coalesce(c("status").isin(STATUSES), F.lit(False)),
        "status missing": c("status").isNull() | (c("status") == "gone"),
        "status blacklist": c("status") == "NEW",
        "status whitelist": ~F.coalesce(c("status").isin(STATUSES), F.lit(False)),
        "score max": c("score").isNotNull() & ~(c("score") < 50 - 1e-9),
        "score min": c("score").isNotNull() & ~(c("score") > -1e-9),
        "tag nulls": c("tag").isNull(),
        "tag minLength 1": c("tag").isNotNull() & (F.length("tag") < 1),
        # NULL does not match (docs/semantics.md, 'Rows: annotate, split, quarantine')
        "tag pattern ^[a-z]$": c("tag").isNull() | ~c("tag").rlike("^[a-z]$"),
        "weird pattern": ~F.coalesce(c(QUOTED).rlike("^[a-z]+$"), F.lit(False)),
        "code maxLength 3": c("code").isNotNull() & (F.length("code") > 3),
        "tags uniqueItems True": c("tags").isNotNull() & (F.size(F.array_distinct("tags")) != F.size("tags")),
        "tags maxItems 2": c("tags").isNotNull() & (F.size("tags") > 2),
        "id minimum 2": c("id").isNotNull() & (c("id") < 2),
        "ship.note has no nulls (required)": c("ship").isNotNull() & c("ship.note").isNull(),
        "foreign key status → statuses.code": c("status").isNotNull() & ~c("status").isin(STATUSES),
        "tag length": c("tag").isNotNull() & ((F.length("tag") < 1) | (F.length("tag") > 2)),
        "tags length": c("tags").isNotNull() & ((F.size("tags") < 1) | (F.size("tags") > 2)),
        "day ahead": c("day") > F.date_add(F.current_date(), 1),
    }
    for name, predicate in expected.items():
        assert marked.get(name, 0) == frame.filter(F.coalesce(predicate, F.lit(False))).count(), name
    # duplicates: every member of a repeated key, and every NULL key of a single column
    assert marked["id is unique"] == 4  # id 3 twice, NULL twice
    assert marked["foreign key status → statuses.code"] == 2  # NEW and gone; a NULL key references nothing
    assert marked.get("status+code unique", 0) == 0
    assert (marked["tag length"], marked["tags length"], marked["day ahead"]) == (2, 2, 2)  # "" and n/a; [] and 3


def test_errors_hold_p0_rules_and_warnings_the_rest(contract: Contract, frame: DataFrame) -> None:
    rows = annotate_rows(contract, frame).collect()
    for row in rows:
        assert all(e["severity"] == "P0" for e in row[ERRORS] or [])
        assert all(e["severity"] in ("P1", "P2", "P3") for e in row[WARNINGS] or [])
        assert row[ERRORS] is None or len(row[ERRORS]) > 0  # NULL, never an empty array
    third = next(r for r in rows if r["id"] == 3 and r["status"] is None)
    errors = {e["rule"]: (e["columns"], e["message"]) for e in third[ERRORS]}
    assert errors == {
        "status has no nulls (required)": (["status"], "status is NULL"),
        "id is unique": (["id"], "id is NULL or occurs in more than one row"),
    }
    warned = {e["rule"]: (e["severity"], e["message"]) for e in third[WARNINGS]}
    assert warned == {
        "status valid": ("P1", "status is not one of ['new', 'done']"),
        "status missing": ("P1", "status is NULL or one of ['gone']"),
        "status whitelist": ("P2", "status is not one of ['new', 'done']"),
        "tag nulls": ("P3", "tag is NULL"),
        "tag pattern ^[a-z]$": ("P1", "tag is NULL or does not match /^[a-z]$/"),
        "weird pattern": ("P1", f"{WEIRD} is NULL or does not match /^[a-z]+$/"),
    }


def test_split_puts_every_row_in_exactly_one_side(
    contract: Contract, frame: DataFrame, references: dict[str, DataFrame]
) -> None:
    valid, quarantine = split_rows(contract, frame, references=references)
    assert ERRORS not in valid.columns and WARNINGS in valid.columns
    assert valid.count() + quarantine.count() == frame.count()
    assert quarantine.filter(F.col(ERRORS).isNull()).count() == 0
    ids = sorted((r["id"], r["status"]) for r in valid.collect())
    assert ids == [(1, "new"), (4, "done")]


def test_annotation_is_lazy_and_nan_is_a_value(contract: Contract, frame: DataFrame, spark: SparkSession) -> None:
    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("lazy-annotate", "lazy")
    annotated = annotate_rows(contract, frame)
    assert tracker.getJobIdsForGroup("lazy-annotate") == []
    spark.sparkContext.setJobGroup("none", "none")
    nan_row = annotated.filter(F.col("id") == 2).first()
    assert nan_row is not None and math.isnan(nan_row["score"])
    assert "score max" in {e["rule"] for e in nan_row[ERRORS]}  # NaN is above every bound, as Spark orders it


def test_empty_batch_and_no_row_level_rules(spark: SparkSession, contract: Contract) -> None:
    empty = spark.createDataFrame([], DDL)
    valid, quarantine = split_rows(contract, empty)
    assert (valid.count(), quarantine.count()) == (0, 0)
    batch_only = one_table([{"name": "score", "quality": [dqx("mean", "mean", "score", mustBeLessThan=1)]}])
    with pytest.warns(ContractWarning, match="no row-level rule"):
        valid, quarantine = split_rows(batch_only, spark.createDataFrame(awkward_rows(), DDL))
    assert (valid.count(), quarantine.count()) == (7, 0)


def test_a_rule_whose_column_is_missing_marks_nothing_and_fails_the_run(spark: SparkSession) -> None:
    contract = one_table([{"name": "gone", "required": True}, {"name": "id", "required": True}])
    frame = spark.createDataFrame([(1,), (None,)], "id int")
    marked = marked_counts(annotate_rows(contract, frame))
    assert marked == {"id has no nulls (required)": 1}
    results = {r.rule.name: r for r in run_contract(contract, frame).rule_results}
    assert results["gone has no nulls (required)"].assertion.status == "FAILED"
    assert "not in the batch" in (results["gone has no nulls (required)"].reason or "")


def test_annotating_twice_and_duplicates_on_a_stream_are_refused(
    contract: Contract, frame: DataFrame, spark: SparkSession, tmp_path: Any
) -> None:
    with pytest.raises(RowGateError, match="already has _dqx_errors, _dqx_warnings"):
        annotate_rows(contract, annotate_rows(contract, frame))
    frame.limit(0).write.parquet(str(tmp_path / "in"))
    stream = spark.readStream.schema(frame.schema).parquet(str(tmp_path / "in"))
    with pytest.raises(RowGateError, match=r"'id is unique', 'status\+code unique'.*foreachBatch"):
        annotate_rows(contract, stream)
    row_only = one_table([{"name": "status", "required": True}])
    assert annotate_rows(row_only, stream).isStreaming


@pytest.mark.parametrize("cache", [True, False])
def test_a_gated_batch_is_annotated_as_annotate_rows_annotates_it(
    contract: Contract, frame: DataFrame, references: dict[str, DataFrame], cache: bool
) -> None:
    run = run_contract(contract, frame, references=references)
    expected = annotate_rows(contract, frame, verdict=run, references=references)
    with gated(contract, frame, references, cache=cache) as gate:
        assert gate.batch.columns == frame.columns
        annotated = gate.annotated(run)
        assert annotated.columns == expected.columns
        assert sorted(map(repr, annotated.collect())) == sorted(map(repr, expected.collect()))
        assert annotated.filter(F.col(ERRORS).isNotNull()).count() == 5  # the failing P0 rules mark 5 of 7 rows


def test_a_gated_batch_groups_each_duplicates_rules_keys_once(spark: SparkSession, frame: DataFrame) -> None:
    keyed = one_table([{"name": "id", "logicalType": "integer", "unique": True}])
    run = run_contract(keyed, frame)
    tracker = spark.sparkContext.statusTracker()

    def jobs_reading(rows: DataFrame, group: str) -> tuple[int, int]:
        spark.sparkContext.setJobGroup(group, group)
        try:
            count = len(rows.collect())
        finally:
            spark.sparkContext.setJobGroup("none", "none")
        return count, len(tracker.getJobIdsForGroup(group))

    _, ungated = split_annotated(annotate_rows(keyed, frame, verdict=run))
    rows, grouping_and_reading = jobs_reading(ungated, "ungated")
    with gated(keyed, frame, cache=False) as gate:
        valid, quarantine = split_annotated(gate.annotated(run))
        assert jobs_reading(valid, "gated-valid")[0] == 3
        # the second output reads the keys the first one grouped (cached): no grouping job of its own
        assert jobs_reading(quarantine, "gated-quarantine") == (rows, grouping_and_reading - 1)
    assert rows == 4


def test_a_gated_batch_whose_run_found_no_repeated_key_groups_no_keys(spark: SparkSession) -> None:
    keyed = one_table([{"name": "id", "logicalType": "integer", "unique": True, "logicalTypeOptions": {"minimum": 2}}])
    unique = spark.createDataFrame([(1,), (2,), (3,)], "id int")  # (a NULL key would count: the metric counts NULLs)
    run = run_contract(keyed, unique)
    expected = sorted(map(repr, annotate_rows(keyed, unique, verdict=run).collect()))
    tracker = spark.sparkContext.statusTracker()
    with gated(keyed, unique, cache=False) as gate:
        spark.sparkContext.setJobGroup("no-repeated-key", "no-repeated-key")
        try:
            annotated = gate.annotated(run).collect()
        finally:
            spark.sparkContext.setJobGroup("none", "none")
    assert len(tracker.getJobIdsForGroup("no-repeated-key")) == 1  # the read alone: no grouping, no broadcast
    assert sorted(map(repr, annotated)) == expected
    marks = {r["id"]: [e["rule"] for e in r[ERRORS] or []] + [e["rule"] for e in r[WARNINGS] or []] for r in annotated}
    assert marks == {1: ["id minimum 2"], 2: [], 3: []}
