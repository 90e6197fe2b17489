"""What a caller chooses about reading data, and how it is refused, without importing Spark or dqlib.

The CLI builds its help and checks its arguments from these before any Spark session starts.
"""

from __future__ import annotations

FORMATS = ("parquet", "csv", "json", "orc")
"""The formats dqx-gx knows by name; any other format Spark has a source for (delta, iceberg, avro, …)
is passed through to Spark."""


class SourceError(ValueError):
    """The data cannot be found or read as asked: one line naming the flag, server or file and the fix."""
