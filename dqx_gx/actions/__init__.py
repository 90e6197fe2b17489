"""The checkpoint actions dqx-gx stores beside its guard: alerts, and every run's results for DataHub.

Importing this package registers each action type with GX; :mod:`dqx_gx.expectations` imports it, so the
store module a dqx-gx project names (``dqx_gx.expectations.store``) registers them wherever the project is
opened. None of them imports more than GX until it runs (DataHub's plugin is imported when results are
published).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from great_expectations.checkpoint.actions import ValidationAction

from dqx_gx.actions import alerts, datahub
from dqx_gx.contract.model import Contract
from dqx_gx.notify import DATAHUB, NotifyOn, Target
from dqx_gx.rules.rule import Rule

__all__ = ["alerts", "datahub", "notify_actions"]


def notify_actions(
    targets: Sequence[Target], notify_on: NotifyOn, contract: Contract, skipped: Mapping[str, str]
) -> list[ValidationAction]:
    """The checkpoint actions of ``--notify`` targets: an alert per alert target (fired by the verdict,
    ``notify_on``), DataHub's results action per DataHub target (every run). ``skipped`` is the rules the
    suite could not run (rule id → reason)."""
    actions: list[ValidationAction] = []
    for target in targets:
        if target.kind == DATAHUB:
            not_run = [_skipped(rule, skipped[rule.id]) for rule in contract.rules if rule.id in skipped]
            actions.append(datahub.datahub_action(target, contract, not_run))
        else:
            actions.append(
                alerts.alert_action(
                    target, notify_on, contract=contract.check_name, dataset=contract.dataset, skipped=len(skipped)
                )
            )
    return actions


def _skipped(rule: Rule, reason: str) -> dict[str, str]:
    """What a platform's run needs to report a rule the suite could not run."""
    found: dict[str, Any] = {
        "rule": rule.name,
        "rule_id": rule.id,
        "severity": rule.severity,
        "expression": rule.expression(),
        "reason": reason,
        "column": rule.column,
        "dimension": rule.dimension,
    }
    return {k: str(v) for k, v in found.items() if v is not None}
