"""Metrics: what a rule measures, independent of the engine that measures it.

The names and definitions are SPEC §1's (DQX's ``MetricProvider`` vocabulary);
an engine backend (``dqx_gx.expectations``) maps each :class:`MetricKind` to its
own computation and must return exactly these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

Scalar = str | int | float | bool
"""A value a column may be compared with (set membership, sentinels)."""


class MetricKind(StrEnum):
    NUM_ROWS = "num_rows"
    NULL_COUNT = "null_count"
    MISSING_COUNT = "missing_count"
    """NULLs plus rows equal to one of the sentinel values."""
    INVALID_COUNT = "invalid_count"
    """Rows whose value is not in the valid set; NULL is never valid."""
    COUNT_VALUES = "count_values"
    """Rows whose value is in the set; NULL never matches."""
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


class Scale(StrEnum):
    """How a count is reported."""

    COUNT = "count"
    FRACTION = "fraction"
    """count / num_rows, 0–1: a DQX custom rule's ``return: pct``."""
    PERCENT = "percent"
    """100 × count / num_rows, 0–100: an ODCS library rule's ``unit: percent``."""


COUNT_KINDS = frozenset(
    {
        MetricKind.NULL_COUNT,
        MetricKind.MISSING_COUNT,
        MetricKind.INVALID_COUNT,
        MetricKind.COUNT_VALUES,
        MetricKind.PATTERN_INVALID_COUNT,
        MetricKind.DUPLICATE_COUNT,
        MetricKind.VIOLATION_COUNT,
    }
)
"""Metrics that count rows and so can be scaled to a fraction or percentage."""


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

    def describe(self, column: str) -> str:
        """The violating condition, e.g. ``length(name) < 3``."""
        v = self.value
        shown = repr(v) if isinstance(v, str) else str(v)
        match self.kind:
            case ConstraintKind.MIN_LENGTH:
                return f"length({column}) < {v}"
            case ConstraintKind.MAX_LENGTH:
                return f"length({column}) > {v}"
            case ConstraintKind.PATTERN:
                return f"{column} !~ /{v}/"
            case ConstraintKind.FORMAT:
                return f"{column} is not a valid {v}"
            case ConstraintKind.MINIMUM:
                return f"{column} < {shown}"
            case ConstraintKind.MAXIMUM:
                return f"{column} > {shown}"
            case ConstraintKind.EXCLUSIVE_MINIMUM:
                return f"{column} <= {shown}"
            case ConstraintKind.EXCLUSIVE_MAXIMUM:
                return f"{column} >= {shown}"
            case ConstraintKind.MULTIPLE_OF:
                return f"{column} % {v} != 0"
            case ConstraintKind.MIN_ITEMS:
                return f"size({column}) < {v}"
            case ConstraintKind.MAX_ITEMS:
                return f"size({column}) > {v}"
            case _:  # UNIQUE_ITEMS
                return f"{column} has repeated items"


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
    scale: Scale = Scale.COUNT

    @property
    def column(self) -> str | None:
        """The single column of a column metric (``None`` for table metrics)."""
        return self.columns[0] if len(self.columns) == 1 else None

    def describe(self) -> str:
        """The metric as a formula, e.g. ``null_count(order_id)`` or ``100 * null_count(a) / num_rows()``."""
        cols = ", ".join(self.columns)
        values = _values_text(self.values)
        match self.kind:
            case MetricKind.NUM_ROWS:
                base = "num_rows()"
            case MetricKind.MISSING_COUNT:
                base = f"null_count({cols}) + count_values({cols}, {values})"
            case MetricKind.INVALID_COUNT:
                base = f"num_rows() - count_values({cols}, {values})"
            case MetricKind.COUNT_VALUES:
                base = f"count_values({cols}, {values})"
            case MetricKind.PATTERN_INVALID_COUNT:
                base = f"num_rows() - count_matching({cols}, /{self.pattern}/)"
            case MetricKind.PERCENTILE:
                base = f"percentile({cols}, {self.percentile})"
            case MetricKind.FRESHNESS_HOURS if self.aggregation == "min":
                base = f"freshness_hours({cols}, oldest)"
            case MetricKind.VIOLATION_COUNT:
                assert self.constraint is not None
                base = f"count_if({self.constraint.describe(cols)})"
            case _:
                base = f"{self.kind.value}({cols})"
        if self.scale is Scale.COUNT:
            return base
        if " + " in base or " - " in base:
            base = f"({base})"
        return f"{base} / num_rows()" if self.scale is Scale.FRACTION else f"100 * {base} / num_rows()"


def _values_text(values: tuple[Scalar, ...], limit: int = 6) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    more = f", … {len(values)} values" if len(values) > limit else ""
    return f"[{shown}{more}]"
