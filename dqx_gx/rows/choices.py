"""What a caller of the row gate chooses, and how it is refused, without importing Spark.

The CLI builds its help and checks its arguments from these before any Spark session starts.
"""

from __future__ import annotations

from typing import Protocol

WRITE_FORMATS = ("parquet", "csv", "json", "orc")


class RowGateError(ValueError):
    """The rows cannot be gated as asked (a stream with a rule that needs other rows, a name clash)."""


class OutputError(ValueError):
    """An output cannot be written as asked (it exists, its folder is missing, the format cannot hold it)."""


class Verdict(Protocol):
    """What the row gate needs of a batch verdict (a :class:`~dqx_gx.run.ContractRun`): the rules that failed."""

    @property
    def failed_rules(self) -> frozenset[str]:
        """The ids of the rules that FAILED on the batch."""
        ...
