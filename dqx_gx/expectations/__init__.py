"""The GX backend: Spark metrics, custom expectations and suite building.

Importing this package registers the metrics and expectations with GX; a suite
that uses them can only be loaded and run after that import.
"""

from dqx_gx.expectations import catalog, metrics
from dqx_gx.expectations.suite import NOW_PARAMETER, SuiteBuild, build_suite, suite_name

__all__ = ["NOW_PARAMETER", "SuiteBuild", "build_suite", "catalog", "metrics", "suite_name"]
