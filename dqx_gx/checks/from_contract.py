"""A contract's rules as a dqlib check function (``Contract.to_checks()``, seed 001's "composable" contract).

Each rule whose metric dqlib's ``MetricProvider`` states becomes one assertion of one ``@check`` named after
the contract, for its dataset: the metric (the definitions of docs/semantics.md, 'Rules and what they compute' written
with dqlib's metrics: invalid values are ``num_rows() - count_values(c, valid)``, a percentage ``100 * count /
num_rows()``), its severity, and its operator as dqlib's validator with the rule's tolerance (``mustBeLessOrEqualTo`` →
``is_leq``; no operator → ``noop``). So dqlib's ``VerificationSuite`` running them on DuckDB gives the values, statuses
and severities ``run_contract`` gives on Spark. A rule dqlib cannot state is left out, not approximated: it is
named, with why, in :attr:`ContractChecks.left_out` and in a ContractWarning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import sympy as sp
from dqx import specs
from dqx.api import AssertionReady, Context, DecoratedCheck, check
from dqx.provider import MetricProvider

from dqx_gx.errors import warn_contract
from dqx_gx.kinds import kind_of
from dqx_gx.kinds.kind import Unstated
from dqx_gx.rules.metric import Metric, Scalar, Scale
from dqx_gx.rules.rule import CheckRule, MetricRule, Rule, SkippedRule
from dqx_gx.rules.threshold import Operator, Threshold

Stated = Callable[[MetricProvider], sp.Expr]


class ContractChecks(list[DecoratedCheck]):
    """The check functions of a contract (a plain list), and the rules left out with why."""

    def __init__(self, checks: Iterable[DecoratedCheck], left_out: tuple[tuple[Rule, str], ...]) -> None:
        super().__init__(checks)
        self.left_out = left_out
        """Each rule dqlib's ``MetricProvider`` cannot state, with the reason."""


def contract_checks(rules: Iterable[Rule], *, name: str, dataset: str) -> ContractChecks:
    """One ``@check`` (named ``name``, for ``dataset``) holding an assertion per rule dqlib can state."""
    stated: list[tuple[MetricRule, Stated]] = []
    left_out: list[tuple[Rule, str]] = []
    for rule in rules:
        found = _stated(rule)
        if isinstance(found, str):
            warn_contract(f"Rule '{rule.name}' ({rule.id}): to_checks() leaves it out: {found}", stacklevel=3)
            left_out.append((rule, found))
        else:
            assert isinstance(rule, MetricRule)
            stated.append((rule, found))

    def contract(mp: MetricProvider, ctx: Context) -> None:
        for rule, metric in stated:
            ready = ctx.assert_that(metric(mp)).config(name=rule.name, severity=rule.severity)
            _validate(ready, rule.threshold)

    contract.__name__ = contract.__qualname__ = f"contract_{dataset}"
    checks = [check(name=name, datasets=[dataset])(contract)] if stated else []
    return ContractChecks(checks, tuple(left_out))


def _validate(ready: AssertionReady, threshold: Threshold | None) -> None:
    """dqlib's validator of an operator (docs/semantics.md, 'Operators'), with the rule's tolerance."""
    if threshold is None:
        ready.noop()
        return
    tol = threshold.tolerance
    if isinstance(threshold.value, tuple):
        low, high = threshold.value
        between = ready.is_between if threshold.operator is Operator.BETWEEN else ready.is_not_between
        between(low, high, tol)
        return
    compare: dict[Operator, Callable[[float, float], None]] = {
        Operator.MUST_BE: ready.is_eq,
        Operator.MUST_NOT_BE: ready.is_neq,
        Operator.GREATER_THAN: ready.is_gt,
        Operator.GREATER_OR_EQUAL: ready.is_geq,
        Operator.LESS_THAN: ready.is_lt,
        Operator.LESS_OR_EQUAL: ready.is_leq,
    }
    compare[threshold.operator](threshold.value, tol)


def _stated(rule: Rule) -> Stated | str:
    """The rule's metric in dqlib's words, or why dqlib cannot state it."""
    if isinstance(rule, SkippedRule):
        return f"it does not run in dqx-gx either ({rule.reason})"
    if isinstance(rule, CheckRule):
        return "it is a hand-written assertion: give its check function itself"
    if not isinstance(rule, MetricRule):
        kind = {"TypeRule": "a column type", "SqlRule": "a SQL query", "ExpectationRule": "a GX expectation"}
        return f"{kind.get(type(rule).__name__, 'this rule')} is not a metric of dqlib's MetricProvider"
    metric = rule.metric
    if metric.items:
        return "it measures the elements of an array, which dqlib's MetricProvider does not"
    count = _count(metric)
    if isinstance(count, str) or metric.scale is Scale.COUNT:
        return count
    per_row = 1 if metric.scale is Scale.FRACTION else 100
    return lambda mp: per_row * count(mp) / mp.num_rows()


def _count(metric: Metric) -> Stated | str:
    """The metric at the scale of a count, as its kind declares it in dqlib's metrics (tried once without a
    provider, so what dqlib cannot state is known before dqlib runs)."""
    declared = kind_of(metric).dqlib
    if declared is None:
        return f"dqlib's MetricProvider has no metric for {metric.kind.value}"
    try:
        declared(metric, _Metrics(None))
    except Unstated as why:
        return str(why) or f"dqlib's MetricProvider has no metric for {metric.kind.value}"
    return lambda mp: declared(metric, _Metrics(mp))


class _Metrics:
    """dqlib's metrics as a kind's declaration names them (:class:`dqx_gx.kinds.kind.DqlibMetrics`), from one
    provider; without one, placeholders that only check what dqlib takes."""

    def __init__(self, mp: MetricProvider | None) -> None:
        self._mp = mp

    def _call(self, name: str, *args: Any) -> Any:
        return sp.Symbol(name) if self._mp is None else getattr(self._mp, name)(*args)

    def num_rows(self) -> Any:
        return self._call("num_rows")

    def null_count(self, column: str) -> Any:
        return self._call("null_count", column)

    def count_values(self, column: str, values: tuple[Scalar, ...]) -> Any:
        listed = _values(values)
        if isinstance(listed, str):
            raise Unstated(listed)
        return self._call("count_values", column, listed)

    def duplicate_count(self, columns: tuple[str, ...]) -> Any:
        return self._call("duplicate_count", list(columns))

    def unique_count(self, column: str) -> Any:
        return self._call("unique_count", column)

    def minimum(self, column: str) -> Any:
        return self._call("minimum", column)

    def maximum(self, column: str) -> Any:
        return self._call("maximum", column)

    def average(self, column: str) -> Any:
        return self._call("average", column)

    def sum(self, column: str) -> Any:
        return self._call("sum", column)

    def variance(self, column: str) -> Any:
        return self._call("variance", column)

    def negative_count(self, column: str) -> Any:
        return self._call("metric", specs.NegativeCount(column))

    def min_length(self, column: str, column_type: str) -> Any:
        return self._call("min_length", column, _length_type(column_type))

    def max_length(self, column: str, column_type: str) -> Any:
        return self._call("max_length", column, _length_type(column_type))

    def sqrt(self, value: Any) -> Any:
        return sp.sqrt(value)


def _length_type(column_type: str) -> str:
    """dqlib measures the lengths of strings, lists and maps."""
    if column_type not in ("string", "list", "map"):
        raise Unstated
    return column_type


def _values(values: tuple[Scalar, ...]) -> Any:
    """The values as dqlib's ``count_values`` takes them (all integers or all strings, a boolean alone), or why
    it cannot."""
    if len(values) == 1 and isinstance(values[0], bool):
        return values[0]
    if values and all(isinstance(v, str) for v in values):
        return list(values)
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return list(values)
    return f"dqlib's count_values takes all integers or all strings (or one boolean), not {list(values)!r}"
