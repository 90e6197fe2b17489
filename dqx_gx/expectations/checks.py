"""Hand-written DQX assertions as GX expectations: each one ``expect_dqx_check_assertion`` (docs/semantics.md,
'Hand-written DQX checks').

The expectation stores what :mod:`dqx_gx.checks` read from the check function (the formula, its metric
symbols, the validator), so a stored suite runs it without the Python file. Each simple metric of this
batch is measured by the kinds' own aggregates in the run's shared passes (:mod:`dqx_gx.checks.measures`):
an assertion over ``null_count(id)`` and a contract's ``nullValues`` rule on ``id`` read one number. The
first row's value is a query of its own (:mod:`dqx_gx.spark.checks`), a ``custom_sql`` one too (as a
``type: sql`` rule, its query checked by the SQL guard). The value and verdict are then dqlib's
(:mod:`dqx_gx.checks.values`). The result's details name each metric's value, and carry the analyzers'
values of today's metrics, which a run given a metric database stores (:func:`measured_in`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.execution_engine import SparkDFExecutionEngine
from great_expectations.expectations.metrics.metric_provider import metric_value
from great_expectations.expectations.metrics.table_metric_provider import TableMetricProvider

from dqx_gx.checks.history import given_history
from dqx_gx.checks.measures import FirstRow, Measure, OfKind, SqlValue, identity, measures, value_of
from dqx_gx.checks.values import Failed, Skipped, assertion_value, passes, simple_needs
from dqx_gx.errors import ContractValidationError
from dqx_gx.expectations.base import DqxExpectation, Unmeasured
from dqx_gx.expectations.catalog import floating, no_count
from dqx_gx.expectations.metrics import BATCH_SCHEMA, measured
from dqx_gx.kinds import Value, kind_of
from dqx_gx.kinds.kind import REDACTED
from dqx_gx.rules.hand_written import MetricSymbol, Validation
from dqx_gx.rules.rule import CheckRule
from dqx_gx.rules.sql_guard import checked_query
from dqx_gx.spark.checks import CASTS_TO_DOUBLE, first_row
from dqx_gx.spark.columns import Columns, family, type_problem, type_text

FIRST_ROW = "dqx.first_row"
SQL_VALUE = "dqx.sql_value"
CHECK_ASSERTION = "expect_dqx_check_assertion"


class FirstRowValue(TableMetricProvider):
    """dqlib's ``first(c)``: the batch's first row's value of ``column`` (:func:`~dqx_gx.spark.checks.first_row`);
    None for an empty batch, a missing column or one of a type that no double holds (the expectation says why)."""

    metric_name = FIRST_ROW
    value_keys = ("column",)

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> list[object] | None:
        df, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        field = Columns.of(df).find(metric_value_kwargs["column"])
        if field is None or family(field.dataType) not in CASTS_TO_DOUBLE:
            return None
        return first_row(df, field)


def sql_query(expression: str, *, rule: str, batch_names: Iterable[str]) -> str:
    """The query that computes a ``custom_sql`` expression over the batch, as the SQL guard rewrote it
    (docs/semantics.md, 'SQL rules');
    ``ContractValidationError`` when the guard refuses it."""
    return checked_query(
        f"SELECT CAST(({expression}) AS DOUBLE) FROM ${{object}}", rule=rule, batch_names=batch_names, column=None
    )


@dataclass(frozen=True)
class _Read:
    """One analyzer of a simple metric of this batch, and where the expectation finds its value."""

    symbol: MetricSymbol
    measure: Measure
    key: str


class ExpectDqxCheckAssertion(DqxExpectation):
    """An assertion of a DQX check function, as :class:`~dqx_gx.rules.rule.CheckRule` states it."""

    check: str
    formula: list[Any]
    """The asserted expression (:func:`dqx_gx.checks.formula.to_tree`)."""
    symbols: list[dict[str, Any]]
    validation: dict[str, Any]
    queries: dict[str, str] = {}  # noqa: RUF012 - pydantic copies a field's default
    """Each ``custom_sql`` expression → its query as the SQL guard rewrote it."""
    problem: str | None = None
    """Why it cannot be evaluated: it fails with this reason."""

    metric_text: ClassVar[str] = "{rule}"
    success_keys: ClassVar[tuple[str, ...]] = (
        *DqxExpectation.bound_keys,
        "check",
        "formula",
        "symbols",
        "validation",
        "queries",
        "problem",
    )

    @property
    def metric_symbols(self) -> tuple[MetricSymbol, ...]:
        return tuple(MetricSymbol.from_dict(symbol) for symbol in self.symbols)

    def reads(self) -> list[_Read]:
        """Every analyzer of this batch's simple metrics the assertion reads, each under a key of its own."""
        found: dict[tuple[str, str, str, int], _Read] = {}
        for symbol in self.metric_symbols:
            for simple, lag in simple_needs(symbol):
                if lag != 0 or self.problem:
                    continue
                for index, measure in enumerate(measures(simple)):
                    found.setdefault((*identity(simple), index), _Read(simple, measure, f"m{len(found)}"))
        return list(found.values())

    def metrics_read(self) -> dict[str, tuple[str, dict[str, Any]]]:
        return {read.key: self._metric(read.measure) for read in self.reads()}

    def _metric(self, measure: Measure) -> tuple[str, dict[str, Any]]:
        if isinstance(measure, OfKind):
            return measured(kind_of(measure.metric), measure.metric)
        if isinstance(measure, FirstRow):
            return FIRST_ROW, {"column": measure.column}
        return SQL_VALUE, {"query": self.queries.get(measure.expression, "")}

    def _validate(
        self,
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any] | None = None,
        execution_engine: Any = None,
    ) -> dict[str, Any]:
        if self.problem:
            return _result(False, None, {"failure": self.problem})
        today, measured_today = _today(self.reads(), metrics)
        value = assertion_value(self.formula, self.metric_symbols, lambda s: today[identity(s)], given_history())
        details: dict[str, Any] = {"measured": measured_today}
        if isinstance(value, Skipped):
            return _result(False, None, {**details, "skipped": value.reason})
        if isinstance(value, Failed):
            return _result(False, None, {**details, "failure": value.reason})
        verdict = passes(Validation.from_dict(self.validation), value)
        if isinstance(verdict, str):
            return _result(False, value, {**details, "failure": verdict})
        # judged on the value, shown as *** (docs/semantics.md, 'Samples and sensitive columns')
        if (self.meta or {}).get("dqx", {}).get("sensitive"):
            return _result(verdict, REDACTED, {"redacted": True})  # nor stored: its metrics are the column's values
        return _result(verdict, value, details)


def _result(success: bool, observed: Any, details: dict[str, Any]) -> dict[str, Any]:
    """GX's result of an expectation: a SKIPPED assertion (``details.skipped``) does not succeed, so a stored
    suite run by GX alone never passes what it could not check."""
    return {"success": success, "result": {"observed_value": observed, "details": details}}


Measured = tuple[str, str, str]
"""A simple metric of the batch, by its :func:`~dqx_gx.checks.measures.identity`."""


def _today(reads: list[_Read], metrics: dict[str, Any]) -> tuple[dict[Measured, float | Failed], list[dict[str, Any]]]:
    """Each simple metric of this batch from its analyzers' values as dqlib derives it, and those measured whole
    (with their analyzers' values, for the metric database)."""
    analyzers: dict[Measured, list[float | Failed]] = {}
    symbols: dict[Measured, MetricSymbol] = {}
    for read in reads:
        at = identity(read.symbol)
        analyzers.setdefault(at, []).append(_analyzer_value(read, metrics[read.key], metrics[BATCH_SCHEMA]))
        symbols[at] = read.symbol
    today: dict[Measured, float | Failed] = {}
    measured: list[dict[str, Any]] = []
    for at, values in analyzers.items():
        failed = next((v for v in values if isinstance(v, Failed)), None)
        if failed is not None:
            today[at] = failed
            continue
        numbers = [v for v in values if isinstance(v, float)]
        derived = value_of(symbols[at], numbers)
        today[at] = Failed(derived) if isinstance(derived, str) else derived
        if isinstance(derived, float):
            measured.append({"symbol": symbols[at].to_dict(), "values": numbers})
    return today, measured


def _analyzer_value(read: _Read, raw: Any, columns: Columns) -> float | Failed:
    """One analyzer's value as dqlib's analyzer would hold it, or why there is none (the column missing or of a
    type the aggregate refuses, a NULL or NaN value, on which dqlib stops its whole run)."""
    name = read.symbol.name
    measure = read.measure
    if isinstance(measure, SqlValue):
        if "error" in raw:
            return Failed(f"{name}: {raw['error']}")
        return Failed(f"{name}: the query returned NULL") if raw["value"] is None else float(raw["value"])
    column = measure.column if isinstance(measure, FirstRow) else None
    for wanted in measure.metric.columns if isinstance(measure, OfKind) else (column,):
        assert wanted is not None
        field = columns.find(wanted)
        if field is None:
            return Failed(f"{name}: {columns.missing(wanted)}")
        if isinstance(measure, OfKind):
            problem = type_problem(kind_of(measure.metric), measure.metric, field, columns)
            if problem:
                return Failed(f"{name}: {problem}")
        elif family(field.dataType) not in CASTS_TO_DOUBLE:
            return Failed(f"{name} needs a numeric, boolean or text column; {wanted!r} is {type_text(field.dataType)}")
    if isinstance(measure, FirstRow):
        return _first(name, raw)
    if kind_of(measure.metric).value is not Value.NUMBER:
        return Failed(no_count(name)) if raw is None else float(raw)
    value = floating(raw, name)
    if isinstance(value, Unmeasured):
        no_value = not isinstance(raw, list | tuple) or (raw[0] is None and not raw[1])
        return measure.when_null if no_value and measure.when_null is not None else Failed(value.reason)
    return float(value.value)


def _first(name: str, raw: list[Any] | None) -> float | Failed:
    if raw is None:
        return Failed(f"{name} has no value: the batch is empty")
    value, is_nan, is_null = raw
    if is_null:
        return Failed(f"{name} is NULL in the batch's first row (dqlib stops its whole run on a NULL metric)")
    if is_nan:
        return Failed(f"{name} is NaN in the batch's first row")
    return Failed(f"{name}: the first row's value is not a number") if value is None else float(value)


def check_expectation(rule: CheckRule, common: dict[str, Any], batch_names: Sequence[str]) -> ExpectDqxCheckAssertion:
    """The expectation of a hand-written assertion; a ``custom_sql`` query the SQL guard refuses makes it fail
    with the guard's reason."""
    queries: dict[str, str] = {}
    problem = rule.problem
    for expression in rule.sql:
        try:
            queries[expression] = sql_query(
                expression, rule=f"Assertion '{rule.name}' of check '{rule.check}'", batch_names=batch_names
            )
        except ContractValidationError as exc:
            problem = problem or str(exc)
    return ExpectDqxCheckAssertion(
        check=rule.check,
        formula=json.loads(rule.formula),
        symbols=[symbol.to_dict() for symbol in rule.symbols],
        validation=rule.validation.to_dict(),
        queries=queries,
        problem=problem,
        **common,
    )


def reads_values(rule: CheckRule, columns: frozenset[str]) -> bool:
    """Whether the assertion's value is (or reveals) a value of one of ``columns``: a minimum, maximum, mean,
    sum, the first row's value, or what a ``custom_sql`` expression reads (any column)."""
    if not columns:
        return False
    for symbol in rule.symbols:
        for simple, _ in simple_needs(symbol):
            for measure in measures(simple):
                if isinstance(measure, SqlValue):
                    return True
                if isinstance(measure, FirstRow) and measure.column in columns:
                    return True
                if isinstance(measure, OfKind):
                    shows = kind_of(measure.metric).shows_values
                    if shows and set(measure.metric.columns) & columns:
                        return True
    return False


def measured_in(evrs: Iterable[Any]) -> list[tuple[MetricSymbol, list[float]]]:
    """Today's metrics the hand-written assertions of a run measured, each with its analyzers' values."""
    found: list[tuple[MetricSymbol, list[float]]] = []
    for evr in evrs:
        config = evr.expectation_config
        if config is None or config.type != CHECK_ASSERTION:
            continue
        for entry in ((evr.result or {}).get("details") or {}).get("measured") or ():
            found.append((MetricSymbol.from_dict(entry["symbol"]), [float(v) for v in entry["values"]]))
    return found
