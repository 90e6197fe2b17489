"""Many run_contract calls in one process, one GX context: nothing piles up between runs (issue 16 point 5)."""

from __future__ import annotations

from typing import Any

import great_expectations as gx
import pytest
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, run_contract

RUNS = 50

DOCUMENT: dict[str, Any] = {
    "apiVersion": "v3.1.0",
    "kind": "DataContract",
    "id": "repeated",
    "name": "repeated",
    "version": "1",
    "status": "active",
    "schema": [
        {
            "name": "batch",
            "properties": [
                {"name": "id", "logicalType": "integer"},
                {
                    "name": "status",
                    "logicalType": "string",
                    "quality": [
                        {
                            "name": "status valid",
                            "metric": "invalidValues",
                            "arguments": {"validValues": ["open", "closed"]},
                            "mustBe": 0,
                        }
                    ],
                },
            ],
            "quality": [{"name": "rows", "metric": "rowCount", "mustBeGreaterThan": 0}],
        }
    ],
}


def batch(spark: SparkSession) -> DataFrame:
    """1,000 rows; one in a hundred has a status the contract refuses, so samples are fetched too."""
    return spark.range(1000).select(
        "id",
        F.when(F.col("id") % 100 == 0, "lost").when(F.col("id") % 2 == 0, "open").otherwise("closed").alias("status"),
    )


def footprint(context: Any, spark: SparkSession) -> dict[str, int]:
    """What a run could leave behind: GX objects (counted through the context's public API) and Spark caches."""
    sources = context.data_sources.all()
    assets = [asset for source in sources.values() for asset in source.assets]
    return {
        "datasources": len(sources),
        "assets": len(assets),
        "batch definitions": sum(len(asset.batch_definitions) for asset in assets),
        "suites": len(context.suites.all()),
        "validation definitions": len(context.validation_definitions.all()),
        "checkpoints": len(context.checkpoints.all()),
        "persisted RDDs": spark.sparkContext._jsc.getPersistentRDDs().size(),
    }


@pytest.mark.slow  # fifty runs
def test_fifty_runs_in_one_context_leave_nothing_behind(spark: SparkSession) -> None:
    (contract,) = Contract.from_odcs(DOCUMENT)
    frame = batch(spark)
    context = gx.get_context(mode="ephemeral")
    first = run_contract(contract, frame, context=context, now="2026-11-22T12:00:00Z")
    after_one = footprint(context, spark)
    assert after_one == {
        "datasources": 1,
        "assets": 1,
        "batch definitions": 1,
        "suites": 1,
        "validation definitions": 1,
        "checkpoints": 1,
        "persisted RDDs": after_one["persisted RDDs"],  # other tests of the session may hold caches of their own
    }
    statuses = {r.rule.name: (r.assertion.status, r.observed) for r in first.rule_results}
    assert statuses["status valid"] == ("FAILED", 10.0)
    for _ in range(RUNS - 1):
        last = run_contract(contract, frame, context=context, now="2026-11-22T12:00:00Z")
    assert footprint(context, spark) == after_one
    assert {r.rule.name: (r.assertion.status, r.observed) for r in last.rule_results} == statuses
    assert not frame.is_cached
    assert frame.storageLevel == StorageLevel(False, False, False, False, 1)
