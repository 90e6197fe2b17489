"""Thresholds: an ODCS operator and its value, turned into tolerance-derived bounds.

DQX compares with a tolerance ε = 1e-9 (``dqx.functions``). docs/semantics.md, 'Operators' writes each
operator as bounds around the value; those bounds are what every engine
evaluates and what the GX expectation stores, so there is exactly one
definition of "passes" in this project: :meth:`Interval.passes`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from dqx_gx.errors import ContractValidationError, shown

EPSILON = 1e-9
"""DQX's comparison tolerance (``dqx.functions.EPSILON``)."""


class Operator(StrEnum):
    """The ODCS comparison operators, by their contract spelling."""

    MUST_BE = "mustBe"
    MUST_NOT_BE = "mustNotBe"
    GREATER_THAN = "mustBeGreaterThan"
    GREATER_OR_EQUAL = "mustBeGreaterOrEqualTo"
    LESS_THAN = "mustBeLessThan"
    LESS_OR_EQUAL = "mustBeLessOrEqualTo"
    BETWEEN = "mustBeBetween"
    NOT_BETWEEN = "mustNotBeBetween"

    @property
    def takes_range(self) -> bool:
        return self in (Operator.BETWEEN, Operator.NOT_BETWEEN)


OPERATOR_NAMES: tuple[str, ...] = tuple(op.value for op in Operator)


@dataclass(frozen=True)
class Interval:
    """Bounds as stored in a GX expectation: pass iff the value is inside (or, for
    ``outside``, not inside) the interval. ``None`` means unbounded."""

    min_value: float | None = None
    max_value: float | None = None
    strict_min: bool = False
    strict_max: bool = False
    outside: bool = False

    def contains(self, x: float) -> bool:
        if self.min_value is not None and not (x > self.min_value if self.strict_min else x >= self.min_value):
            return False
        return self.max_value is None or (x < self.max_value if self.strict_max else x <= self.max_value)

    def passes(self, x: float) -> bool:
        """The single definition of pass/fail for a finite observed value."""
        return self.contains(x) != self.outside


@dataclass(frozen=True)
class Threshold:
    """One operator with its value (a number, or ``(lower, upper)`` for ranges)."""

    operator: Operator
    value: float | tuple[float, float]
    tolerance: float = EPSILON

    @property
    def interval(self) -> Interval:
        eps = self.tolerance
        op = self.operator
        if isinstance(self.value, tuple):
            low, high = self.value
            if op is Operator.BETWEEN:
                return Interval(low - eps, high + eps, strict_min=True, strict_max=True)
            return Interval(low - eps, high + eps, outside=True)
        v = self.value
        match op:
            case Operator.MUST_BE:
                return Interval(v - eps, v + eps, strict_min=True, strict_max=True)
            case Operator.MUST_NOT_BE:
                return Interval(v - eps, v + eps, strict_min=True, strict_max=True, outside=True)
            case Operator.GREATER_THAN:
                return Interval(min_value=v + eps, strict_min=True)
            case Operator.GREATER_OR_EQUAL:
                return Interval(min_value=v - eps, strict_min=True)
            case Operator.LESS_THAN:
                return Interval(max_value=v - eps, strict_max=True)
            case _:  # LESS_OR_EQUAL
                return Interval(max_value=v + eps, strict_max=True)

    def passes(self, x: float) -> bool:
        return self.interval.passes(x)

    def describe(self) -> str:
        """The comparison as DQX writes it in an assertion expression (``= 0``, ``in [1, 5]``)."""
        if isinstance(self.value, tuple):
            low, high = (_number_text(v) for v in self.value)
            prefix = "in" if self.operator is Operator.BETWEEN else "not in"
            return f"{prefix} [{low}, {high}]"
        symbol = {
            Operator.MUST_BE: "=",
            Operator.MUST_NOT_BE: "≠",
            Operator.GREATER_THAN: ">",
            Operator.GREATER_OR_EQUAL: "≥",
            Operator.LESS_THAN: "<",
            Operator.LESS_OR_EQUAL: "≤",
        }[self.operator]
        return f"{symbol} {_number_text(self.value)}"


def _number_text(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() and abs(value) < 1e15 else str(value)


def parse_threshold(
    rule: str,
    operators: Mapping[str, Any],
    *,
    tolerance: float = EPSILON,
    spelling: Mapping[Operator, str] | None = None,
) -> Threshold | None:
    """Read the operator of a rule; ``None`` when it has none (the metric is only recorded).

    ``rule`` names the rule in error messages, e.g. ``Quality rule 'amount_range'``;
    ``spelling`` gives the contract's own word for an operator (native ``between``).
    """
    present = [name for name in OPERATOR_NAMES if name in operators]
    if not present:
        return None
    if len(present) > 1:
        raise ContractValidationError(
            f"{rule}: has more than one operator ({', '.join(present)}); give exactly one "
            "(mustBeBetween expresses a range)",
            key=present[1],
        )
    op = Operator(present[0])
    word = (spelling or {}).get(op, op.value)
    raw = operators[op.value]
    if not math.isfinite(tolerance) or tolerance < 0:
        raise ContractValidationError(
            f"{rule}: tolerance must be a finite number >= 0, got: {tolerance}", key="tolerance"
        )
    if op.takes_range:
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise ContractValidationError(
                f"{rule}: {word} must be a list of [lower, upper], got: {shown(raw)} (write e.g. {word}: [0, 10])",
                key=word,
            )
        low, high = (finite_number(f"{rule}: {word} bound", item, key=word) for item in raw)
        if low > high:
            raise ContractValidationError(
                f"{rule}: {word} lower bound {shown(raw[0])} is greater than upper bound {shown(raw[1])}; "
                "give [lower, upper]",
                key=word,
            )
        return Threshold(op, (low, high), tolerance)
    return Threshold(op, finite_number(f"{rule}: {word}", raw, key=word), tolerance)


def finite_number(where: str, raw: Any, within: tuple[float, float] | None = None, *, key: str | None = None) -> float:
    """A contract number as a float: booleans, text, NaN, infinity and integers beyond a float are refused.

    ``within`` bounds it inclusively; the message then names the range, which is what the author needs.
    ``key`` names the field for the error's path.
    """
    expected = f"a number between {within[0]} and {within[1]}" if within else "a number"
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ContractValidationError(f"{where} must be {expected}, got: {shown(raw)}", key=key)
    try:
        value = float(raw)
    except OverflowError:
        raise ContractValidationError(f"{where} is too large for a float ({len(str(raw))} digits)", key=key) from None
    if not math.isfinite(value):
        raise ContractValidationError(
            f"{where} must be {'a finite number' if within is None else expected}, got: {value}", key=key
        )
    if within and not within[0] <= value <= within[1]:
        raise ContractValidationError(f"{where} must be {expected}, got: {value}", key=key)
    return value
