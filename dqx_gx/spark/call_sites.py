"""dqx-gx's own expressions, built without PySpark recording where they were built.

PySpark records, for each column reference and each ``Column`` method called (``F.col``, ``.cast``,
``.alias``, ``&``, ``>`` …), the caller's file and line (its DataFrame debugging,
``spark.python.sql.dataFrameDebugging.enabled``, on by default), so that Spark's error messages can point
at the line that built a failing expression. On a classic session that costs a walk of the Python stack
and about ten round trips through Spark's gateway per call: a 68-rule contract's first run made 7,100
gateway calls, 4,000 of them for this (0.79 s with them, 0.58 s without, at 1,000 rows). The lines
would all be inside dqx-gx, which tells its user nothing about their contract; so dqx-gx builds its
expressions with the recording off. The caller's own expressions keep it.

The switch is PySpark's private, process-wide cache of that setting (tests/test_call_sites.py pins it).
It is off while dqx-gx builds expressions, milliseconds at a time; an expression another thread builds
meanwhile (the caller's, or one GX builds for a query dqx-gx runs beside it) records no line either.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pyspark.errors.utils as _pyspark_errors

_SWITCH = "_enable_debugging_cache"
"""PySpark's cache of ``spark.python.sql.dataFrameDebugging.enabled`` (None until a session first reads it)."""


class _Switch:
    """One switch for every use at once: the first to begin turns the recording off, the last to end puts
    back what was there before."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._before: bool | None = None

    def begin(self) -> None:
        with self._lock:
            if self._inside == 0:
                self._before = getattr(_pyspark_errors, _SWITCH, None)
                setattr(_pyspark_errors, _SWITCH, False)
            self._inside += 1

    def end(self) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                setattr(_pyspark_errors, _SWITCH, self._before)


_OFF = _Switch()


@contextlib.contextmanager
def without_call_sites() -> Iterator[None]:
    """Column functions called inside record no call site (nested and concurrent uses included)."""
    _OFF.begin()
    try:
        yield
    finally:
        _OFF.end()
