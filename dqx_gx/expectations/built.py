"""Aggregate expressions kept from one run of a contract to the next in the same process.

Building a Spark column goes through Spark's gateway: two or three round trips per function
(``count_if``, ``cast``, ``when`` …), each handled by the JVM, and one more when Python drops the
object (and about ten more per column reference or ``Column`` method for PySpark's record of where it
was called, which dqx-gx turns off while it builds: :mod:`dqx_gx.spark.own_expressions`); for a small
batch that is a large part of a run's CPU time (docs/benchmarks.md, "Measured facts behind the design").
A contract run again on a batch of the same schema (each micro-batch of a
stream, a job checking batch after batch) asks for the same expressions: they are kept here, keyed by
everything they are built from, and reused. Only expressions are kept, never data: a column is an
unresolved expression that names the batch's columns, valid for any DataFrame of the same session kind.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from pyspark.sql import Column, DataFrame

from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.text import Sql

T = TypeVar("T")

KEPT = 4096
"""Expressions kept at most, the least recently used dropped first: memory stays flat however many
contracts a process runs."""


class BuiltColumns:
    """Columns (or what holds them: a key-based metric's stand-in, the key grouping's expressions) by the
    key of what they were built from, least recently used dropped past ``size``."""

    def __init__(self, size: int = KEPT) -> None:
        self._size = size
        self._columns: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        with self._lock:
            found = self._columns.get(key)
            if found is not None:
                self._columns.move_to_end(key)
                return found  # type: ignore[no-any-return]
        with own_expressions():  # the expressions are dqx-gx's own
            built = build()
        with self._lock:
            self._columns[key] = built
            while len(self._columns) > self._size:
                self._columns.popitem(last=False)
        return built

    def __len__(self) -> int:
        return len(self._columns)

    def clear(self) -> None:
        """Forget every kept expression (benchmarks/fixedcost.py measures a contract's first run so)."""
        with self._lock:
            self._columns.clear()


def frozen(values: Mapping[str, Any]) -> str:
    """A metric's value kwargs or resolved dependencies as a key: every value, in a stable order."""
    return json.dumps(values, sort_keys=True, default=repr)


BUILT = BuiltColumns()


def column_of(expression: Sql, kind: type[DataFrame]) -> Column:
    """``expression`` as a ``Column`` for a DataFrame of type ``kind`` (classic or Connect), kept by its text:
    metrics built from different arguments often come to the same text (the typed NULL of every metric a batch
    cannot measure, ``count(1)``), and each ``Column`` made is a round trip through a classic session's gateway."""
    return BUILT.get((Sql, kind, expression.text), expression.column)
