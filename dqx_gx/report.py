"""Reports of a ContractRun: a plain-text table, JSON, and JUnit XML."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import date, datetime
from typing import Any

from returns.result import Success

from dqx_gx.rules.details import Detail
from dqx_gx.run import ContractRun, RuleResult


def summary(run: ContractRun) -> str:
    """One line: counts by status, P0 failures, and the gate outcome."""
    counts = Counter(r.assertion.status for r in run.rule_results)
    critical = sum(1 for r in run.results if r.status == "FAILED" and r.severity == "P0")
    parts = [f"{counts['PASSED']} passed", f"{counts['FAILED']} failed", f"{counts['SKIPPED']} skipped"]
    p0 = f" ({critical} P0)" if critical else ""
    return f"{run.contract.check_name} on {run.contract.dataset}: {', '.join(parts)}{p0} → {run.outcome}"


def to_table(*runs: ContractRun) -> str:
    """One line per assertion (status, severity, rule, observed value, expectation) and a summary, per run."""
    return "\n\n".join(_table(run) for run in runs)


def _table(run: ContractRun) -> str:
    rows = [("STATUS", "SEV", "RULE", "OBSERVED", "EXPECTATION")]
    notes: dict[int, str] = {}
    for result in run.rule_results:
        a = result.assertion
        expression = result.rule.expression()  # a hand-written assertion's metrics by name, not dqlib's x_1
        rows.append((a.status, a.severity, a.assertion, _observed_text(result.observed), expression))
        if result.reason and result.reason not in expression:
            notes[len(rows) - 1] = result.reason
    widths = [min(max(len(row[i]) for row in rows), cap) for i, cap in enumerate((7, 3, 48, 14, 200))]
    indent = " " * (widths[0] + widths[1] + 4)
    lines = []
    for index, row in enumerate(rows):
        cells = [_fit(cell, width) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
        if index in notes:
            lines.append(f"{indent}↳ {notes[index]}")
        if index and (marked := _marked_text(run.rule_results[index - 1])):
            lines.append(f"{indent}↳ {marked}")
        for detail in run.rule_results[index - 1].details if index else ():
            lines.extend(f"{indent}{'    ' if k else '↳ '}{line}" for k, line in enumerate(_detail_lines(detail)))
    lines.append("")
    lines.append(summary(run))
    return "\n".join(lines)


def _detail_lines(detail: Detail) -> list[str]:
    """A detail in words: one line for a list (``missing partitions (first 10 of 31): 2026-02-03, …``), else a
    heading naming the columns and a line per row (``failed rows (id, status):``)."""
    if not detail.rows:
        return []
    if detail.one_line:
        return [f"{detail.heading}: {', '.join(_cell(row[0]) for row in detail.rows)}"]
    return [f"{detail.heading} ({', '.join(detail.columns)}):", *(", ".join(map(_cell, row)) for row in detail.rows)]


def _cell(value: str | None) -> str:
    return "NULL" if value is None else value


def _marked_text(result: RuleResult) -> str | None:
    """``rows marked: 4`` when the rows a rule marks are not its observed number (duplicates count the
    extra copies and mark every row of a repeated key; a share of rows is not a count)."""
    marked = result.rows_marked
    if marked is None or (isinstance(result.observed, int | float) and result.observed == marked):
        return None
    return f"rows marked: {marked}"


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def _observed_text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


def to_json(*runs: ContractRun) -> str:
    """Every AssertionResult field, plus the observed value, the reason and the rule's id.

    One run: its object. Several: ``{"critical": …, "runs": [one object per run]}``.
    """
    if len(runs) == 1:
        document: dict[str, Any] = _run_json(runs[0])
    else:
        document = {"critical": any(run.is_critical() for run in runs), "runs": [_run_json(run) for run in runs]}
    return json.dumps(document, indent=2, ensure_ascii=False, default=_json_default)


def _run_json(run: ContractRun) -> dict[str, Any]:
    return {
        "contract": run.contract.name,
        "contract_id": run.contract.contract_id,
        "dataset": run.contract.dataset,
        "suite": run.suite_name,
        "now": run.now.isoformat(),
        "outcome": run.outcome,
        "critical": run.is_critical(),
        "summary": summary(run),
        "warnings": list(run.warnings),
        "results": [_result_json(r) for r in run.rule_results],
    }


def _result_json(result: RuleResult) -> dict[str, Any]:
    a = result.assertion
    if isinstance(a.metric, Success):
        value = a.metric.unwrap()
        metric: dict[str, Any] = {"value": None if isinstance(value, float) and math.isnan(value) else value}
    else:
        metric = {
            "failures": [{"error_message": f.error_message, "expression": f.expression} for f in a.metric.failure()]
        }
    return {
        "yyyy_mm_dd": a.yyyy_mm_dd,
        "suite": a.suite,
        "check": a.check,
        "assertion": a.assertion,
        "severity": a.severity,
        "status": a.status,
        "metric": metric,
        "expression": a.expression,
        "tags": a.tags,
        "assertion_tags": sorted(a.assertion_tags),
        "experimental": a.experimental,
        "required": a.required,
        "cost_fp": a.cost_fp,
        "cost_fn": a.cost_fn,
        "observed": result.observed,
        "reason": result.reason,
        "rule_id": result.rule.id,
        "expectation_type": result.expectation_type,
        "rows_marked": result.rows_marked,
        "details": [detail.to_dict() for detail in result.details],
    }


def _json_default(value: Any) -> Any:
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value)


def to_junit(*runs: ContractRun) -> str:
    """JUnit XML: one testsuite per run, one testcase per assertion; FAILED → <failure>, SKIPPED → <skipped>."""
    root = ET.Element("testsuites")
    root.extend(_junit_suite(run) for run in runs)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def _junit_suite(run: ContractRun) -> ET.Element:
    counts = Counter(r.assertion.status for r in run.rule_results)
    suite = ET.Element(
        "testsuite",
        name=run.contract.check_name,
        tests=str(len(run.rule_results)),
        failures=str(counts["FAILED"]),
        skipped=str(counts["SKIPPED"]),
        errors="0",
        timestamp=run.now.isoformat(),
    )
    for result in run.rule_results:
        a = result.assertion
        case = ET.SubElement(suite, "testcase", classname=a.suite, name=a.assertion)
        expression = result.rule.expression()
        detail = f"[{a.severity}] {expression} — observed: {_observed_text(result.observed)}"
        if result.reason:
            detail += f"\n{result.reason}"
        if marked := _marked_text(result):
            detail += f"\n{marked}"
        detail += "".join(
            f"\n{'  ' if k else ''}{line}" for shown in result.details for k, line in enumerate(_detail_lines(shown))
        )
        if a.status == "FAILED":
            message = result.reason or f"{expression} (observed {_observed_text(result.observed)})"
            ET.SubElement(case, "failure", message=message, type=a.severity).text = detail
        elif a.status == "SKIPPED":
            ET.SubElement(case, "skipped", message=result.reason or "skipped")
        else:
            ET.SubElement(case, "system-out").text = detail
    return suite
