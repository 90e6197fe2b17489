"""The thesis's Validator API: a validation configuration becomes a contract, a run becomes its result items.

Each (rule, column, level) of the configuration is one dqx-gx rule (``dqx_gx.contract.thesis``), so the
workload runs through the same checkpoint as any contract. Its result has one item per (rule, column):
the metric, and per level GX's own shape, ``{"success", "exception_info"}``. A check that could not be
measured (a column the data lacks, an empty batch, text in a column a numeric rule reads) is
``success: false`` with ``raised_exception: true`` and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from great_expectations.expectations.expectation import ColumnMapExpectation
from great_expectations.expectations.registry import get_expectation_impl

from dqx_gx.contract.model import Contract
from dqx_gx.contract.properties import schema_rules
from dqx_gx.contract.thesis import NUMERIC_TYPES, ThesisCheck, implied_properties, thesis_checks
from dqx_gx.errors import ContractValidationError, shown
from dqx_gx.rules.rule import ExpectationRule, Rule, TypeRule
from dqx_gx.spark.columns import Columns, spark_column

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from dqx_gx.run import ContractRun, RuleResult

MAX_VALUES = 1000
"""Distinct values an allowedValues result lists at most."""
WORKLOAD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")


@dataclass(frozen=True)
class Workload:
    """A validation configuration as checks and the contract that runs them."""

    workload_id: str
    checks: tuple[ThesisCheck, ...]
    contract: Contract
    path: str
    data_format: str | None


def read_configuration(body: Mapping[str, Any]) -> Workload:
    """The workload a ``POST /v1/validation/start`` body asks for; ContractValidationError names the field."""
    workload_id = workload_id_of(body)
    validations = body.get("validations")
    if not isinstance(validations, list) or not validations:
        raise ContractValidationError("validations: give a list of one or more rules")
    checks: list[ThesisCheck] = []
    for index, entry in enumerate(validations):
        checks += thesis_checks(entry, f"validations[{index}]", "ruleType")
    ids = [check.rule_id for check in checks]
    taken = {check.rule_id for check in checks if ids.count(check.rule_id) > 1 and check.column is None}
    if taken:
        raise ContractValidationError(f"validations: the id {sorted(taken)[0]!r} names two rules; give each its own")
    access = body.get("access")
    if not isinstance(access, Mapping) or not isinstance(access.get("path"), str):
        raise ContractValidationError("access.path: give the data's path, relative to the server's data root")
    data_format = access.get("format")
    if data_format is not None and not isinstance(data_format, str):
        raise ContractValidationError(
            f"access.format: must be a format name (parquet, csv, json), got {shown(data_format)}"
        )
    properties = implied_properties(checks)
    rules: list[Rule] = [*schema_rules(properties, "columns"), *(check.rule for check in checks)]
    path = access["path"]
    contract = Contract(
        name=workload_id,
        version="1",
        dataset=path.strip("/").rpartition("/")[2] or workload_id,
        format="thesis",
        contract_id=workload_id,
        properties=properties,
        rules=tuple(rules),
        origin=f"workload {workload_id}",
    )
    return Workload(workload_id, tuple(checks), contract, path, data_format)


def workload_id_of(body: Mapping[str, Any]) -> str:
    """The body's ``workloadId``, which names the workload's results (and its files)."""
    given = body.get("workloadId")
    if not isinstance(given, str) or not WORKLOAD_ID.fullmatch(given):
        raise ContractValidationError(
            f"workloadId: give 1 to 200 letters, digits, '.', '_', ':' or '-' (starting with a letter or digit), "
            f"got {shown(given)}"
        )
    return given


def distinct_values(workload: Workload, frame: DataFrame) -> dict[str, list[Any]]:
    """The sorted distinct non-NULL values of each column an allowedValues rule checks (its metric: GX's
    expectation reports only those outside the set), the first ``MAX_VALUES`` of each; one query per column."""
    columns = Columns.of(frame)
    found: dict[str, list[Any]] = {}
    for column in dict.fromkeys(c.column for c in workload.checks if c.rule_type == "allowedValues" and c.column):
        field = columns.find(column)
        if field is not None:
            value = spark_column(field)
            rows = frame.select(value).where(value.isNotNull()).distinct().orderBy(value).limit(MAX_VALUES).collect()
            found[column] = [row[0] for row in rows]
    return found


def result_items(workload: Workload, run: ContractRun, values: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """One item per (rule, column) of the configuration, in its order: the metric and each level's outcome
    (``values``: :func:`distinct_values`)."""
    by_rule = {result.rule.id: result for result in run.rule_results}
    evrs = {_rule_id(evr): evr for suite in run.checkpoint_result.run_results.values() for evr in suite.results}
    uncast = {
        result.rule.column: result
        for result in run.rule_results
        if isinstance(result.rule, TypeRule) and result.assertion.status == "FAILED"
    }
    items: dict[tuple[str, str | None], dict[str, Any]] = {}
    for check in workload.checks:
        result = by_rule[check.rule.id]
        evr = evrs.get(check.rule.id)
        item = items.setdefault(
            (check.rule_id, check.column),
            {"id": check.rule_id, "column": check.column, "metric": None, "severity": {"fail": None, "warn": None}},
        )
        if isinstance(check.rule, ExpectationRule) and evr is not None:
            metric, level = _gx_level(evr)
            if check.rule_type == "allowedValues" and not level["exception_info"]["raised_exception"]:
                metric = values.get(check.column or "")
        else:
            metric, level = _metric(check, result), _level(result)
            broken = uncast.get(check.column) if check.rule_type in NUMERIC_TYPES else None
            if broken is not None:
                level = _raised(f"{check.column}: {broken.reason or broken.assertion.expression}")
        item["metric"] = metric if item["metric"] is None else item["metric"]
        item["severity"][check.level] = level
    return list(items.values())


def _rule_id(evr: Any) -> str | None:
    config = evr.expectation_config
    found = ((config.meta or {}).get("dqx") or {}).get("rule_id") if config is not None else None
    return found if isinstance(found, str) else None


def _metric(check: ThesisCheck, result: RuleResult) -> Any:
    """The thesis's metric of a declarative rule: what dqx-gx measured, as the thesis states it."""
    observed = result.observed
    if result.assertion.status != "PASSED" and result.reason is not None:
        return None
    if check.rule_type == "complete":  # dqx-gx measures the share of NULLs
        return None if observed is None else 1.0 - observed
    return observed


def _level(result: RuleResult) -> dict[str, Any]:
    status = result.assertion.status
    if status == "PASSED":
        return _outcome(success=True)
    if result.reason is not None:  # not measured: a missing column, an empty batch, a technology not run
        return _raised(result.reason)
    return _outcome(success=False)


def _gx_level(evr: Any) -> tuple[Any, dict[str, Any]]:
    """A check GX's own expectation makes (custom, unique, allowedValues): GX's unexpected count for a
    column-map expectation, else its observed value; GX's own success and exception (its message in one line,
    no traceback)."""
    result = evr.result or {}
    by_rows = issubclass(get_expectation_impl(evr.expectation_config.type), ColumnMapExpectation)
    metric = result.get("unexpected_count") if by_rows else result.get("observed_value")
    info = evr.exception_info or {}
    raised = (
        info
        if info.get("raised_exception")
        else next((v for v in info.values() if isinstance(v, Mapping) and v.get("raised_exception")), None)
    )
    if raised is not None:
        message = str(raised.get("exception_message") or "GX raised an exception").strip().splitlines()
        return None, _raised(message[0] if message else "GX raised an exception")
    return metric, _outcome(success=bool(evr.success))


def _outcome(*, success: bool) -> dict[str, Any]:
    return {
        "success": success,
        "exception_info": {"raised_exception": False, "exception_message": None, "exception_traceback": None},
    }


def _raised(message: str) -> dict[str, Any]:
    return {
        "success": False,
        "exception_info": {"raised_exception": True, "exception_message": message, "exception_traceback": None},
    }
