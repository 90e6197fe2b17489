"""dqx-gx's own expressions, built with two of PySpark's per-call costs switched off.

**Call sites.** PySpark records, for each column reference and each ``Column`` method called (``F.col``,
``.cast``, ``.alias``, ``&``, ``>`` …), the caller's file and line (its DataFrame debugging,
``spark.python.sql.dataFrameDebugging.enabled``, on by default), so that Spark's error messages can point
at the line that built a failing expression. On a classic session that costs a walk of the Python stack
and about ten round trips through Spark's gateway per call, most of a contract's first run's gateway calls
(docs/benchmarks.md, "Measured facts behind the design"). The lines
would all be inside dqx-gx, which tells its user nothing about their contract; so dqx-gx builds its
expressions with the recording off. The caller's own expressions keep it.

**Function lookups.** On a classic session every ``F.<function>`` call first asks the JVM, by reflection,
for the class holding Spark's functions and then for the function: two round trips before the one that
calls it. The answer never changes while the gateway lives, so inside, each function is looked up once
per gateway and kept (a Spark Connect session builds its expressions without the gateway: nothing changes).

Both switches are PySpark's private, process-wide names (``tests/test_own_expressions.py`` pins them), found
in the module of this PySpark (:mod:`dqx_gx.spark_versions`; PySpark 3.5 records no call sites).
They are on while dqx-gx builds expressions, milliseconds at a time; an expression another thread builds
meanwhile (the caller's, or one GX builds for a query dqx-gx runs beside it) records no line either, and
finds its functions among the kept ones, which are the ones it would have looked up.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from dqx_gx.spark_versions import CALL_SITE_SWITCH as _pyspark_errors
from dqx_gx.spark_versions import FUNCTIONS as _pyspark_functions

_SWITCH = "_enable_debugging_cache"
"""PySpark's cache of ``spark.python.sql.dataFrameDebugging.enabled`` (None until a session first reads it)."""
_LOOKUP = "_get_jvm_function"
"""PySpark's lookup of a Spark function through the gateway, called by every ``F.<function>`` of a classic session."""

_look_up: Callable[[str, Any], Any] = getattr(_pyspark_functions, _LOOKUP)
_found: dict[tuple[str, Any], Any] = {}


def _kept_lookup(name: str, sc: Any) -> Any:
    """PySpark's lookup, once per function and gateway view (which every SparkContext of a process shares)."""
    key = (name, sc._jvm)
    found = _found.get(key)
    if found is None:
        found = _found[key] = _look_up(name, sc)
    return found


class _Switch:
    """One switch for every use at once: the first to begin turns both off, the last to end puts back what
    was there before."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._before: tuple[bool | None, Callable[[str, Any], Any]] = (None, _look_up)

    def begin(self) -> None:
        with self._lock:
            if self._inside == 0:
                self._before = (getattr(_pyspark_errors, _SWITCH, None), getattr(_pyspark_functions, _LOOKUP))
                if _pyspark_errors is not None:
                    setattr(_pyspark_errors, _SWITCH, False)
                setattr(_pyspark_functions, _LOOKUP, _kept_lookup)
            self._inside += 1

    def end(self) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                recording, lookup = self._before
                if _pyspark_errors is not None:
                    setattr(_pyspark_errors, _SWITCH, recording)
                setattr(_pyspark_functions, _LOOKUP, lookup)


_OFF = _Switch()


@contextlib.contextmanager
def own_expressions() -> Iterator[None]:
    """Column functions called inside record no call site and look each Spark function up once (nested and
    concurrent uses included)."""
    _OFF.begin()
    try:
        yield
    finally:
        _OFF.end()
