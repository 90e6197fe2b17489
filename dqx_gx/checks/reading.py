"""DQX check functions read into rules: each assertion one :class:`~dqx_gx.rules.rule.CheckRule` (docs/semantics.md,
'Hand-written DQX checks').

A ``@check`` function is called as dqlib's ``VerificationSuite`` calls it, with dqlib's own
``MetricProvider`` and a ``Context`` that also records which validator each assertion called, with
its arguments: dqlib keeps only a closure, which a suite cannot store. Then the graph is checked,
given the batch's dataset and its repeated metrics merged as dqlib does before a run, so assertion
names, symbols (``x_1``) and expressions are dqlib's. A check function that raises becomes one rule
that fails with the exception; what dqlib refuses (repeated names, another dataset) is refused.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

import sympy as sp
from dqx import functions
from dqx.api import AssertionDraft, AssertionReady, Context, DecoratedCheck
from dqx.common import DQXError, ResultKey, SeverityLevel
from dqx.graph.nodes import AssertionNode, CheckNode
from dqx.orm.repositories import InMemoryMetricDB
from dqx.tunables import Tunable, TunableSymbol
from dqx.validator import SuiteValidator

from dqx_gx.checks.dqlib_private import context_of, graph_of, is_decorated, number_from, symbols_numbered
from dqx_gx.checks.formula import Unstorable, formula_text
from dqx_gx.checks.measures import EXTENDED, SqlValue, base_of, measures, symbol_of
from dqx_gx.errors import ChecksError, first_line, warn_contract
from dqx_gx.rules.hand_written import MetricSymbol, Validation
from dqx_gx.rules.rule import CheckRule, RuleOrigin

_SEVERITIES: tuple[SeverityLevel, ...] = ("P0", "P1", "P2", "P3")


def read_checks(checks: Sequence[DecoratedCheck], *, dataset: str) -> tuple[CheckRule, ...]:
    """Every assertion of ``checks`` run on a batch of ``dataset``, in dqlib's order; :class:`ChecksError` for
    what dqlib's ``VerificationSuite`` would refuse."""
    context = _Recording()
    graph = graph_of(context)
    root = graph.root
    read: list[CheckNode | CheckRule] = []
    for check in checks:
        before = len(root.children)
        symbols = symbols_numbered(context.provider)
        try:
            check(context.provider, context)
        except Exception as exc:  # the check's own code: one failed result, the other checks unaffected
            added = root.children[before:]
            del root.children[before:]
            number_from(context.provider, symbols)  # the next checks' symbols numbered as dqlib numbers them
            read.append(_raised(check, added, exc))
            continue
        read.extend(root.children[before:])
    report = SuiteValidator().validate(graph, context.provider)
    if report.has_errors():
        problems = "; ".join(issue.message for issue in report.errors)
        raise ChecksError(f"the checks cannot run as written (dqlib refuses them too): {problems}")
    try:
        graph.impute_datasets([dataset], context.provider)
    except DQXError as exc:
        raise ChecksError(f"the checks cannot run on this batch, dataset {dataset!r}: {exc}") from None
    context.provider.symbol_deduplication(graph, ResultKey(dt.date.today(), {}))
    rules: list[CheckRule] = []
    for item in read:
        if isinstance(item, CheckRule):
            rules.append(item)
            continue
        rules.extend(_assertion(node, item, context) for node in item.children)
    return tuple(rules)


def check_name(check: Any) -> str:
    """The name a ``@check`` gave a check function (its function's name for anything else)."""
    keywords = getattr(check, "keywords", None)
    if isinstance(keywords, dict) and isinstance(keywords.get("name"), str):
        return str(keywords["name"])
    return str(getattr(check, "__name__", check))


def is_check(value: Any) -> bool:
    """Whether ``value`` is a function made by dqlib's ``@check``."""
    return is_decorated(value)


def _raised(check: Any, added: list[CheckNode], exc: Exception) -> CheckRule:
    """The one failing rule of a check function that raised; its severity is the highest of the assertions it
    stated before raising (P1 when none)."""
    name = added[0].name if added else check_name(check)
    function = getattr(check, "__name__", name)
    stated = [assertion.severity for node in added for assertion in node.children]
    severity: SeverityLevel = min(stated, key=_SEVERITIES.index, default="P1")
    reason = f"the check function {function} raised {type(exc).__name__}: {first_line(exc)}"
    return CheckRule(
        id=f"checks/{name}",
        name=function,
        severity=severity,
        origin=RuleOrigin.CHECK,
        check=name,
        formula=formula_text(sp.Integer(0)),
        symbols=(),
        validation=Validation("noop"),
        text=f"{function}(mp, ctx)",
        readable=f"{function}(mp, ctx)",
        problem=reason,
    )


def _assertion(node: AssertionNode, check: CheckNode, context: _Recording) -> CheckRule:
    """One assertion as a rule, its tunables at their current values (as dqlib's ``collect_results`` shows
    them and evaluates them)."""
    actual = node.actual.subs({ts: ts.value for ts in node.actual.atoms(TunableSymbol)})
    shown = node.validator.name
    for tunable_name, tunable in node.tunables.items():
        shown = shown.replace(tunable_name, str(tunable.value))
    problems: list[str] = []
    validation = context.validations.get(id(node))
    if validation is None:
        problems.append(f"its validator {node.validator.name!r} is not one of dqlib's (is_geq … noop)")
    try:
        formula = formula_text(actual)
    except Unstorable as exc:
        problems.append(str(exc))
        formula = formula_text(sp.Integer(0))
    symbols: list[MetricSymbol] = []
    for symbol in sorted(actual.free_symbols, key=str):
        found = context.provider.get_symbol(symbol)
        try:
            symbols.append(symbol_of(found.metric_spec, symbol=str(symbol), lag=found.lag, dataset=str(found.dataset)))
        except (TypeError, ValueError):
            problems.append(f"{found.name} has parameters a suite cannot store (JSON): {found.metric_spec.parameters}")
    sql: list[str] = []
    for metric in symbols:
        problem, expressions = _measurable(metric)
        problems += [problem] if problem else []
        sql += expressions
        if metric.type == "First" and "order_by" in metric.arguments:
            warn_contract(
                f"Check '{check.name}', assertion '{node.name}': {metric.name}: dqlib takes the batch's first row "
                "whatever order_by says (its DuckDB query has no ORDER BY), and dqx-gx does the same",
                stacklevel=4,
            )
    return CheckRule(
        id=f"checks/{check.name}/{node.name}",
        name=node.name,
        severity=node.severity,
        origin=RuleOrigin.CHECK,
        check=check.name,
        formula=formula,
        symbols=tuple(symbols),
        validation=validation or Validation("noop"),
        text=f"{actual} {shown}",
        readable=f"{_named(actual, symbols)} {shown}",
        tags=frozenset(node.tags),
        experimental=node.experimental,
        required=node.required,
        cost_fp=node.cost_fp,
        cost_fn=node.cost_fn,
        sql=tuple(dict.fromkeys(sql)),
        problem="; ".join(problems) or None,
    )


def _named(actual: sp.Expr, symbols: list[MetricSymbol]) -> str:
    """The expression with each symbol named by its metric (SymPy left from simplifying what it reads)."""
    names = {m.symbol: m.name if m.lag == 0 else f"lag({m.lag})({m.name})" for m in symbols}
    with sp.evaluate(False):
        named = actual.xreplace({s: sp.Symbol(names[str(s)]) for s in actual.free_symbols if str(s) in names})
    return str(named)


def _measurable(metric: MetricSymbol) -> tuple[str | None, list[str]]:
    """Why dqx-gx cannot compute a metric (or None), and the SQL expressions of its ``custom_sql``."""
    simple = base_of(metric) if metric.type in EXTENDED else metric
    if simple.type in EXTENDED:
        return f"{metric.name} is an extended metric of an extended metric, which dqx-gx does not compute", []
    try:
        found = measures(simple)
    except (TypeError, KeyError) as exc:
        return f"{metric.name}: {exc}", []
    return None, [m.expression for m in found if isinstance(m, SqlValue)]


class _Recording(Context):
    """dqlib's Context, whose assertions also record the validator they call (:attr:`validations`)."""

    def __init__(self) -> None:
        super().__init__(suite="dqx-gx", db=InMemoryMetricDB(), execution_id="dqx-gx", data_av_threshold=0.9)
        self.validations: dict[int, Validation] = {}
        """By ``id`` of the assertion node (alive as long as the graph)."""

    def assert_that(self, expr: sp.Expr) -> AssertionDraft:
        return _Draft(expr, self)


class _Draft(AssertionDraft):
    def config(self, **options: Any) -> AssertionReady:
        ready = super().config(**options)
        recording = _Ready.__new__(_Ready)
        recording.__dict__.update(ready.__dict__)
        return recording


def _value(bound: float | Tunable[Any]) -> float:
    return float(bound.value if isinstance(bound, Tunable) else bound)


class _Ready(AssertionReady):
    """dqlib's AssertionReady, each validator recorded with its arguments after dqlib has added the node."""

    def _record(self, kind: str, tol: float, *bounds: float | Tunable[Any]) -> None:
        context = cast(_Recording | None, context_of(self))
        current = context.current_check if context is not None else None
        if context is None or current is None or not current.children:
            return
        node = current.children[-1]
        context.validations[id(node)] = Validation(kind, tuple(_value(b) for b in bounds), float(tol))

    def is_geq(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_geq(other, tol)
        self._record("is_geq", tol, other)

    def is_gt(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_gt(other, tol)
        self._record("is_gt", tol, other)

    def is_leq(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_leq(other, tol)
        self._record("is_leq", tol, other)

    def is_lt(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_lt(other, tol)
        self._record("is_lt", tol, other)

    def is_eq(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_eq(other, tol)
        self._record("is_eq", tol, other)

    def is_neq(self, other: Any, tol: float = functions.EPSILON) -> None:
        super().is_neq(other, tol)
        self._record("is_neq", tol, other)

    def is_between(self, lower: Any, upper: Any, tol: float = functions.EPSILON) -> None:
        super().is_between(lower, upper, tol)
        self._record("is_between", tol, lower, upper)

    def is_not_between(self, lower: float, upper: float, tol: float = functions.EPSILON) -> None:
        super().is_not_between(lower, upper, tol)
        self._record("is_not_between", tol, lower, upper)

    def is_positive(self, tol: float = functions.EPSILON) -> None:
        super().is_positive(tol)
        self._record("is_positive", tol)

    def is_negative(self, tol: float = functions.EPSILON) -> None:
        super().is_negative(tol)
        self._record("is_negative", tol)

    def is_zero(self, tol: float = functions.EPSILON) -> None:
        super().is_zero(tol)
        self._record("is_zero", tol)

    def noop(self) -> None:
        super().noop()
        self._record("noop", functions.EPSILON)


def batch_name(checks: Sequence[DecoratedCheck], dataset: str | None) -> str:
    """The name of the batch the checks run on: ``dataset``, else the one dataset their ``@check(datasets=...)``
    name (``batch`` when they name none). :class:`ChecksError` when there are no checks (dqlib's suite refuses
    none too) or, without ``dataset``, when they name several."""
    if not checks:
        raise ChecksError("no checks given: give at least one @check function (as dqlib's suite needs one)")
    named = sorted({name for c in checks for name in (getattr(c, "keywords", None) or {}).get("datasets") or ()})
    if dataset is not None:
        return dataset
    if len(named) > 1:
        raise ChecksError(f"the checks name datasets {', '.join(map(repr, named))}: say which the batch is (dataset=)")
    return named[0] if named else "batch"
