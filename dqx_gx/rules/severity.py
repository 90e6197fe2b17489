"""Severity: a contract's labels to DQX levels (P0–P3)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from dqx_gx.errors import warn_contract

if TYPE_CHECKING:  # dqlib's alias; dqlib's import is slow, and loading a contract does without it
    from dqx.common import SeverityLevel

DEFAULT_SEVERITY: SeverityLevel = "P1"

Outcome = Literal["passed", "passed_with_warnings", "rejected"]
"""The accept / warn / reject of an ingestion gate."""

_LABELS: dict[str, SeverityLevel] = {
    "p0": "P0",
    "p1": "P1",
    "p2": "P2",
    "p3": "P3",
    "error": "P0",
    "critical": "P0",
    "fatal": "P0",
    "warning": "P1",
    "warn": "P1",
    "info": "P2",
    "low": "P3",
    "minor": "P3",
}


def parse_severity(raw: Any, where: str) -> SeverityLevel:
    """DQX level for a contract's severity label (docs/semantics.md, 'Severities').

    Omitted means P1; an unknown label also gives P1, with a ContractWarning
    naming ``where`` (e.g. ``Quality rule 'x'``) so the fallback is never silent.
    """
    if raw is None:
        return DEFAULT_SEVERITY
    level = _LABELS.get(str(raw).strip().lower()) if isinstance(raw, str) else None
    if level is None:
        warn_contract(
            f"{where}: unknown severity {raw!r}; using P1 "
            "(known: error/critical/fatal → P0, warning/warn → P1, info → P2, low/minor → P3, or P0–P3)",
            stacklevel=2,
        )
        return DEFAULT_SEVERITY
    return level


def gate_outcome(failed: Iterable[str], skipped: int) -> Outcome:
    """The gate's verdict from the severities of the failed rules and the number skipped:
    ``rejected`` when a P0 rule failed, ``passed_with_warnings`` when any other failed or a rule
    was skipped, ``passed`` otherwise."""
    severities = set(failed)
    if "P0" in severities:
        return "rejected"
    return "passed_with_warnings" if severities or skipped else "passed"
