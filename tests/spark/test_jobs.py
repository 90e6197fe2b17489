"""The Spark jobs of a run, counted from a classic session's status tracker (:mod:`dqx_gx.spark.jobs`)."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, run_contract
from dqx_gx.spark.jobs import JOB_GROUP, Jobs, counted_jobs
from tests.documents import odcs_document

NOW = "2026-11-22T12:00:00Z"

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it: Spark's listener bus is internal


def jobs_in_a_group_of_its_own(spark: SparkSession, work: Callable[[], Any]) -> int:
    """The jobs ``work`` makes, counted only with PySpark's public API (a job group, the status tracker polled
    until it stops changing), as a person would."""
    context = spark.sparkContext
    group = f"test-{uuid.uuid4()}"
    context.setJobGroup(group, "counted by the test")
    try:
        work()
    finally:
        context.setLocalProperty(JOB_GROUP, None)  # type: ignore[arg-type]
    tracker = context.statusTracker()
    seen = -1
    for _ in range(40):
        time.sleep(0.05)
        now = len(tracker.getJobIdsForGroup(group))
        if now == seen:
            break
        seen = now
    return seen


def test_the_listener_wait_it_relies_on_exists(spark: SparkSession) -> None:
    """Spark-internal: ``LiveListenerBus.waitUntilEmpty(timeoutMillis)`` (the status store fills from it)."""
    bus: Any = spark.sparkContext._jsc.sc().listenerBus()  # type: ignore[union-attr]
    assert bus.waitUntilEmpty(2000) is None


def test_one_collect_is_one_job_and_an_aggregation_counts_as_spark_counts_it(spark: SparkSession) -> None:
    frame = spark.range(1000, numPartitions=2)
    with counted_jobs(spark) as jobs:
        assert jobs.count is None  # counted when the block ends
        frame.collect()
    assert jobs.count == 1
    assert str(jobs) == "1 Spark job"

    def aggregation() -> None:  # a new DataFrame each time: Spark keeps a DataFrame's executed shuffles
        frame.agg(F.sum("id"), F.max("id")).collect()

    with counted_jobs(spark) as jobs:
        aggregation()
    expected = jobs_in_a_group_of_its_own(spark, aggregation)
    assert jobs.count == expected >= 1
    assert str(jobs) == f"{expected} Spark job" + ("" if expected == 1 else "s")


def test_the_callers_job_group_is_kept_and_only_the_blocks_jobs_count(spark: SparkSession) -> None:
    context = spark.sparkContext
    frame = spark.range(10)
    context.setJobGroup("the-callers", "a group of the caller's")
    try:
        frame.collect()  # before the block, in the same group: not counted
        with counted_jobs(spark) as jobs:
            assert context.getLocalProperty(JOB_GROUP) == "the-callers"  # cancelling it still cancels the run
            frame.collect()
            frame.collect()
        assert context.getLocalProperty(JOB_GROUP) == "the-callers"
    finally:
        context.setLocalProperty(JOB_GROUP, None)  # type: ignore[arg-type]
    assert jobs.count == 2


def test_a_thread_without_a_job_group_has_none_after_the_block_also_when_it_raises(spark: SparkSession) -> None:
    context = spark.sparkContext
    assert context.getLocalProperty(JOB_GROUP) is None

    def failing() -> None:
        with counted_jobs(spark) as counted:
            found.append(counted)
            spark.range(10).collect()
            raise LookupError("the work failed")

    found: list[Jobs] = []
    with pytest.raises(LookupError):
        failing()
    (jobs,) = found
    assert context.getLocalProperty(JOB_GROUP) is None
    assert jobs.count == 1


def test_run_contracts_info_line_says_how_many_spark_jobs_the_run_made(
    spark: SparkSession, caplog: pytest.LogCaptureFixture
) -> None:
    (contract,) = Contract.from_odcs(
        odcs_document(
            [
                {
                    "name": "jobs",
                    "properties": [{"name": "id", "logicalType": "integer", "required": True, "unique": True}],
                    "quality": [{"metric": "rowCount", "mustBeGreaterThan": 0}],
                }
            ]
        )
    )
    frame = spark.range(1000, numPartitions=2)
    run_contract(contract, frame, now=NOW)  # the first run of a contract: its artefacts
    expected = jobs_in_a_group_of_its_own(spark, lambda: run_contract(contract, frame, now=NOW))
    with caplog.at_level(logging.INFO, logger="dqx_gx.run.runner"):
        run_contract(contract, frame, now=NOW)
    (line,) = [r.getMessage() for r in caplog.records if r.name == "dqx_gx.run.runner"]
    assert re.fullmatch(rf".* @ 2026-11-22T12:00:00Z: passed, 4 rules, {expected} Spark jobs", line), line
    assert expected >= 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dqx_gx.run.runner"):  # not said: not counted
        run_contract(contract, frame, now=NOW)
    assert not [r for r in caplog.records if r.name == "dqx_gx.run.runner"]
