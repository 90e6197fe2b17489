"""A small batch is read in one partition, so that each of a run's aggregations is one Spark job
(dqx_gx/spark/small_batch.py); a batch Spark cannot size, or a large one, keeps its partitions."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dqx_gx import run_contract
from dqx_gx.spark.small_batch import SMALL_BATCH_BYTES, in_one_partition, is_small
from tests.documents import one_table
from tests.rows.test_samples import jobs


def test_a_batch_is_small_by_sparks_estimate_of_its_plan(spark: SparkSession) -> None:
    rows = SMALL_BATCH_BYTES // 8  # spark.range's estimate: 8 bytes a row
    assert is_small(spark.range(rows - 1)) and not is_small(spark.range(rows))
    assert not is_small(spark.createDataFrame([(1,)], "x int"))  # a list's rows: an RDD, no estimate
    assert in_one_partition(spark.range(1000, numPartitions=4)).rdd.getNumPartitions() == 1
    assert in_one_partition(spark.range(rows, numPartitions=4)).rdd.getNumPartitions() == 4


def test_a_batch_read_in_one_partition_is_known_small_without_a_second_estimate(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key grouping asks again about the batch the run put in one partition: the answer is the run's, so
    Spark's optimiser does not plan the coalesced batch only to size it (with no threshold left, an estimate
    would say no)."""
    batch = spark.range(1000, numPartitions=4)
    one = in_one_partition(batch)
    monkeypatch.setattr("dqx_gx.spark.small_batch.SMALL_BATCH_BYTES", 0)
    assert is_small(one) and not is_small(batch) and not is_small(one.select("id"))


def test_a_small_batchs_run_is_one_job_per_query_with_the_same_results(spark: SparkSession, tmp_path: Path) -> None:
    """The shared aggregation and the grouping of three keys: two Spark jobs on a small batch, against the
    exchanges' jobs (two and three) of the same rows unsized; every number the same."""
    contract = one_table(
        [
            {"name": "id", "logicalType": "integer", "unique": True},
            {"name": "code", "logicalType": "string", "required": True},
            {"name": "n", "logicalType": "number"},
        ],
        [
            {"name": "rows", "metric": "rowCount", "mustBeGreaterThan": 0},
            {"name": "pairs", "metric": "duplicateValues", "arguments": {"properties": ["code", "n"]}, "mustBe": 0},
            {
                "name": "codes",
                "type": "custom",
                "engine": "dqx",
                "implementation": {"check": "cardinality", "column": "code", "mustBeLessThan": 3},
            },
            {
                "name": "spread",
                "type": "custom",
                "engine": "dqx",
                "implementation": {"check": "stddev", "column": "n", "mustBeLessThan": 1},
            },
        ],
    )
    rows = [(i % 7, None if i % 5 == 0 else f"c{i % 3}", i / 4) for i in range(40)]
    unsized = spark.createDataFrame(rows, "id int, code string, n double")
    unsized.write.parquet(str(tmp_path / "batch"))
    small = spark.read.parquet(str(tmp_path / "batch"))
    with jobs(spark, "small-batch") as one_partition:
        on_small = run_contract(contract, small, samples=0)
    with jobs(spark, "unsized-batch") as partitioned:
        on_unsized = run_contract(contract, unsized, samples=0)
    assert one_partition == [2] and partitioned[0] >= 5
    observed = {r.rule.name: (r.observed, r.rows_marked, r.assertion.status) for r in on_unsized.rule_results}
    assert {r.rule.name: (r.observed, r.rows_marked, r.assertion.status) for r in on_small.rule_results} == observed
    assert observed["codes"][0] == 3 and observed["id is unique"][0] == 33


def test_each_query_of_a_template_run_is_one_job_in_one_partition_and_its_exchanges_jobs_outside(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark template's kinds (the shared aggregates, an exact percentile, GX's own not-null rule, two
    duplicates rules, one finding copies, a cardinality) make four queries: the shared ``df.agg``, the percentile's
    brackets, the refining ``df.agg`` with GX's count and the key grouping. Partitioned, each exchange is a job of
    its own (2 + 2 + 2 + 3); in one partition each query is one job; a passing run takes no samples after it."""
    contract = one_table(
        [
            {"name": "id", "logicalType": "integer", "quality": [{"metric": "duplicateValues", "mustBe": 0}]},
            {"name": "customer", "logicalType": "integer"},
            {
                "name": "status",
                "logicalType": "string",
                "quality": [
                    {
                        "type": "custom",
                        "engine": "greatExpectations",
                        "implementation": {"type": "expect_column_values_to_not_be_null"},
                    },
                    {
                        "type": "custom",
                        "engine": "dqx",
                        "implementation": {"check": "cardinality", "column": "status", "mustBeLessOrEqualTo": 10},
                    },
                ],
            },
            {
                "name": "amount",
                "logicalType": "number",
                "quality": [
                    {"type": "custom", "engine": "dqx", "implementation": {"check": check, "column": "amount", **bound}}
                    for check, bound in [
                        ("mean", {"mustBeBetween": [0, 1000]}),
                        ("stddev", {"mustBeLessThan": 1000}),
                        ("percentile", {"percentile": 0.95, "mustBeLessOrEqualTo": 1000}),
                    ]
                ],
            },
        ],
        [
            {"name": "rows", "metric": "rowCount", "mustBeGreaterThan": 0},
            {
                "name": "customer per status",
                "metric": "duplicateValues",
                "arguments": {"properties": ["customer", "status"]},
                "mustBeGreaterOrEqualTo": 0,
            },
        ],
    )
    rows = [(i, i % 30, ("a", "b", "c")[i % 3], (i * 37 % 1000) / 4) for i in range(3000)]
    spark.createDataFrame(rows, "id int, customer int, status string, amount double").repartition(2).write.parquet(
        str(tmp_path / "batch")
    )
    batch = spark.read.parquet(str(tmp_path / "batch"))
    assert is_small(batch) and batch.rdd.getNumPartitions() == 2
    with jobs(spark, "template-small") as one_partition:
        small = run_contract(contract, batch, samples=5)
    monkeypatch.setattr("dqx_gx.spark.small_batch.SMALL_BATCH_BYTES", 0)  # the same batch, not small
    with jobs(spark, "template-partitioned") as partitioned:
        large = run_contract(contract, batch, samples=5)
    assert one_partition == [4] and partitioned == [9]
    assert [r.assertion.status for r in small.rule_results] == ["PASSED"] * len(small.rule_results)
    observed = {r.rule.name: r.observed for r in small.rule_results}
    numbers = {name: value for name, value in observed.items() if isinstance(value, float)}  # sums in another order
    assert {name: value for name, value in observed.items() if name not in numbers} == {
        r.rule.name: r.observed for r in large.rule_results if r.rule.name not in numbers
    }
    assert numbers == pytest.approx({r.rule.name: r.observed for r in large.rule_results if r.rule.name in numbers})
    assert observed["customer per status"] == 3000 - 30 and observed["status cardinality"] == 3
