"""What differs between the PySpark versions dqx-gx runs on (3.5 to 4.3), each difference in one name.

The rest of dqx-gx asks these names, never PySpark's version. Where an older PySpark lacks a feature, the
path that needs it says so in one line naming the version (:meth:`Feature.missing`) and everything else
works. ``tests/test_spark_versions.py`` pins each difference on the PySpark it runs on; CI runs it on every
PySpark of its matrix (docs/compatibility.md).
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from types import ModuleType

import pyspark
from pyspark.errors import PySparkException
from pyspark.sql import types

PYSPARK = tuple(int(part) for part in pyspark.__version__.split(".")[:2])
"""This PySpark's (major, minor) version."""


@dataclass(frozen=True)
class Feature:
    """Something dqx-gx uses that PySpark has only from ``since`` on."""

    what: str
    since: tuple[int, int]

    @property
    def available(self) -> bool:
        return self.since <= PYSPARK

    def missing(self) -> str | None:
        """None where this PySpark has the feature, else one line saying which version it needs."""
        if self.available:
            return None
        since = ".".join(map(str, self.since))
        return f"{self.what} needs PySpark {since} or later (this is PySpark {pyspark.__version__})"


TIME = Feature("Spark's TIME type", (4, 1))
"""``TimeType``: Parquet TIME columns, the ``time`` logicalType."""
TIME_NANOS = Feature("reading Parquet TIME(NANOS) columns", (4, 3))
"""Parquet TIME in nanoseconds (as pyarrow's ``time64('ns')`` writes it); earlier Sparks read only microseconds."""
EXISTS_SUBQUERY = Feature("a correlated EXISTS subquery (DataFrame.exists)", (4, 0))
"""``DataFrame.exists`` and ``Column.outer``: a foreign key looks the batch's keys up by one; before, by a join."""
GROUPING_SETS = Feature("DataFrame.groupingSets", (4, 0))
"""Several groupings of a batch in one query (SQL's ``GROUPING SETS``) from the DataFrame API."""
CLASSIC_SESSION_TAGS = Feature("session tags on a classic session (SparkSession.addTag)", (4, 0))
"""Tags a session's jobs carry; on 3.5 only Spark Connect has them (a classic session's job tags are its job
properties, ``SparkContext.addJobTag``)."""
CALL_SITES = Feature("recording the call site of each Column", (4, 0))
"""PySpark's DataFrame debugging (``spark.python.sql.dataFrameDebugging.enabled``); 3.5 records none."""
BOTTOM_K = Feature("min_by with a count of values (the k with the lowest order)", (4, 2))
"""``min_by(value, order, k)``: an array of the ``k`` values of the lowest non-NULL ``order``, ascending, kept in a
bounded heap: failed-row samples ride a run's aggregation pass; before, they take a query of their own."""
QUERY_CONTEXT_LOGS = Feature("PySpark's own loggers (pyspark.logger)", (4, 0))
"""The loggers PySpark writes an analysis error's query context to, as a JSON line on stderr."""

TIME_TYPES: tuple[type[types.DataType], ...] = (types.TimeType,) if TIME.available else ()
"""The Spark types of the ``time`` family: none before Spark 4.1."""

FUNCTIONS: ModuleType = importlib.import_module(
    "pyspark.sql.functions.builtin" if PYSPARK >= (4, 0) else "pyspark.sql.functions"
)
"""The module whose ``_get_jvm_function`` every ``F.<function>`` of a classic session calls (4.0 split
``pyspark.sql.functions`` into a package)."""

CALL_SITE_SWITCH: ModuleType | None = importlib.import_module("pyspark.errors.utils") if CALL_SITES.available else None
"""The module holding PySpark's ``_enable_debugging_cache``, or None where no call sites are recorded."""

FIRST_CALL_IMPORTS: tuple[str, ...] = ("pyspark.testing.utils",) if PYSPARK >= (4, 0) else ()
"""What PySpark's first call into the JVM imports (4.x: its type converters ask ``pyspark.testing.utils`` whether
NumPy is there). Not on 3.5, where that module imports ``pyspark.pandas``, which needs NumPy 1."""


def error_condition(exc: PySparkException) -> str:
    """Spark's error condition of ``exc`` (``PATH_NOT_FOUND``): ``getCondition`` from PySpark 4.0, its earlier
    name ``getErrorClass`` before."""
    condition = exc.getCondition() if PYSPARK >= (4, 0) else exc.getErrorClass()
    return condition or ""


def pyspark_logger(name: str) -> logging.Logger | None:
    """PySpark's logger ``name``, made as PySpark makes it (a plain logger of that name would break PySpark's
    call); None before 4.0, which has no loggers of its own."""
    if not QUERY_CONTEXT_LOGS.available:
        return None
    from pyspark.logger import PySparkLogger  # noqa: PLC0415  PySpark 4.0 and later

    logger: logging.Logger = PySparkLogger.getLogger(name)
    return logger
