"""A small batch is read in one partition, so that each of a run's aggregations is one Spark job
(dqx_gx/spark/small_batch.py); a batch Spark cannot size, or a large one, keeps its partitions."""

from __future__ import annotations

from pathlib import Path

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
