"""GX validation results → DQX ``AssertionResult`` objects, one per contract rule (docs/semantics.md, 'Results out')."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dqx.common import AssertionResult, AssertionStatus, EvaluationFailure, ResultKey
from returns.result import Failure, Result, Success

from dqx_gx.actions.outcomes import rule_status
from dqx_gx.contract.model import Contract
from dqx_gx.expectations.base import rule_id
from dqx_gx.rules.details import TABLES, Detail
from dqx_gx.rules.rule import CheckRule, ExpectationRule, Rule, TypeRule


@dataclass(frozen=True)
class RuleResult:
    """One rule's outcome: the DQX AssertionResult plus what GX observed."""

    rule: Rule
    assertion: AssertionResult
    observed: Any
    """The observed value as GX reported it (a number, a Spark type name, or None)."""
    reason: str | None = None
    """Why the rule failed without a comparison, or was skipped."""
    expectation_type: str | None = None
    rows_marked: int | None = None
    """Rows a row-level rule marks (docs/semantics.md, 'Invariant'): its count, except for duplicates, whose metric
    counts the extra copies while every row of a repeated key is marked. None for a batch-only rule."""
    details: tuple[Detail, ...] = ()
    """What the result shows beside its number: a completeness rule's first missing partitions (docs/semantics.md,
    'Completeness'), up to N of the rows a failing row-level rule marked (docs/semantics.md, 'Samples and sensitive
    columns': sensitive values as ``***``), …"""


def rule_results(
    contract: Contract,
    evrs: Iterable[Any],
    skipped: Mapping[str, str],
    *,
    suite: str,
    key: ResultKey,
) -> tuple[RuleResult, ...]:
    """Results for every rule of ``contract``, in contract order; skipped rules included."""
    by_rule = {_evr_rule_id(evr): evr for evr in evrs}
    where = _Where(suite, contract.check_name, key)
    return tuple(_outcome(rule, by_rule.get(rule.id), skipped.get(rule.id), where) for rule in contract.rules)


def _outcome(rule: Rule, evr: Any, skip_reason: str | None, where: _Where) -> RuleResult:
    expression = rule.text if isinstance(rule, CheckRule) else rule.expression()  # dqlib's own, for a check
    expectation_type = None
    marked: int | None = None
    shown: tuple[Detail, ...] = ()
    status: AssertionStatus
    reason: str | None
    if skip_reason is not None:
        status, metric, observed, reason = "SKIPPED", _failure(skip_reason, expression), None, skip_reason
    elif evr is None:
        reason = "GX returned no result for this rule (its expectation was not in the suite that ran)"
        status, metric, observed = "FAILED", _failure(reason, expression), None
    else:
        status, metric, observed, reason = _evaluate(rule, evr, expression)
        expectation_type = evr.expectation_config.type
        details = (evr.result or {}).get("details") or {}
        marked = details.get("rows_marked")
        shown = tuple(Detail.from_dict(table) for table in details.get(TABLES) or ())
    assertion = AssertionResult(
        yyyy_mm_dd=where.key.yyyy_mm_dd,
        suite=where.suite,
        check=where.check,
        assertion=rule.name,
        severity=rule.severity,
        status=status,
        metric=metric,
        expression=expression,
        tags=dict(where.key.tags),
        assertion_tags=frozenset(filter(None, (rule.dimension, rule.origin.value))),
    )
    # as dqlib's collect_results() gives it (docs/semantics.md, 'Hand-written DQX checks')
    if isinstance(rule, CheckRule):
        assertion = dataclasses.replace(
            assertion,
            check=rule.check,
            assertion_tags=rule.tags,
            experimental=rule.experimental,
            required=rule.required,
            cost_fp=rule.cost_fp,
            cost_fn=rule.cost_fn,
        )
    return RuleResult(rule, assertion, observed, reason, expectation_type, marked, shown)


@dataclass(frozen=True)
class _Where:
    suite: str
    check: str
    key: ResultKey


def _evr_rule_id(evr: Any) -> str | None:
    config = evr.expectation_config
    return rule_id(config.meta) if config is not None else None


def _evaluate(
    rule: Rule, evr: Any, expression: str
) -> tuple[AssertionStatus, Result[float, list[EvaluationFailure]], Any, str | None]:
    result = evr.result or {}
    observed = result.get("observed_value")
    status, reason = rule_status(evr)
    if reason is not None:
        return status, _failure(reason, expression), observed, reason
    details = result.get("details") or {}
    # a value of a sensitive column: judged, never shown (docs/semantics.md, 'Samples and sensitive columns')
    if details.get("redacted"):
        return status, Success(math.nan), observed, None
    if isinstance(rule, TypeRule):
        return status, Success(0.0), observed, None
    number = _number(observed)
    if number is None and isinstance(rule, ExpectationRule):
        number = _number(result.get("unexpected_count"))
        if number is None and evr.success:
            number = 0.0
    if number is None:
        reason = f"the observed value {observed!r} is not a number"
        return "FAILED", _failure(reason, expression), observed, reason
    return status, Success(number), observed, None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _failure(reason: str, expression: str) -> Result[float, list[EvaluationFailure]]:
    return Failure([EvaluationFailure(error_message=reason, expression=expression, symbols=[])])
