"""What dqx-gx measures for each dqlib metric: the aggregates the kinds already declare, wherever dqlib's
number is a kind's.

A dqlib metric spec (``specs.Average("price")``) is computed from its analyzers (``ops.NumRows``,
``ops.Average``), each one SQL aggregate on DuckDB (``dqx.dialect.DuckDBDialect``). Each analyzer here
becomes the :class:`~dqx_gx.rules.metric.Metric` of the kind that computes the same number on Spark
(docs/semantics.md, 'The reference: DQX itself'): ``null_count``, ``mean``, ``variance``,
``duplicate_count`` … so a hand-written assertion's ``null_count(id)`` is the contract's ``nullValues`` aggregate,
computed once in the shared pass. Two have no kind: the first row's value (:class:`FirstRow`) and dqlib's ``custom_sql``
(:class:`SqlValue`, run as a ``type: sql`` rule is, only when SQL is allowed). The spec's value is then dqlib's own: its
analyzers are given the measured values and ``spec.state().value`` read, as dqlib's analyzer does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dqx import ops
from dqx.specs import MetricSpec

from dqx_gx.checks.dqlib_private import rebuilt_spec
from dqx_gx.kinds import MetricKind
from dqx_gx.rules.hand_written import MetricSymbol
from dqx_gx.rules.metric import Constraint, ConstraintKind, Metric, Scalar

EXTENDED = frozenset({"DayOverDay", "WeekOverWeek", "Stddev"})
"""dqlib's metrics of earlier days' values of another metric."""


@dataclass(frozen=True)
class OfKind:
    """An analyzer whose number is a kind's metric."""

    metric: Metric
    when_null: float | None = None
    """The value dqlib gives when the aggregate is NULL (``max_length``: ``COALESCE(…, '-inf')``); None: it
    has no value then (dqlib stops its whole run; dqx-gx fails the assertion)."""


@dataclass(frozen=True)
class FirstRow:
    """The column's value in the batch's first row, as a double (dqlib: ``CAST(FIRST(c) AS DOUBLE)``;
    its DuckDB query takes no ``order_by``)."""

    column: str


@dataclass(frozen=True)
class SqlValue:
    """dqlib's ``custom_sql``: an aggregate SQL expression over the batch, as a double."""

    expression: str


Measure = OfKind | FirstRow | SqlValue


def measure_of(op: Any) -> Measure:
    """What measures one dqlib analyzer; ``TypeError`` for an analyzer dqx-gx does not know."""
    match op:
        case ops.NumRows():
            return OfKind(Metric(MetricKind.NUM_ROWS))
        case ops.NullCount(column=column):
            return OfKind(Metric(MetricKind.NULL_COUNT, (column,)))
        case ops.Average(column=column):
            return OfKind(Metric(MetricKind.MEAN, (column,)))
        case ops.Variance(column=column):
            return OfKind(Metric(MetricKind.VARIANCE, (column,)))
        case ops.Minimum(column=column):
            return OfKind(Metric(MetricKind.MIN, (column,)))
        case ops.Maximum(column=column):
            return OfKind(Metric(MetricKind.MAX, (column,)))
        case ops.Sum(column=column):
            return OfKind(Metric(MetricKind.SUM, (column,)))
        case ops.NegativeCount(column=column):  # COUNT_IF(c < 0.0): the values breaking a minimum of 0
            below_zero = Constraint(ConstraintKind.MINIMUM, 0)
            return OfKind(Metric(MetricKind.VIOLATION_COUNT, (column,), constraint=below_zero))
        case ops.DuplicateCount(columns=columns):
            return OfKind(Metric(MetricKind.DUPLICATE_COUNT, tuple(columns)))
        case ops.CountValues(column=column, values=values):
            listed: tuple[Scalar, ...] = tuple(values) if isinstance(values, list) else (values,)
            return OfKind(Metric(MetricKind.COUNT_VALUES, (column,), values=listed))
        case ops.UniqueCount(column=column):
            return OfKind(Metric(MetricKind.CARDINALITY, (column,)))
        case ops.MinLength(column=column, column_type=column_type):
            return OfKind(Metric(MetricKind.MIN_LENGTH, (column,), column_type=column_type))
        case ops.MaxLength(column=column, column_type=column_type):
            return OfKind(Metric(MetricKind.MAX_LENGTH, (column,), column_type=column_type), when_null=-math.inf)
        case ops.First(column=column):
            return FirstRow(column)
        case ops.CustomSQL(sql_expression=expression):
            return SqlValue(expression)
    raise TypeError(f"dqx-gx does not measure dqlib's {type(op).__name__}")


def spec_of(symbol: MetricSymbol) -> MetricSpec:
    """A fresh dqlib spec of the symbol's metric (its analyzers unmeasured), rebuilt as dqlib rebuilds the
    specs it stores."""
    return rebuilt_spec(symbol.type, symbol.arguments)


def base_of(symbol: MetricSymbol) -> MetricSymbol:
    """The metric an extended metric (day over day, week over week, stddev) is taken of."""
    arguments = symbol.arguments
    base = rebuilt_spec(arguments["base_metric_type"], arguments["base_parameters"])
    return symbol_of(base, symbol=symbol.symbol, lag=symbol.lag, dataset=symbol.dataset)


def symbol_of(spec: MetricSpec, *, symbol: str, lag: int, dataset: str) -> MetricSymbol:
    """The plain data of a dqlib spec."""
    parameters = json.dumps(_plain(spec.parameters), sort_keys=True)
    return MetricSymbol(symbol, spec.name, spec.metric_type, parameters, lag, dataset)


def _plain(value: Any) -> Any:
    """Parameters as JSON keeps them (dqlib stores them as JSON too); ``TypeError`` for what JSON cannot hold."""
    return json.loads(json.dumps(value))


def measures(symbol: MetricSymbol) -> tuple[Measure, ...]:
    """What measures a simple metric: one :data:`Measure` per analyzer of its spec, in the spec's order."""
    return tuple(measure_of(op) for op in spec_of(symbol).analyzers)


def value_of(symbol: MetricSymbol, measured: Sequence[float]) -> float | str:
    """The metric's value from its analyzers' values, as dqlib's analyzer derives it (``spec.state()``),
    or dqlib's reason when its state refuses them."""
    spec = spec_of(symbol)
    for op, value in zip(spec.analyzers, measured, strict=True):
        op.assign(float(value))
    try:
        return float(spec.state().value)
    except Exception as exc:  # dqlib's states refuse impossible combinations with a DQXError
        return f"{symbol.name}: {exc}"


def identity(symbol: MetricSymbol) -> tuple[str, str, str]:
    """What makes two symbols the same metric of a dataset (dqlib's spec equality: type and parameters)."""
    return (symbol.type, symbol.parameters, symbol.dataset)
