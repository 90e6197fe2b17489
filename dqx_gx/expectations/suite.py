"""Contract → GX ExpectationSuite: one expectation per executable rule.

Each expectation carries the rule's severity (GX's own ``severity`` and
``meta.dqx.severity``) and enough ``meta`` to trace a result back to its rule.
The suite's ``meta.dqx`` lists every rule id and the rules that could not be
translated, so a run that lost an expectation can be told from one that passed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from typing import Any, Literal

import great_expectations as gx
from dqx.common import SeverityLevel
from great_expectations.compatibility.pydantic import ValidationError as PydanticValidationError
from great_expectations.exceptions import ExpectationNotFoundError
from great_expectations.expectations.expectation import Expectation
from great_expectations.expectations.registry import get_expectation_impl

from dqx_gx import gx_private
from dqx_gx.contract.model import Contract
from dqx_gx.errors import warn_contract
from dqx_gx.expectations import catalog
from dqx_gx.expectations.catalog import EXPECTATIONS
from dqx_gx.expectations.checks import check_expectation, reads_values
from dqx_gx.expectations.moment import NOW_EXPRESSION
from dqx_gx.kinds import kind_of
from dqx_gx.rules.opt_in import opted_out
from dqx_gx.rules.rule import CheckRule, ExpectationRule, MetricRule, Rule, SkippedRule, SqlRule, TypeRule
from dqx_gx.rules.sql_guard import checked_query, unfilled_placeholder, unfilled_reason
from dqx_gx.rules.threshold import Threshold

GxSeverity = Literal["critical", "warning", "info"]


def gx_severity(level: SeverityLevel) -> GxSeverity:
    """GX's own severity for a DQX level (docs/semantics.md, 'Severities'): P0 → critical, P1 → warning, P2/P3 →
    info."""
    return {"P0": "critical", "P1": "warning"}.get(level, "info")  # type: ignore[return-value]


@dataclass(frozen=True)
class SuiteBuild:
    """A translated contract: the suite, and the rules that have no expectation (with why)."""

    suite: gx.ExpectationSuite
    skipped: dict[str, str] = field(default_factory=dict)
    """Rule id → reason, for SkippedRules and rules GX cannot express."""


def suite_name(contract: Contract) -> str:
    """The GX suite name of a contract: ``{name}.{dataset}``, or the dataset when unnamed."""
    return f"{contract.name}.{contract.dataset}" if contract.name else contract.dataset


def build_suite(contract: Contract, *, allow_sql: bool = False, references: Collection[str] = ()) -> SuiteBuild:
    """Translate every rule of ``contract``; rules GX cannot express are reported, not dropped.

    ``type: sql`` rules become expectations only with ``allow_sql``; their query
    must then pass :func:`~dqx_gx.rules.sql_guard.checked_query` or the
    whole translation is refused (ContractValidationError naming the rule). A foreign key
    becomes an expectation only when its referenced dataset is among ``references`` (the
    names the run is given data for); else it is SKIPPED with how to give it.
    """
    expectations: list[Expectation] = []
    declared: list[Expectation] = []
    """GX built-ins, which may be equal to each other; ours differ by their ``rule`` field."""
    skipped: dict[str, str] = {}
    for rule in contract.rules:
        if isinstance(rule, SkippedRule):
            skipped[rule.id] = rule.reason
            continue
        reason = opted_out(rule, allow_sql=allow_sql, references=references)
        if reason is not None:
            label = f"Quality rule '{rule.name}'" if isinstance(rule, SqlRule) else f"Rule '{rule.name}' ({rule.id})"
            warn_contract(f"{label}: {reason}; skipping", stacklevel=2)
            skipped[rule.id] = reason
            continue
        built = expectation_for(rule, contract)
        if isinstance(built, str):
            warn_contract(f"Rule '{rule.name}' ({rule.id}): {built}; skipping", stacklevel=2)
            skipped[rule.id] = built
            continue
        # GX's own test for "the same expectation" (it ignores meta), so ours cannot drift from it.
        if isinstance(rule, ExpectationRule) and any(gx_private.expectations_equal(built, other) for other in declared):
            built.description = rule.name  # GX would merge two equal expectations into one
        if isinstance(rule, ExpectationRule):
            declared.append(built)
        expectations.append(built)
    suite = gx.ExpectationSuite(
        name=suite_name(contract),
        expectations=expectations,
        meta={"dqx": _suite_meta(contract, expectations, skipped)},
    )
    return SuiteBuild(suite, skipped)


def expectation_suite(
    contract: Contract, *, allow_sql: bool = False, references: Collection[str] = ()
) -> gx.ExpectationSuite:
    """``contract`` as a GX ExpectationSuite: one expectation per executable rule (``type: sql`` rules
    only with ``allow_sql``, foreign keys only when their referenced dataset is named in ``references``);
    rules that cannot run are listed in the suite's ``meta.dqx.skipped``."""
    return build_suite(contract, allow_sql=allow_sql, references=references).suite


def expectation_for(rule: Rule, contract: Contract) -> Expectation | str:
    """The GX expectation for one rule, or why there is none."""
    common: dict[str, Any] = {
        "severity": gx_severity(rule.severity),
        "meta": {"dqx": _rule_meta(rule, contract)},
    }
    if isinstance(rule, ExpectationRule):
        return _native_expectation(rule, common)
    common["rule"] = rule.name
    if isinstance(rule, CheckRule):
        return check_expectation(rule, common, batch_names=[n for n in (contract.dataset, contract.schema_name) if n])
    if isinstance(rule, SqlRule):
        placeholder = unfilled_placeholder(rule.query, rule.column)
        if placeholder is not None:
            return unfilled_reason(placeholder)
        query = checked_query(
            rule.query,
            rule=f"Quality rule '{rule.name}'",
            batch_names=filter(None, (contract.dataset, contract.schema_name)),
            column=rule.column,
        )
        return catalog.ExpectDqxSqlValue(query=query, **common, **_bounds(rule.threshold))
    if isinstance(rule, TypeRule):
        assert rule.column is not None
        data_type = rule.data_type.to_dict() if rule.data_type else None
        return catalog.ExpectDqxColumnType(column=rule.column, data_type=data_type, **common)
    assert isinstance(rule, MetricRule)
    kind = kind_of(rule.metric)
    kwargs = {**common, **_bounds(rule.threshold), **kind.arguments(rule.metric)}
    if kind.needs_now:
        kwargs["now"] = {"$PARAMETER": NOW_EXPRESSION}
    return EXPECTATIONS[kind.name](**kwargs)


def _bounds(threshold: Threshold | None) -> dict[str, Any]:
    """The expectation fields of a threshold's interval (none: record only; docs/semantics.md, 'Operators')."""
    if threshold is None:
        return {}
    return asdict(threshold.interval)


def _native_expectation(rule: ExpectationRule, common: dict[str, Any]) -> Expectation | str:
    """A GX expectation declared in the contract, built by GX itself."""
    try:
        expectation_class = get_expectation_impl(rule.expectation_type)
    except ExpectationNotFoundError:
        return f"GX has no expectation {rule.expectation_type!r}"
    meta = {**dict(rule.meta), **common["meta"]}
    try:
        return expectation_class(**dict(rule.kwargs), severity=common["severity"], meta=meta)
    except (PydanticValidationError, TypeError, ValueError) as exc:
        problem = str(exc).replace("\n", " ")
        return f"{rule.expectation_type} does not accept {dict(rule.kwargs)!r}: {problem}"


def _rule_meta(rule: Rule, contract: Contract) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "contract": contract.check_name,
        "contract_id": contract.contract_id,
        "rule_id": rule.id,
        "rule": rule.name,
        "severity": rule.severity,
        "dimension": rule.dimension,
        "origin": rule.origin.value,
        "expression": rule.expression(),
    }
    if isinstance(rule, MetricRule):
        meta["metric"] = rule.metric.kind.value
        if kind_of(rule.metric).shows_values and set(rule.metric.columns) & contract.sensitive_columns:
            meta["sensitive"] = True
    if isinstance(rule, CheckRule):
        meta["check"] = rule.check
        if reads_values(rule, contract.sensitive_columns):
            meta["sensitive"] = True
    if isinstance(rule, MetricRule | SqlRule) and rule.threshold is not None:
        value = rule.threshold.value
        meta["operator"] = rule.threshold.operator.value
        meta["threshold"] = list(value) if isinstance(value, tuple) else value
    return {k: v for k, v in meta.items() if v is not None}


def _suite_meta(contract: Contract, expectations: list[Expectation], skipped: dict[str, str]) -> dict[str, Any]:
    return {
        "contract": contract.check_name,
        "contract_id": contract.contract_id,
        "contract_version": contract.version,
        "dataset": contract.dataset,
        "dqx_gx_version": version("dqx-gx"),
        "expectation_types": sorted({e.expectation_type for e in expectations}),
        "rule_ids": [(e.meta or {})["dqx"]["rule_id"] for e in expectations],
        "skipped": [{"rule_id": rule_id, "reason": reason} for rule_id, reason in skipped.items()],
    }
