"""The GX backend: Spark metrics, custom expectations and suite building.

Importing this package registers the metrics, the expectations, the checkpoint
guard action and dqx-gx's other checkpoint actions (:mod:`dqx_gx.actions`: alerts,
DataHub) with GX; a suite or checkpoint that uses them can only be loaded and run
after that import.
"""

import dqx_gx.actions  # noqa: F401  registers the alert and DataHub action types
from dqx_gx.expectations import catalog, checks, guard, metrics
from dqx_gx.expectations.moment import NOW_EXPRESSION, measured_at
from dqx_gx.expectations.suite import SuiteBuild, build_suite, expectation_suite, suite_name

__all__ = [
    "NOW_EXPRESSION",
    "SuiteBuild",
    "build_suite",
    "catalog",
    "checks",
    "expectation_suite",
    "guard",
    "measured_at",
    "metrics",
    "suite_name",
]
