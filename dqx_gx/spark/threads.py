"""Spark work run on another thread, as if on the caller's: the thread kept for it, and what it carries over.

PySpark pins each Python thread to a JVM thread with a gateway connection of its own, and keeps a thread's
job properties and session tags on it; a query moved to another thread takes them along explicitly.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent import futures
from typing import TypeVar

from pyspark import SparkContext
from pyspark.sql import DataFrame

from dqx_gx.spark_versions import CLASSIC_SESSION_TAGS

T = TypeVar("T")

_KEPT = futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="dqx-gx-kept")
"""The thread for work run beside the caller's (a bundle's key grouping, the brackets' ``df.agg``), kept:
PySpark pins a JVM thread and a gateway connection to each Python thread."""
_KEPT_FREE = threading.Lock()


def kept_thread(work: Callable[[], T]) -> futures.Future[T] | None:
    """``work`` started on the kept thread with the caller's context variables; None when another run's
    work has the thread (or the interpreter is shutting down): the caller then runs it itself."""
    if not _KEPT_FREE.acquire(blocking=False):
        return None
    context = contextvars.copy_context()

    def run() -> T:
        try:
            return context.run(work)
        finally:  # before its future is done: a caller that waited for it finds the thread free
            _KEPT_FREE.release()

    try:
        return _KEPT.submit(run)
    except RuntimeError:
        _KEPT_FREE.release()
        return None


def as_caller(df: DataFrame, work: Callable[[], T]) -> Callable[[], T]:
    """``work`` (a query over ``df``) to run on another thread as if on the calling one: with the session's
    tags of the caller (``addTag``) and, on a classic session, its Spark job properties (job group, scheduler
    pool, description), so that a caller that cancels its tag or group, or runs in a pool, has the query with
    it (what PySpark's ``inheritable_thread_target`` carries; the thread's own tags are cleared first, as it
    is kept from run to run; a classic PySpark 3.5 session has no tags, its job tags are job properties).
    Unchanged on a classic session whose threads PySpark does not pin to the JVM's: there no thread has
    properties of its own."""
    session = df.sparkSession
    jsc = getattr(session, "_jsc", None)  # a classic session's; Spark Connect keeps tags per Python thread
    if jsc is not None and not _pinned():
        return work
    with_tags = jsc is None or CLASSIC_SESSION_TAGS.available
    tags = session.getTags() if with_tags else set()
    context = None if jsc is None else jsc.sc()
    properties = None if context is None else context.getLocalProperties().clone()

    def carried() -> T:
        if with_tags:
            session.clearTags()
        for tag in tags:
            session.addTag(tag)
        if context is not None:
            context.setLocalProperties(properties)
        return work()

    return carried


def _pinned() -> bool:
    """PySpark's gateway is py4j's ``ClientServer`` when it pins each Python thread to a JVM thread."""
    return type(SparkContext._gateway).__name__ == "ClientServer"
