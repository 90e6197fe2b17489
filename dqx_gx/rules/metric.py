"""Metrics: what a rule measures, independent of the engine that measures it.

The names and definitions are those of DQX's ``MetricProvider`` (docs/semantics.md, 'The reference: DQX
itself'). A metric is one of the kinds declared in ``dqx_gx.kinds``, which it carries
(:class:`KindOfMetric`): the kind says how the metric reads in words and which parameters it takes,
so a rule can say itself whatever was imported first. An engine backend (``dqx_gx.expectations``) computes each kind
and must return
exactly these numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

Scalar = str | int | float | bool
"""A value a column may be compared with (set membership, sentinels)."""


class KindOfMetric(Protocol):
    """A metric's kind as rules see it: a ``MetricKind`` of ``dqx_gx.kinds``, which holds its declaration."""

    @property
    def value(self) -> str:
        """Its name, DQX's metric name (``null_count``)."""
        ...

    def describe(self, metric: Metric) -> str:
        """``metric`` as a formula in DQX's notation, in the kind's words."""
        ...

    def settled(self, given: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Every parameter the kind takes, in its order, with ``given``'s value or the default; a name the
        kind does not take is a TypeError."""
        ...

    def reference_of(self, metric: Metric) -> str | None:
        """The dataset ``metric`` needs besides the batch (a foreign key's), by the name the contract gives it."""
        ...


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


@dataclass(frozen=True, init=False)
class Metric:
    """A measurement over one batch: a kind, its columns and the parameters its kind declares.

    ``Metric(MetricKind.MISSING_COUNT, ("status",), values=("", "n/a"))``: each parameter is given by its
    name and read back with :meth:`param` (or typed, with the parameter's declaration:
    ``VALUES.of(metric)``); a parameter left out has its declared default.
    """

    kind: KindOfMetric
    columns: tuple[str, ...]
    params: tuple[tuple[str, Any], ...]
    """Each parameter of the kind, in the kind's order: ``(name, value)``."""
    scale: Scale
    items: bool
    """Measured on each element of an array column (ODCS ``items``): a row counts when any element does."""
    element: tuple[str, ...]
    """With ``items``, the way from each element to the value measured: a field's name, or ``*`` for each
    element of an array inside (``contacts[*].email``: ``("email",)``); empty, the element itself. Through a
    NULL element or struct there is no value: the NULL is the rule on that element's or struct's business."""

    def __init__(
        self,
        kind: KindOfMetric,
        columns: tuple[str, ...] = (),
        *,
        scale: Scale = Scale.COUNT,
        items: bool = False,
        element: tuple[str, ...] = (),
        params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
        **given: Any,
    ) -> None:
        """``params`` (a mapping, or pairs as :attr:`params` holds them) and keyword arguments both give
        parameters by name."""
        settled = kind.settled({**dict(params), **given})
        for name, value in (
            ("kind", kind),
            ("columns", tuple(columns)),
            ("params", settled),
            ("scale", scale),
            ("items", items),
            ("element", tuple(element)),
        ):
            object.__setattr__(self, name, value)

    @property
    def column(self) -> str | None:
        """The single column of a column metric (``None`` for table metrics)."""
        return self.columns[0] if len(self.columns) == 1 else None

    def param(self, name: str) -> Any:
        """The value of the parameter ``name``; None when the kind takes no such parameter."""
        return next((value for key, value in self.params if key == name), None)

    @property
    def reference(self) -> str | None:
        """The dataset the metric needs besides the batch (a foreign key's referenced dataset), or None."""
        return self.kind.reference_of(self)

    def describe(self) -> str:
        """The metric as a formula in DQX's notation (``null_count(order_id)``), in its kind's words."""
        return self.kind.describe(self)

    if not TYPE_CHECKING:  # typed code reads parameters through their declaration (``VALUES.of(metric)``)

        def __getattr__(self, name: str) -> Any:
            """A parameter by its name (``metric.values``); for one its kind does not take, the default the
            kinds that take it declare (AttributeError when none does)."""
            if name.startswith("_") or name == "params":
                raise AttributeError(name)
            for key, value in self.params:
                if key == name:
                    return value
            return self.kind.default_of(name)
