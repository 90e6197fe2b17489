"""How many Spark jobs a piece of work made, from a classic session's status tracker.

Spark Connect has no status tracker: there the count is not available (None). The jobs are found by the job group
of the calling thread (PySpark's ``spark.jobGroup.id`` local property, which dqx-gx's other threads carry
over): the caller's own group when it has one (never replaced: cancelling it still cancels the run), else one set
for the work and removed after it. Spark's status store learns of a job from its listener bus a moment after the
job starts, so the count waits for the bus to empty (``LiveListenerBus.waitUntilEmpty``, Spark-internal, pinned in
``tests/spark/test_jobs.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JOB_GROUP = "spark.jobGroup.id"
LISTENER_WAIT_MS = 2000
"""How long the count waits for Spark's listener bus (it drains in milliseconds unless the driver is swamped)."""


@dataclass
class Jobs:
    """The Spark jobs counted so far: None where they cannot be (Spark Connect), or until the work has ended."""

    count: int | None = None

    def __str__(self) -> str:
        if self.count is None:
            return "Spark jobs not counted (Spark Connect has no status tracker)"
        return f"{self.count} Spark job" + ("" if self.count == 1 else "s")


@contextmanager
def counted_jobs(session: SparkSession) -> Iterator[Jobs]:
    """The Spark jobs the calling thread (and the threads it hands its job group to) runs inside the block on
    ``session``; counted when the block ends (also when it raises). Jobs other threads run in the caller's own
    job group count too."""
    jobs = Jobs()
    jsc: Any = getattr(session, "_jsc", None)  # a classic session's; Spark Connect has none
    if jsc is None:
        yield jobs
        return
    context = session.sparkContext
    group = context.getLocalProperty(JOB_GROUP)
    own = group is None
    if own:
        group = f"dqx-gx-{uuid.uuid4()}"
        context.setLocalProperty(JOB_GROUP, group)
    tracker = context.statusTracker()
    before = set() if own else set(tracker.getJobIdsForGroup(group))
    try:
        yield jobs
    finally:
        if own:
            context.setLocalProperty(JOB_GROUP, None)  # type: ignore[arg-type]  # None removes it
        _listened(jsc)
        jobs.count = len(set(tracker.getJobIdsForGroup(group)) - before)


def _listened(jsc: Any) -> None:
    """Wait until Spark's listener bus has handed every event posted so far to the status store (at most
    :data:`LISTENER_WAIT_MS`: then the count is of the jobs it knows of)."""
    try:
        jsc.sc().listenerBus().waitUntilEmpty(LISTENER_WAIT_MS)
    except Py4JJavaError:  # Spark's TimeoutException
        return
