"""What a rule kind is: the engine-neutral declaration every layer reads.

A :class:`Kind` says, for one ``MetricKind`` (``dqx_gx.kinds.catalog``), how the metric reads in words,
which column types it can measure, what sort of value it gives, which parameters it takes
(:mod:`dqx_gx.kinds.params`), what it needs besides the rows (the run's moment, a referenced dataset), and
whether it marks rows (or is batch-only). The GX expectation, the parsers, the type check, the report text
and the row gate are all built from it; an engine adds its own half by the kind's name (the Spark half:
``dqx_gx.spark.kinds``), so loading and linting contracts never import an engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from dqx_gx.kinds.params import REFERENCE, Param
from dqx_gx.kinds.words import Words
from dqx_gx.rules.metric import ConstraintKind, KindOfMetric, Metric, Scalar, Scale


class TypeFamily(StrEnum):
    """Engine-neutral sorts of column: a backend maps its own types onto these."""

    TEXT = "text"
    INTEGER = "integer"
    FRACTIONAL = "fractional"
    BOOLEAN = "boolean"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TIME = "time"
    BINARY = "binary"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"
    OTHER = "other"


REDACTED = "***"
"""How a value of a sensitive column is shown in every output (docs/semantics.md, 'Samples and sensitive columns')."""

NUMBERS = frozenset({TypeFamily.INTEGER, TypeFamily.FRACTIONAL})
COMPOSITES = frozenset({TypeFamily.ARRAY, TypeFamily.MAP, TypeFamily.STRUCT})


@dataclass(frozen=True)
class Accepts:
    """The column types a kind can measure, and the phrase that says so when a column is of another type.

    ``allowed`` (None: any type) is checked on the column's own type; ``refused`` on its own
    type, or anywhere inside it when ``nested`` (a map inside an array cannot be compared).
    """

    phrase: str = ""
    allowed: frozenset[TypeFamily] | None = None
    refused: frozenset[TypeFamily] = frozenset()
    nested: bool = False

    def problem(self, subject: str, family: TypeFamily, inside: frozenset[TypeFamily], column: str) -> str | None:
        """Why a column of this type cannot be measured (``column`` says what it is), or None."""
        if self.allowed is not None and family not in self.allowed:
            return f"{subject} {self.phrase}; {column}"
        if (inside if self.nested else {family}) & self.refused:
            return f"{subject} {self.phrase}; {column}"
        return None


ANY_TYPE = Accepts()


class Value(StrEnum):
    """What a kind's number is, which decides how it is read back and reported."""

    ROWS = "rows"
    """A count of rows: reported as a count, a fraction or a percentage of all rows (:class:`Scale`)."""
    COUNT = "count"
    """A count that is not a share of the rows (num_rows, count, cardinality)."""
    NUMBER = "number"
    """A statistic of the values, NaN kept apart from NULL."""
    AGE = "age"
    """Hours between "now" (a run-time parameter) and an instant in the data."""
    GAPS = "gaps"
    """Expected time partitions with no row, in a window ending at "now" (a run-time parameter)."""


class Arity(StrEnum):
    """How many columns a metric reads, and so whether it is stored as ``column`` or ``columns``."""

    NONE = "none"
    ONE = "one"
    MANY = "many"


class Reach(StrEnum):
    """What a row mark looks at besides the row itself."""

    ROW = "row"
    """The row alone: works on any DataFrame, streams included."""
    KEY = "key"
    """Every row sharing the row's key (duplicates): the gate finds the repeated keys in the batch first;
    not possible on a stream."""
    BOUNDS = "bounds"
    """The row alone, against the rule's pass interval (custom min/max): only rules with an operator mark."""
    REFERENCE = "reference"
    """The row's key against the keys of a referenced dataset (foreign keys), joined in first; a stream too,
    as a stream-static join."""


class Extreme(StrEnum):
    """Which end of the values a statistic is: one row past a bound on that side fails the rule alone."""

    LOWEST = "lowest"
    """The smallest value (min): a row below a lower bound fails it."""
    HIGHEST = "highest"
    """The largest value (max): a row above an upper bound fails it."""


@dataclass(frozen=True)
class Marks:
    """A row-level kind: it marks exactly the rows its count counts (docs/semantics.md, 'Invariant'). The predicate
    that finds them is the engine's (``dqx_gx.spark.kinds``)."""

    reads: str | Callable[[Metric], str]
    """Why a marked row is marked (the annotation's message); filled in like :attr:`Kind.reads`."""
    reach: Reach = Reach.ROW
    extreme: Extreme | None = None
    """For :attr:`Reach.BOUNDS`: which end of the values the statistic is."""


@dataclass(frozen=True)
class BatchOnly:
    """The mark of a kind that is a number of the whole batch: it never marks rows (docs/semantics.md, 'Invariant')."""

    why: str


class DqlibMetrics(Protocol):
    """The metrics of dqlib's ``MetricProvider`` a kind's :attr:`Kind.dqlib` states its metric with, by dqlib's
    names; ``Contract.to_checks()`` binds them to a provider (``dqx_gx.checks.from_contract``). A metric dqlib
    cannot state (values of mixed types) raises :class:`Unstated`."""

    def num_rows(self) -> Any: ...
    def null_count(self, column: str) -> Any: ...
    def count_values(self, column: str, values: tuple[Scalar, ...]) -> Any: ...
    def duplicate_count(self, columns: tuple[str, ...]) -> Any: ...
    def unique_count(self, column: str) -> Any: ...
    def minimum(self, column: str) -> Any: ...
    def maximum(self, column: str) -> Any: ...
    def average(self, column: str) -> Any: ...
    def sum(self, column: str) -> Any: ...
    def variance(self, column: str) -> Any: ...
    def negative_count(self, column: str) -> Any:
        """dqlib's ``NegativeCount``: the values below 0."""
        ...

    def min_length(self, column: str, column_type: str) -> Any: ...
    def max_length(self, column: str, column_type: str) -> Any: ...
    def sqrt(self, value: Any) -> Any: ...


class Unstated(Exception):
    """dqlib cannot state this metric of a kind it otherwise states; the message says why (empty: it has no
    such metric)."""


@dataclass(frozen=True)
class Kind:
    """One metric kind, declared once: what every layer reads of it (its Spark half is registered under
    its name in ``dqx_gx.spark.kinds``)."""

    metric: KindOfMetric
    """Its name (a ``MetricKind``), which metrics carry."""
    reads: str | Callable[[Metric], str]
    """The metric in DQX's notation; ``{columns}`` and each parameter by its name are filled in (a list of
    values as expressions show it)."""
    accepts: Accepts | Callable[[Metric], Accepts]
    value: Value
    marks: Marks | BatchOnly
    """The rows the rule counts (row-level kinds), or why there are none."""
    expectation: str
    """The GX expectation type that suites store it as (stable: stored suites name it)."""
    words: Words
    """How contracts name it (checks, their options, ODCS library metrics), what it is for, an example."""
    arity: Arity = Arity.ONE
    params: tuple[Param[Any], ...] = ()
    """The parameters its metric takes besides its columns, each the metric's field, an expectation
    argument and the option of a check that gives it."""
    needs_now: bool = False
    """Its number depends on the run's moment: the expectation takes the ``now`` parameter, and its engine
    half is given the moment (a row mark too)."""
    subject: str | Callable[[Metric], str] | None = None
    """How type problems name the kind (default: its metric name)."""
    shows_values: bool = False
    """Its number or the details of its result are (or reveal) values of the column (min, max, percentile,
    the missing periods of a completeness rule, …): on a sensitive column the number is reported as
    ``***`` and those details are left out (docs/semantics.md, 'Samples and sensitive columns'); counts and lengths are
    not values."""
    refuses: Callable[[Metric], str | None] | None = None
    """Why a metric of it cannot be measured whatever the data (a reversed range), said when the contract
    is loaded; None: every metric its parameters' schemas allow can be."""
    dqlib: Callable[[Metric, DqlibMetrics], Any] | None = None
    """The metric, at the scale of a count, in dqlib's ``MetricProvider`` metrics (``Contract.to_checks()``
    gives dqlib a contract's rules so); None: dqlib has no such metric, and to_checks leaves its rules out,
    saying so."""

    @property
    def name(self) -> str:
        return self.metric.value

    @property
    def row_level(self) -> bool:
        return isinstance(self.marks, Marks)

    @property
    def marks_by_key(self) -> bool:
        """Its marks compare rows (duplicates): every row of a repeated key, more rows than it counts."""
        return isinstance(self.marks, Marks) and self.marks.reach is Reach.KEY

    @property
    def needs_reference(self) -> bool:
        """Its number needs another dataset, named by its ``reference`` parameter (foreign keys)."""
        return REFERENCE in self.params

    def reference_of(self, metric: Metric) -> str | None:
        """The dataset ``metric`` needs besides the batch, by the name the contract gives it, or None."""
        return REFERENCE.of(metric) if self.needs_reference else None

    def describe(self, metric: Metric) -> str:
        """The metric as a formula, e.g. ``null_count(order_id)`` or ``100 * null_count(a) / num_rows()``."""
        base = fill(self.reads, metric)
        if self.value is not Value.ROWS or metric.scale is Scale.COUNT:
            return base
        if _a_sum(base):
            base = f"({base})"
        return f"{base} / num_rows()" if metric.scale is Scale.FRACTION else f"100 * {base} / num_rows()"

    def settled(self, given: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Its parameters in order, each ``given`` or its default; another name is a TypeError."""
        unknown = set(given) - {param.name for param in self.params}
        if unknown:
            raise TypeError(f"{self.name} takes no parameter {', '.join(sorted(unknown))}")
        return tuple((param.name, given.get(param.name, param.default)) for param in self.params)

    def accepts_for(self, metric: Metric) -> Accepts:
        return self.accepts(metric) if callable(self.accepts) else self.accepts

    def type_problem(
        self, metric: Metric, family: TypeFamily, inside: frozenset[TypeFamily], column: str
    ) -> str | None:
        """Why this metric cannot be measured on a column of that type, or None."""
        subject = fill(self.subject, metric) if self.subject is not None else self.name
        return self.accepts_for(metric).problem(subject, family, inside, column)

    # --- the expectation arguments of a metric, both ways (suites store them) ---------------------------

    @property
    def argument_types(self) -> dict[str, Any]:
        """The arguments :meth:`arguments` gives, in order, with the Python type each holds."""
        columns: dict[Arity, dict[str, Any]] = {
            Arity.NONE: {},
            Arity.ONE: {"column": str},
            Arity.MANY: {"columns": list[str]},
        }
        types = dict(columns[self.arity])
        for param in self.params:
            types |= param.argument_types
        if self.value is Value.ROWS:
            types["scale"] = str
        if self.on_items:
            types |= {"items": bool, "element": list[str]}
        return types

    @property
    def argument_names(self) -> tuple[str, ...]:
        """The names :meth:`arguments` gives, in order."""
        return tuple(self.argument_types)

    @property
    def on_items(self) -> bool:
        """A count of rows each judged alone, so it may judge a row by its array's elements instead."""
        return self.value is Value.ROWS and isinstance(self.marks, Marks) and self.marks.reach is Reach.ROW

    def arguments(self, metric: Metric) -> dict[str, Any]:
        """The expectation arguments that carry ``metric`` (columns, the kind's params, the scale)."""
        arguments: dict[str, Any] = {}
        if self.arity is Arity.ONE:
            arguments["column"] = metric.column
        elif self.arity is Arity.MANY:
            arguments["columns"] = list(metric.columns)
        for param in self.params:
            arguments.update(param.arguments(param.of(metric)))
        if self.value is Value.ROWS:
            arguments["scale"] = metric.scale.value
        if self.on_items:
            arguments.update(items=metric.items, element=list(metric.element))
        return arguments

    def metric_of(self, arguments: Mapping[str, Any]) -> Metric:
        """The metric stored expectation arguments describe (inverse of :meth:`arguments`)."""
        columns: tuple[str, ...] = ()
        if self.arity is Arity.ONE:
            columns = (arguments["column"],)
        elif self.arity is Arity.MANY:
            columns = tuple(arguments["columns"])
        params = {param.name: param.value_of(arguments) for param in self.params}
        scale = Scale(arguments.get("scale", Scale.COUNT))
        items, element = bool(arguments.get("items", False)), tuple(arguments.get("element") or ())
        return Metric(self.metric, columns, scale=scale, items=items, element=element, params=params)


@dataclass(frozen=True)
class ConstraintCheck:
    """One ``logicalTypeOptions`` constraint, declared once: its words and the types it applies to (its
    predicate is the engine's)."""

    kind: ConstraintKind
    reads: str
    """The violating condition; ``{column}`` and ``{value}`` (``{shown}``: strings quoted) are filled in."""
    accepts: Accepts | Callable[[Scalar], Accepts]

    def describe(self, column: str, value: Scalar) -> str:
        shown = repr(value) if isinstance(value, str) else str(value)
        return self.reads.format(column=column, value=value, shown=shown)

    def accepts_for(self, value: Scalar) -> Accepts:
        return self.accepts(value) if callable(self.accepts) else self.accepts


def fill(words: str | Callable[[Metric], str], metric: Metric) -> str:
    """Words about a metric: a callable's text, or a template with ``{columns}`` and each parameter by its
    name filled in (a list of values as expressions show it)."""
    if callable(words):
        return words(metric)
    shown = {name: values_text(value) if isinstance(value, tuple) else value for name, value in metric.params}
    return words.format(columns=columns_text(metric), **shown)


def _a_sum(formula: str) -> bool:
    """Whether ``formula`` adds or subtracts outside any parentheses or brackets (``a + b``, not ``f(a + b)``)."""
    depth = 0
    for i, char in enumerate(formula):
        depth += (char in "([") - (char in ")]")
        if depth == 0 and formula[i : i + 3] in (" + ", " - "):
            return True
    return False


def columns_text(metric: Metric) -> str:
    """The metric's columns as expressions show them; ``tags[*]`` for the items of an array, ``lines[*].sku``
    for a field of its elements."""
    if not metric.items:
        return ", ".join(metric.columns)
    inside = "".join("[*]" if step == "*" else f".{step}" for step in metric.element)
    return ", ".join(f"{column}[*]{inside}" for column in metric.columns)


def values_text(values: tuple[Scalar, ...], limit: int = 6) -> str:
    """A value list as expressions show it: the first few, then how many in all."""
    shown = ", ".join(repr(v) for v in values[:limit])
    more = f", … {len(values)} values" if len(values) > limit else ""
    return f"[{shown}{more}]"
