"""The physical plans of the Spark SQL executions a block of a test ran, read from Spark's status store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def executed_plans(spark: Any, description: str) -> Iterator[list[str]]:
    """The block's jobs carry ``description``; once it ends, the list holds the physical plan of each SQL
    execution (of the last 50) that carried it, after Spark's listener bus delivered every event."""
    plans: list[str] = []
    spark.sparkContext.setJobDescription(description)
    try:
        yield plans
    finally:
        spark.sparkContext.setJobDescription(None)  # PySpark clears it with None
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
    store = spark._jsparkSession.sharedState().statusStore()
    recent = store.executionsList(max(0, store.executionsCount() - 50), 50)
    executions = [recent.apply(i) for i in range(recent.size())]
    plans.extend(e.physicalPlanDescription() for e in executions if e.description() == description)
