"""Metrics: what a rule measures, independent of the engine that measures it.

The names and definitions are SPEC §1's (DQX's ``MetricProvider`` vocabulary);
an engine backend (``dqx_gx.expectations``) maps each :class:`MetricKind` to its
own computation and must return exactly these numbers. What a metric reads as in
words is its kind's (``dqx_gx.kinds``, one layer up), which hands it down here
(:func:`declare_words`) so that a rule can say itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

Scalar = str | int | float | bool
"""A value a column may be compared with (set membership, sentinels)."""


class MetricKind(StrEnum):
    NUM_ROWS = "num_rows"
    NULL_COUNT = "null_count"
    FIELD_NULL_COUNT = "field_null_count"
    """Rows whose struct field is NULL while the struct holding it is not: ``required`` on a struct's field."""
    MISSING_COUNT = "missing_count"
    """NULLs plus rows equal to one of the sentinel values."""
    INVALID_COUNT = "invalid_count"
    """Rows whose value is not in the valid set; NULL is never valid."""
    COUNT_VALUES = "count_values"
    """Rows whose value is in the set; NULL never matches."""
    UNLISTED_COUNT = "unlisted_count"
    """Non-NULL rows whose value is not in the set: a property's ``enum`` (NULLs are ``required``'s business)."""
    PATTERN_INVALID_COUNT = "pattern_invalid_count"
    """Rows that are NULL or do not match the pattern."""
    DUPLICATE_COUNT = "duplicate_count"
    CARDINALITY = "cardinality"
    MIN = "min"
    MAX = "max"
    MEAN = "mean"
    SUM = "sum"
    COUNT = "count"
    VARIANCE = "variance"
    STDDEV = "stddev"
    PERCENTILE = "percentile"
    MIN_LENGTH = "min_length"
    MAX_LENGTH = "max_length"
    AVG_LENGTH = "avg_length"
    FRESHNESS_HOURS = "freshness_hours"
    """Hours between "now" (given at run time) and the newest value of a date/timestamp column."""
    VIOLATION_COUNT = "violation_count"
    """Non-null rows breaking a declared value constraint (logicalTypeOptions)."""
    MISSING_PARTITIONS = "missing_partitions"
    """Expected time partitions (hours, days, ISO weeks, months) of a lookback window with no row (SPEC §7)."""
    MISSING_REFERENCE_COUNT = "missing_reference_count"
    """Rows whose key (no column NULL) is no key of the referenced dataset: a broken foreign key (SPEC §3)."""


class Scale(StrEnum):
    """How a count is reported."""

    COUNT = "count"
    FRACTION = "fraction"
    """count / num_rows, 0–1: a DQX custom rule's ``return: pct``."""
    PERCENT = "percent"
    """100 × count / num_rows, 0–100: an ODCS library rule's ``unit: percent``."""


class ConstraintKind(StrEnum):
    """Value constraints from ``logicalTypeOptions``; a row violates one when the predicate holds."""

    MIN_LENGTH = "minLength"
    MAX_LENGTH = "maxLength"
    PATTERN = "pattern"
    FORMAT = "format"
    MINIMUM = "minimum"
    MAXIMUM = "maximum"
    EXCLUSIVE_MINIMUM = "exclusiveMinimum"
    EXCLUSIVE_MAXIMUM = "exclusiveMaximum"
    MULTIPLE_OF = "multipleOf"
    MIN_ITEMS = "minItems"
    MAX_ITEMS = "maxItems"
    UNIQUE_ITEMS = "uniqueItems"


@dataclass(frozen=True)
class Constraint:
    kind: ConstraintKind
    value: Scalar


@dataclass(frozen=True)
class Metric:
    """A measurement over one batch. Only the fields its kind uses are set."""

    kind: MetricKind
    columns: tuple[str, ...] = ()
    values: tuple[Scalar, ...] = ()
    pattern: str | None = None
    percentile: float | None = None
    column_type: str | None = None
    """``string``, ``list`` or ``map`` for the length metrics."""
    constraint: Constraint | None = None
    aggregation: str = "max"
    """Freshness only: age of the newest (``max``) or the oldest (``min``) value."""
    granularity: str | None = None
    """Completeness only: ``hourly``, ``daily``, ``weekly`` or ``monthly``."""
    lookback_days: int | None = None
    """Completeness only: how far back from "now" partitions are expected."""
    allow_future_gaps: bool = True
    """Completeness only: gaps after the latest present partition are late data, not gaps."""
    reference: str | None = None
    """Foreign keys only: the referenced dataset, by the name the contract gives it (the run is given it)."""
    reference_columns: tuple[str, ...] = ()
    """Foreign keys only: the referenced dataset's key columns, paired with ``columns``."""
    scale: Scale = Scale.COUNT
    items: bool = False
    """Measured on each element of an array column (ODCS ``items``): a row counts when any element does."""
    element: tuple[str, ...] = ()
    """With ``items``, the way from each element to the value measured: a field's name, or ``*`` for each
    element of an array inside (``contacts[*].email``: ``("email",)``); empty, the element itself. Through a
    NULL element or struct there is no value: the NULL is the rule on that element's or struct's business."""

    @property
    def column(self) -> str | None:
        """The single column of a column metric (``None`` for table metrics)."""
        return self.columns[0] if len(self.columns) == 1 else None


_WORDS: dict[MetricKind, Callable[[Metric], str]] = {}


def declare_words(words: Mapping[MetricKind, Callable[[Metric], str]]) -> None:
    """Called once by ``dqx_gx.kinds``, which declares every kind's words (rules sit below the kinds)."""
    _WORDS.update(words)


def describe(metric: Metric) -> str:
    """The metric as a formula in DQX's notation (``null_count(order_id)``), in its kind's words."""
    if metric.kind not in _WORDS:
        raise LookupError(f"no kind declares the words of {metric.kind.value!r}: import dqx_gx.kinds first")
    return _WORDS[metric.kind](metric)
