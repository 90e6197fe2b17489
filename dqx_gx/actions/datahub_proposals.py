"""What DataHub receives from a run: DataHub's GX action builds the proposals, dqx-gx gives them its meaning.

DataHub's plugin reads a GX validation result as any GX user's: one assertion per expectation, whose URN hashes
the expectation's type and arguments (for dqx-gx, its ε-shifted bounds and, in a rule that reads the run's
moment, that moment), ``_NATIVE_`` parameters, SUCCESS or FAILURE. Its builders here make each assertion that
ran, with its dataset, field, batch, observed value and data docs link, and then dqx-gx says what it means:

* the URN hashes the contract (its id, else its name), the rule's name and the dataset, nothing of the run,
  so every run — the command line's or a platform's run of the stored checkpoint — adds to one history;
* the description is the rule's name and its DQX expression, the parameters are the contract's (operator,
  threshold, severity), the properties name the contract and the rule;
* the run event carries dqx-gx's status (a failure with its reason), the rule's severity (P0 high, P1 medium,
  P2 and P3 low), the rows a row-level rule marks and its details (failed-row samples, sensitive values
  already ``***``, missing partitions);
* the rules that could not run are assertions too, each run an ERROR event saying SKIPPED and why;
* the batch verdict is an assertion of the contract (FAILURE when rejected) and a property of the dataset.

Everything is sent by DataHub's REST emitter as DataHub's action sends it (``/aspects?action=ingestProposal``).
Besides the plugin's public builders, this module calls three of its action's own methods (the dataset of a
result, the data docs link, the token); ``tests/platform/test_datahub.py`` runs them against a recording GMS.
"""

from __future__ import annotations

import json
import time
from datetime import UTC
from typing import TYPE_CHECKING, Any

import datahub.emitter.mce_builder as builder
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.config import ClientMode
from datahub.metadata.schema_classes import (
    AssertionInfoClass,
    AssertionResultClass,
    AssertionResultErrorClass,
    AssertionResultErrorTypeClass,
    AssertionResultSeverityClass,
    AssertionResultTypeClass,
    AssertionRunEventClass,
    AssertionRunStatusClass,
    DataPlatformInstanceClass,
)
from datahub.specific.dataset import DatasetPatchBuilder
from datahub_gx_plugin.action_v1 import DataHubValidationAction
from datahub_gx_plugin.common import (
    GE_PLATFORM_NAME,
    build_assertion_info,
    build_assertions_with_results,
    coerce_emit_mode,
    emit_assertion_results,
)

from dqx_gx.actions.outcomes import RuleOutcome, rule_outcomes, verdict
from dqx_gx.rules.details import TABLES, Detail

if TYPE_CHECKING:
    from great_expectations.checkpoint.actions import ActionContext
    from great_expectations.checkpoint.checkpoint import CheckpointResult

    from dqx_gx.actions.datahub import DataHubResults

SEVERITY = {
    "P0": AssertionResultSeverityClass.HIGH,
    "P1": AssertionResultSeverityClass.MEDIUM,
    "P2": AssertionResultSeverityClass.LOW,
    "P3": AssertionResultSeverityClass.LOW,
}
VERDICT_RULE = "no P0 rule fails"
Assertion = dict[str, Any]
"""One assertion as DataHub's plugin emits it: ``assertionUrn``, ``assertionInfo``, ``assertionPlatform``,
``assertionResults`` (its run events)."""


def publish(action: DataHubResults, checkpoint_result: CheckpointResult, action_context: ActionContext | None) -> int:
    """Send the run's assertions, their run events and the dataset's verdict to the GMS; how many assertions.
    An exception when the GMS cannot be reached or refuses."""
    plugin = DataHubValidationAction(
        name=action.name,
        server_url=action.resolved(action.server_url) or "",
        token=action.resolved(action.token),
        platform=action.platform,
        dataset_name=action.dataset_name,
        env=action.env,
        platform_instance=action.platform_instance,
        timeout_sec=action.timeout_sec,
        retry_max_times=action.retry_max_times,
        graceful_exceptions=False,
    )
    emitter = DatahubRestEmitter(
        gms_server=plugin.server_url,
        token=plugin._resolve_token(),
        connect_timeout_sec=plugin.timeout_sec,
        read_timeout_sec=plugin.timeout_sec,
        retry_max_times=plugin.retry_max_times,
        client_mode=ClientMode.INGESTION,
        datahub_component="gx-plugin",
        default_emit_mode=coerce_emit_mode(plugin.emit_mode),
    )
    try:
        return _publish(action, plugin, emitter, checkpoint_result, action_context)
    finally:
        emitter.close()  # its HTTP session's connections


def _publish(
    action: DataHubResults,
    plugin: DataHubValidationAction,
    emitter: DatahubRestEmitter,
    checkpoint_result: CheckpointResult,
    action_context: ActionContext | None,
) -> int:
    docs = plugin._docs_link_from_action_context(action_context)
    published = 0
    for suite_result in checkpoint_result.run_results.values():
        (dataset,) = plugin._datasets_from_validation_result(suite_result)  # platform and dataset_name are set
        run = _Run(action, suite_result, dataset, checkpoint_result.run_id)
        built = build_assertions_with_results(
            suite_result,
            suite_result.suite_name,
            checkpoint_result.run_id,
            [dataset],
            docs_link=docs,
            context_properties={"checkpoint_name": str(checkpoint_result.name)},
        )
        outcomes = rule_outcomes(suite_result)
        if len(built) != len(outcomes):
            raise ValueError(f"DataHub's action built {len(built)} assertions for {len(outcomes)} rules")
        assertions = [
            *(run.ran(outcome, assertion) for outcome, assertion in zip(outcomes, built, strict=True)),
            *(run.skipped(entry) for entry in action.skipped),
        ]
        outcome = verdict(outcomes, len(action.skipped))
        assertions.append(run.verdict(outcome, outcomes))
        emit_assertion_results(emitter, assertions)
        patch = DatasetPatchBuilder(run.dataset_urn)
        patch.add_custom_property(verdict_property(action.contract), outcome)
        for proposal in patch.build():
            emitter.emit_mcp(proposal)
        published += len(assertions)
    return published


def verdict_property(contract: str) -> str:
    """The dataset property that holds a contract's last verdict (a JSON-patch path holds no ``/`` or ``~``)."""
    return f"dqx-gx verdict ({contract})".replace("/", "_").replace("~", "_")


class _Run:
    """One suite result's assertions, on one dataset."""

    def __init__(self, action: DataHubResults, suite_result: Any, dataset: dict[str, Any], run_id: Any) -> None:
        self.action = action
        self.suite = str(suite_result.suite_name)
        self.dataset = dataset
        self.dataset_urn: str = dataset["dataset_urn"]
        self.run_name = run_id.run_time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.at = int(time.time() * 1000)

    def urn(self, **what: str) -> str:
        """The assertion's URN: the contract (its id, else its name), ``what`` and the dataset, nothing else."""
        action = self.action
        key = {"tool": "dqx-gx", "contract": action.contract_id or action.contract, **what, "dataset": self.dataset_urn}
        urn: str = builder.make_assertion_urn(builder.datahub_guid(key))
        return urn

    def ran(self, outcome: RuleOutcome, assertion: Assertion) -> Assertion:
        """An assertion DataHub's plugin built for a rule that ran, with the rule's meaning."""
        urn = self.urn(rule=outcome.rule)
        expression = outcome.dqx.get("expression")
        info: AssertionInfoClass = assertion["assertionInfo"]
        info.description = f"{outcome.rule}: {expression}" if expression else outcome.rule
        kept = {k: v for k, v in (info.customProperties or {}).items() if k != "expectation_id"}  # a store's id
        info.customProperties = {**kept, **self._properties(outcome.rule, outcome.severity, outcome.dqx)}
        if info.customAssertion is not None:
            info.customAssertion.logic = expression
            info.customAssertion.nativeParameters = _parameters(outcome.rule, outcome.severity, outcome.dqx)
        (event,) = assertion["assertionResults"]
        result: AssertionResultClass = event.result
        failed = outcome.status == "FAILED"
        result.type = AssertionResultTypeClass.FAILURE if failed else AssertionResultTypeClass.SUCCESS
        result.severity = SEVERITY.get(outcome.severity) if failed else None
        details = outcome.result.get("details") or {}
        native = {k: v for k, v in (result.nativeResults or {}).items() if k != "details"}  # said below, by name
        native |= {"status": outcome.status, "severity": outcome.severity}
        if outcome.reason:
            native["reason"] = outcome.reason
        if details.get("rows_marked") is not None:
            result.unexpectedCount = int(details["rows_marked"])
            native["rows_marked"] = str(details["rows_marked"])
        for table in details.get(TABLES) or ():
            detail = Detail.from_dict(table)
            native[detail.title] = json.dumps(
                {"columns": list(detail.columns), "rows": [list(row) for row in detail.rows], "total": detail.total}
            )
        result.nativeResults = native
        event.assertionUrn = urn
        return {**assertion, "assertionUrn": urn}

    def skipped(self, entry: dict[str, str]) -> Assertion:
        """A rule the suite could not run: an assertion whose every run is an ERROR saying SKIPPED and why."""
        rule, reason, severity = entry["rule"], entry.get("reason", ""), entry.get("severity", "P1")
        expression = entry.get("expression")
        column = entry.get("column")
        info = self._info(
            "dqx_gx_skipped",
            f"{rule}: {expression}" if expression else rule,
            self._properties(rule, severity, entry),
            column=column,
        )
        if info.customAssertion is not None:
            info.customAssertion.logic = expression
            info.customAssertion.nativeParameters = _parameters(rule, severity, entry)
        result = AssertionResultClass(
            type=AssertionResultTypeClass.ERROR,
            nativeResults={"status": "SKIPPED", "severity": severity, "reason": reason},
            error=AssertionResultErrorClass(
                type=AssertionResultErrorTypeClass.UNKNOWN_ERROR,
                properties={"status": "SKIPPED", "message": f"skipped: {reason}"},
            ),
        )
        return self._assertion(self.urn(rule=rule), info, result)

    def verdict(self, outcome: str, outcomes: list[RuleOutcome]) -> Assertion:
        """The batch verdict as an assertion of the contract: FAILURE when it rejects the batch."""
        failed = [o for o in outcomes if o.status == "FAILED"]
        properties = {"contract": self.action.contract, "contract_id": self.action.contract_id}
        info = self._info(
            "dqx_gx_verdict",
            f"{self.action.contract}: the batch verdict (rejected when a P0 rule fails, passed with warnings when "
            "another rule fails or one is skipped)",
            {k: v for k, v in properties.items() if v is not None},
        )
        if info.customAssertion is not None:
            info.customAssertion.logic = VERDICT_RULE
            info.customAssertion.nativeParameters = {"contract": self.action.contract}
        rejected = outcome == "rejected"
        result = AssertionResultClass(
            type=AssertionResultTypeClass.FAILURE if rejected else AssertionResultTypeClass.SUCCESS,
            severity=AssertionResultSeverityClass.HIGH if rejected else None,
            nativeResults={
                "verdict": outcome,
                "rules": str(len(outcomes) + len(self.action.skipped)),
                "failed": str(len(failed)),
                "failed_p0": str(sum(o.severity == "P0" for o in failed)),
                "skipped": str(len(self.action.skipped)),
            },
        )
        return self._assertion(self.urn(verdict="batch"), info, result)

    def _info(
        self, native_type: str, description: str, properties: dict[str, str], column: str | None = None
    ) -> AssertionInfoClass:
        """An assertion's info as DataHub's plugin builds one (dataset, field, suite), described."""
        fields = [builder.make_schema_field_urn(self.dataset_urn, column)] if column else None
        info: AssertionInfoClass = build_assertion_info(
            native_type,
            {"column": column} if column else {},
            self.dataset_urn,
            fields,
            self.suite,
            description=description,
            extra_custom_properties=properties,
        )
        return info

    def _assertion(self, urn: str, info: AssertionInfoClass, result: AssertionResultClass) -> Assertion:
        event = AssertionRunEventClass(
            timestampMillis=self.at,
            runId=self.run_name,
            asserteeUrn=self.dataset_urn,
            status=AssertionRunStatusClass.COMPLETE,
            assertionUrn=urn,
            result=result,
            batchSpec=self.dataset["batchSpec"],
        )
        platform = DataPlatformInstanceClass(platform=builder.make_data_platform_urn(GE_PLATFORM_NAME))
        return {"assertionUrn": urn, "assertionInfo": info, "assertionPlatform": platform, "assertionResults": [event]}

    def _properties(self, rule: str, severity: str, dqx: Any) -> dict[str, str]:
        """What an assertion's info says of its rule and contract, beside DataHub's own properties."""
        found = {
            "contract": self.action.contract,
            "contract_id": self.action.contract_id,
            "rule": rule,
            "rule_id": dqx.get("rule_id"),
            "severity": severity,
            "dimension": dqx.get("dimension"),
        }
        return {k: str(v) for k, v in found.items() if v is not None}


def _parameters(rule: str, severity: str, dqx: Any) -> dict[str, str]:
    """The rule's parameters as the contract states them: its expression, operator and threshold (never GX's
    ε-shifted bounds), severity and metric."""
    found = {
        "rule": rule,
        "expression": dqx.get("expression"),
        "severity": severity,
        "metric": dqx.get("metric"),
        "operator": dqx.get("operator"),
        "threshold": json.dumps(dqx["threshold"]) if dqx.get("threshold") is not None else None,
    }
    return {k: str(v) for k, v in found.items() if v is not None}
