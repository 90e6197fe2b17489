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

import weakref
from typing import Any

from pyspark.sql import DataFrame

SMALL_BATCH_BYTES = 16 << 20
"""Below this estimate one core reads the batch in less time than the Spark jobs its exchanges would add
(docs/benchmarks.md, 'Scaling' and 'A small batch in one partition')."""

_IN_ONE_PARTITION: weakref.WeakSet[DataFrame] = weakref.WeakSet()
"""The batches :func:`in_one_partition` read in one partition: known small, so the key grouping's question about
the same batch needs no second estimate (Spark's optimiser would plan the coalesced batch anew)."""


def is_small(df: DataFrame) -> bool:
    """Whether ``df`` is small: a batch :func:`in_one_partition` read in one partition, or one whose size Spark
    estimates (its optimised plan's, no job) under :data:`SMALL_BATCH_BYTES`."""
    if df in _IN_ONE_PARTITION:
        return True
    jdf: Any = getattr(df, "_jdf", None)  # a classic DataFrame's; Spark Connect's has none
    if jdf is None:
        return False
    return int(jdf.queryExecution().optimizedPlan().stats().sizeInBytes()) < SMALL_BATCH_BYTES


def in_one_partition(df: DataFrame) -> DataFrame:
    """``df`` read in one partition when it is small (:func:`is_small`), else ``df`` itself."""
    if not is_small(df):
        return df
    one = df.coalesce(1)
    _IN_ONE_PARTITION.add(one)
    return one
