"""What a draft knows about a dataset, as plain values: the shape of each column and its statistics.

Built by the Spark side (``profile.py``), read by the engine-neutral side (``document.py``), so the
contract a draft writes can be tested and reasoned about without Spark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    """A column's type as ODCS can say it: a ``logicalType`` (None: ODCS has none, ``untyped`` says why),
    the Spark type's text kept as ``physicalType``, and what a nested type holds."""

    physical: str
    logical: str | None = None
    timezone: bool | None = None
    """For timestamps: True for Spark's ``timestamp`` (an instant), False for ``timestamp_ntz``."""
    items: Shape | None = None
    fields: tuple[tuple[str, Shape], ...] = ()
    untyped: str | None = None


@dataclass(frozen=True)
class ColumnStats:
    """One top-level column, measured. A statistic is None when it was not measured for the type
    or the column holds no value to measure it on."""

    name: str
    shape: Shape
    nulls: int
    minimum: int | float | str | None = None
    """Numbers as numbers (bounds that hold exactly), dates and times as ISO text (for descriptions)."""
    maximum: int | float | str | None = None
    nans: int = 0
    max_length: int | None = None
    unique: bool = False
    """Exact: every value distinct and none NULL."""
    values: tuple[str, ...] | None = None
    """Every distinct non-NULL value, sorted; None when there are more than the draft's limit."""


@dataclass(frozen=True)
class Profile:
    """A dataset measured for a draft: its rows (of the sample, when sampled) and columns in order."""

    rows: int
    columns: tuple[ColumnStats, ...]
    sample: float | None = None
    """The fraction of rows read (``df.sample``); None when every row was."""

    @property
    def estimated_rows(self) -> int:
        """The dataset's rows: counted, or estimated from the sample."""
        return self.rows if self.sample is None else round(self.rows / self.sample)
