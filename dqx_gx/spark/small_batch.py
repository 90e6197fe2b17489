"""A small batch read in one partition, so that its aggregations run as one Spark job each.

Spark splits even a batch of a thousand rows over its cores, and an aggregation of several partitions then
exchanges its partial results: under adaptive query execution every exchange is a Spark job of its own (the
shared ``df.agg`` two, the key grouping three). A batch whose size Spark estimates from its plan (the files'
sizes, a local relation's rows: no job) under :data:`SMALL_BATCH_BYTES` is read in one partition instead
(``coalesce(1)``, a hint on the query; the session's settings are left alone): an aggregation over one
partition needs no exchange, so each query is one job of one task, and the two queries of the first level
still run beside each other on two cores. A plan Spark cannot size (an RDD's, Spark Connect's, where no estimate
is at hand without asking the server) is left as it is.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

SMALL_BATCH_BYTES = 1 << 20
"""Below this estimate one core reads the batch in less time than the Spark jobs its exchanges would add
(docs/benchmarks.md, 'Scaling')."""


def is_small(df: DataFrame) -> bool:
    """Whether Spark's estimate of ``df``'s size (its optimised plan's, no job) is under :data:`SMALL_BATCH_BYTES`."""
    jdf: Any = getattr(df, "_jdf", None)  # a classic DataFrame's; Spark Connect's has none
    if jdf is None:
        return False
    return int(jdf.queryExecution().optimizedPlan().stats().sizeInBytes()) < SMALL_BATCH_BYTES


def in_one_partition(df: DataFrame) -> DataFrame:
    """``df`` read in one partition when it is small (:func:`is_small`), else ``df`` itself."""
    return df.coalesce(1) if is_small(df) else df
