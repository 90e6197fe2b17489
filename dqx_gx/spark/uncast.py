"""The hidden column of a batch read from an untyped source (SPEC §6): the values that did not cast.

``dqx_gx.sources.untyped`` adds it when it casts CSV or JSON text to the declared types; the type
rule counts it (``dqx.uncast_values``) and the row gate marks the rows it names. Outputs drop it.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from dqx_gx.spark.columns import Columns

UNCAST = "_dqx_uncast"
"""Hidden column of a batch read from an untyped source: array of the columns whose text did not cast."""


def uncast_count(columns: Columns, column: str) -> Column:
    """How many rows hold a value of ``column`` that did not cast; NULL for a typed batch."""
    if columns.find(UNCAST) is None:
        return F.lit(None).cast("bigint")
    return F.count_if(uncast_mark(column))


def uncast_mark(column: str) -> Column:
    """True for a row whose ``column`` value did not cast, never NULL."""
    return F.coalesce(F.array_contains(F.col(UNCAST), F.lit(column)), F.lit(False))
