"""What a GX validation result says in dqx-gx's words: each rule's status and reason, and the run's verdict.

The run's AssertionResults (:mod:`dqx_gx.run.results`) and the checkpoint's actions read a result the same
way, so an alert or DataHub gets the statuses ``dqx-gx validate`` reports, also when a platform runs the
stored checkpoint without dqx-gx's runner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from dqx_gx.errors import first_line
from dqx_gx.rules.severity import DEFAULT_SEVERITY, Outcome, gate_outcome

Status = Literal["PASSED", "FAILED", "SKIPPED"]


@dataclass(frozen=True)
class RuleOutcome:
    """One expectation's result as the rule it was built for (``meta.dqx``)."""

    rule: str
    severity: str
    status: Status
    reason: str | None
    """Why it failed without a comparison (GX could not evaluate it, a column is missing, ...), or was skipped."""
    observed: Any
    dqx: Mapping[str, Any]
    """The expectation's ``meta.dqx``: rule id, expression, contract, dimension, ..."""
    result: Mapping[str, Any]
    """GX's ``result`` of the expectation: observed value, details (rows marked, samples, ...)."""


def rule_status(evr: Any) -> tuple[Status, str | None]:
    """An expectation result's dqx-gx status, and the reason when it failed without a comparison or was
    skipped (a hand-written assertion over a metric of an earlier day the run does not have, docs/semantics.md,
    'Hand-written DQX checks')."""
    raised = _exception_message(evr.exception_info)
    if raised is not None:
        return "FAILED", f"GX could not evaluate the rule: {raised}"
    details = (evr.result or {}).get("details") or {}
    if details.get("skipped"):
        return "SKIPPED", str(details["skipped"])
    failure = details.get("failure")
    if failure:
        return "FAILED", str(failure)
    return ("PASSED" if evr.success else "FAILED"), None


def rule_outcomes(suite_result: Any) -> list[RuleOutcome]:
    """The outcome of each expectation of a suite's validation result, in the suite's order."""
    found: list[RuleOutcome] = []
    for evr in suite_result.results:
        config = evr.expectation_config
        if config is None:
            continue
        dqx = (config.meta or {}).get("dqx", {})
        status, reason = rule_status(evr)
        result = evr.result or {}
        rule = dqx.get("rule") or config.kwargs.get("rule") or config.type
        severity = dqx.get("severity", DEFAULT_SEVERITY)
        found.append(RuleOutcome(rule, severity, status, reason, result.get("observed_value"), dqx, result))
    return found


def verdict(outcomes: Iterable[RuleOutcome], skipped: int) -> Outcome:
    """The gate's verdict of a run (docs/semantics.md, 'Results out'): from the severities of its failed rules and the
    rules skipped (``skipped`` before the run, and those its results say were)."""
    found = list(outcomes)
    return gate_outcome(
        (o.severity for o in found if o.status == "FAILED"), skipped + sum(o.status == "SKIPPED" for o in found)
    )


def _exception_message(info: Any) -> str | None:
    """The first raised exception's message in one line (:func:`~dqx_gx.errors.first_line`: without the query
    plan of Spark's analysis errors); GX nests them per metric or keeps one flat dict."""
    if not isinstance(info, Mapping):
        return None
    nested = (value for value in info.values() if isinstance(value, Mapping) and value.get("raised_exception"))
    raised = info if info.get("raised_exception") else next(nested, None)
    if raised is None:
        return None
    return first_line(str(raised.get("exception_message") or "")) or "unknown error"
