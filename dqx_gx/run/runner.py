"""Run a contract on a Spark DataFrame through a GX checkpoint and return DQX results."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from dqx.common import AssertionResult, ResultKey
from great_expectations.core.run_identifier import RunIdentifier

from dqx_gx.checks.history import history_given, store_measured
from dqx_gx.checks.reading import batch_name
from dqx_gx.checks.values import history_for
from dqx_gx.contract.model import Contract
from dqx_gx.errors import SchemaValidationError
from dqx_gx.expectations.base import rule_id
from dqx_gx.expectations.checks import measured_in
from dqx_gx.expectations.moment import measured_at
from dqx_gx.expectations.suite import SuiteBuild, build_suite
from dqx_gx.gx_private import (
    KEEPS_CONTEXTS,
    atomic_writes,
    held_for_record,
    just_installed,
    run_actions,
    settled_configurations,
)
from dqx_gx.notify import NOTIFY_ON, NotifyOn, Target, deliveries, parse_target, require_plugins
from dqx_gx.rules.details import DEFAULT_SAMPLES, TABLES, Detail
from dqx_gx.rules.rule import SchemaCheck, TypeRule
from dqx_gx.rules.severity import Outcome, gate_outcome
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.run.artifacts import Artifacts, ephemeral_context, install
from dqx_gx.run.docs import dqx_data_docs, verdict_meta
from dqx_gx.run.results import RuleResult, rule_results
from dqx_gx.run.warm import installed, shared_context
from dqx_gx.spark.columns import Columns, case_rule_read
from dqx_gx.spark.jobs import Jobs, counted_jobs
from dqx_gx.spark.references import References, references_given, with_the_batch
from dqx_gx.spark.samples import failed_row_samples, remember_failing, sampled_in_pass
from dqx_gx.spark.small_batch import in_one_partition
from dqx_gx.spark.types import type_mismatch

if TYPE_CHECKING:
    from dqx.api import DecoratedCheck
    from dqx.orm.repositories import MetricDB
    from great_expectations.checkpoint.checkpoint import CheckpointResult
    from great_expectations.data_context import AbstractDataContext
    from pyspark.sql import DataFrame

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ContractRun:
    """The outcome of one contract on one batch."""

    contract: Contract
    rule_results: tuple[RuleResult, ...]
    checkpoint_result: CheckpointResult
    """GX's own result object; dqx-gx adds only its failed-row samples (``result.details.tables``) and the
    run's verdict and skipped rules (``meta.dqx``)."""
    suite_name: str
    now: datetime
    warnings: tuple[str, ...] = ()
    """What did not happen beside the verdict: each alert or DataHub publication not delivered, named."""

    @property
    def results(self) -> list[AssertionResult]:
        """One DQX AssertionResult per rule, in contract order (skipped rules included)."""
        return [r.assertion for r in self.rule_results]

    @property
    def failed_rules(self) -> frozenset[str]:
        """The ids of the rules that FAILED: the row gate's errors are the marks of the P0 ones (docs/semantics.md,
        'Errors and warnings')."""
        return frozenset(r.rule.id for r in self.rule_results if r.assertion.status == "FAILED")

    def is_critical(self) -> bool:
        """True when a P0 assertion failed (DQX's ``VerificationSuite.is_critical``)."""
        return any(r.severity == "P0" and r.status == "FAILED" for r in self.results)

    @property
    def outcome(self) -> Outcome:
        """The ingestion-gate verdict: ``rejected`` when a P0 rule failed;
        ``passed_with_warnings`` when any other rule failed or a rule was skipped;
        ``passed`` otherwise."""
        failed = [r.severity for r in self.results if r.status == "FAILED"]
        return gate_outcome(failed, sum(r.status == "SKIPPED" for r in self.results))


def run_contract(
    contract: Contract,
    dataframe: DataFrame,
    *,
    now: datetime | date | str | None = None,
    key: ResultKey | None = None,
    context: AbstractDataContext | None = None,
    strict_schema: bool = False,
    data_docs: bool = False,
    allow_sql: bool = False,
    samples: int = DEFAULT_SAMPLES,
    references: References | None = None,
    notify: Sequence[str | Target] = (),
    notify_on: NotifyOn = "rejected",
    checks: Sequence[DecoratedCheck] = (),
    db: MetricDB | None = None,
) -> ContractRun:
    """Validate ``dataframe`` against ``contract`` with a GX checkpoint on a Spark datasource.

    ``now`` is the run's moment, which freshness, completeness and is_not_in_future measure from (default:
    the current time, UTC; naive values are UTC). ``key`` gives the result date and tags
    (default: today's date, no tags). ``context`` is any GX context (default: an
    ephemeral one, which keeps the suite, validation definition, checkpoint and result only for
    ``data_docs``: without, they are reached from the run's ``checkpoint_result``, and the context is this
    thread's for the Spark session (with GX 1.24), where the same contract object run again reuses its translated
    suite and checkpoint; with, it is new each run); they are added to it.
    ``strict_schema`` raises :class:`SchemaValidationError` for a missing column, a
    type mismatch or NULLs in a required column instead of reporting failed assertions.
    ``data_docs`` adds GX's UpdateDataDocsAction.
    ``allow_sql`` runs the contract's ``type: sql`` rules, each only if it is a single
    read-only SELECT over the batch (else ContractValidationError); without it they are
    SKIPPED. ``samples`` is how many failed rows to show per failing row-level rule (0: none);
    they are fetched in one more Spark job only when such a rule failed, with sensitive values
    as ``***``, and recorded in the GX validation result (and its data docs) too. ``references`` gives
    the datasets the contract's foreign keys refer to, by the name the contract uses (``to:
    customers.id`` → ``{"customers": frame}``); a foreign key whose dataset is not given is SKIPPED.
    ``notify`` sends one alert per run (``"slack:URL"``, ``"teams:URL"``, ``"webhook:URL"``,
    ``"email:ADDRESS"``; a target may be ``env:NAME``) when the verdict is ``notify_on``: ``rejected``,
    ``warnings`` (also passed_with_warnings) or ``always``; ``"datahub:GMS_URL"`` (options after it:
    ``,token=env:NAME,platform=P,dataset=NAME,env=ENV,instance=I``) publishes every run's results to DataHub
    (the ``dqx-gx[datahub]`` extra). What is not delivered is a ``NotDelivered`` warning and a line of the
    run's ``warnings``; the verdict is unchanged.
    ``checks`` are hand-written DQX checks (dqlib's ``@check`` functions) run in the same checkpoint
    (:meth:`Contract.with_checks <dqx_gx.contract.model.Contract.with_checks>`): one result list, one verdict.
    ``db`` is a dqlib ``MetricDB`` their metrics of earlier days are read from, and today's are stored in.

    The caller's DataFrame is neither cached nor modified.
    """
    if checks:
        contract = contract.with_checks(checks)
    moment = run_moment(now)
    targets = [t if isinstance(t, Target) else parse_target(t) for t in notify]
    require_plugins(targets)
    if notify_on not in NOTIFY_ON:
        raise ValueError(f"notify_on={notify_on!r}: one of {', '.join(NOTIFY_ON)}")
    key = key or ResultKey(moment.date(), {})
    if strict_schema:
        _require_declared_schema(contract, Columns.of(dataframe))
    references = with_the_batch(contract, dataframe, references)
    if context is None:  # one whose docs are built from its results is the run's own
        kept = KEEPS_CONTEXTS and not data_docs
        context = shared_context(dataframe.sparkSession) if kept else ephemeral_context(keep_results=data_docs)
    run_id = RunIdentifier(run_name=f"{contract.name or contract.dataset} @ {moment:%Y-%m-%dT%H:%M:%SZ}")

    def translated(into: AbstractDataContext) -> tuple[SuiteBuild, Artifacts]:
        build = build_suite(contract, allow_sql=allow_sql, references=references.keys())
        # before the docs swap: GX saves the project's configuration when install adds the datasource
        return build, install(into, contract, build, data_docs=data_docs, notify=targets, notify_on=notify_on)

    options = (allow_sql, frozenset(references), tuple(targets), notify_on)
    # data docs are built from what the context's stores hold: written each run
    build, artifacts = translated(context) if data_docs else installed(context, contract, options, translated)
    said = log.isEnabledFor(logging.INFO)  # counting the jobs waits for Spark's listener: only when said
    with counted_jobs(dataframe.sparkSession) if said else nullcontext(Jobs()) as jobs:
        run = _checked(
            contract,
            dataframe,
            context,
            build,
            artifacts,
            run_id=run_id,
            moment=moment,
            key=key,
            references=references,
            db=db,
            samples=samples,
        )
    if said:
        log.info("%s: %s, %d rules, %s", run_id.run_name, run.outcome, len(run.rule_results), jobs)
    if strict_schema:
        _require_no_nulls(run)
    return run


def _checked(
    contract: Contract,
    dataframe: DataFrame,
    context: AbstractDataContext,
    build: SuiteBuild,
    artifacts: Artifacts,
    *,
    run_id: RunIdentifier,
    moment: datetime,
    key: ResultKey,
    references: References,
    db: MetricDB | None,
    samples: int,
) -> ContractRun:
    """The checkpoint's run of the installed ``artifacts`` on ``dataframe``, completed with dqx-gx's results."""
    # a file project never holds half a suite or result; storing the result and the actions (data docs,
    # alerts) wait until dqx-gx has completed the result
    with (
        atomic_writes(context),
        references_given(references),
        case_rule_read(dataframe.sparkSession),
        measured_at(moment),
        history_given(history_for(contract.rules, db, key)),
        just_installed(artifacts.checkpoint),
        held_for_record(artifacts.checkpoint),
        sampled_in_pass(contract, samples) as in_pass,
        settled_configurations(),
    ):
        batch = in_one_partition(dataframe)  # a small batch's aggregations then run as one Spark job each
        checkpoint_result = artifacts.checkpoint.run(batch_parameters={"dataframe": batch}, run_id=run_id)
    try:
        evrs: list[Any] = [evr for suite in checkpoint_result.run_results.values() for evr in suite.results]
        results = rule_results(contract, evrs, build.skipped, suite=artifacts.suite.name, key=key)
        if db is not None:
            store_measured(db, key, measured_in(evrs))
        failing = {r.rule.id: r.rows_marked for r in results if r.assertion.status == "FAILED" and r.rows_marked}
        remember_failing(contract, failing)
        found = {rule: in_pass[rule] for rule in failing if rule in in_pass}  # a passing rule's are dropped
        rest = {rule: marks for rule, marks in failing.items() if rule not in found}
        if rest and samples > 0:
            found |= failed_row_samples(contract, dataframe, rest, samples, references, now=moment)
        results = tuple(
            replace(r, details=(*r.details, found[r.rule.id])) if r.rule.id in found else r for r in results
        )
        skipped = [{"rule": r.rule.name, "reason": r.reason or ""} for r in results if r.assertion.status == "SKIPPED"]
        _complete(checkpoint_result, contract, skipped, found)
    finally:  # a run whose samples failed still stores GX's result as it stands, with its docs and alerts
        with atomic_writes(context), dqx_data_docs(context), deliveries() as missed:  # docs say what dqx-gx says
            if artifacts.stored:
                for result_key, suite_result in checkpoint_result.run_results.items():
                    context.validation_results_store.set(result_key, suite_result)
            run_actions(artifacts.checkpoint, checkpoint_result)
    return ContractRun(
        contract=contract,
        rule_results=results,
        checkpoint_result=checkpoint_result,
        suite_name=artifacts.suite.name,
        now=moment,
        warnings=tuple(missed),
    )


def run_checks(
    checks: Sequence[DecoratedCheck],
    dataframe: DataFrame,
    *,
    dataset: str | None = None,
    now: datetime | date | str | None = None,
    key: ResultKey | None = None,
    db: MetricDB | None = None,
    context: AbstractDataContext | None = None,
    samples: int = DEFAULT_SAMPLES,
    allow_sql: bool = False,
) -> ContractRun:
    """Run DQX check functions (dqlib's ``@check``: hand-written ones, ``Contract.to_checks()``'s, or both) on
    ``dataframe`` through a GX checkpoint on Spark, as :func:`run_contract` runs a contract's rules: the
    ``results`` are dqlib's ``VerificationSuite.collect_results()`` on the same data (docs/semantics.md, 'Hand-written
    DQX checks'). ``dataset``
    is the batch's name, which the checks' ``datasets=`` name (default: the one dataset they name; ``batch``
    when they name none). ``allow_sql`` runs dqlib's ``custom_sql`` metrics (else their assertions are
    SKIPPED); the other options are :func:`run_contract`'s."""
    return run_contract(
        Contract(name=None, version="", dataset=batch_name(checks, dataset), format="checks"),
        dataframe,
        checks=checks,
        now=now,
        key=key,
        db=db,
        context=context,
        samples=samples,
        allow_sql=allow_sql,
    )


def _complete(
    checkpoint_result: CheckpointResult,
    contract: Contract,
    skipped: list[dict[str, str]],
    found: dict[str, Detail],
) -> None:
    """Put what dqx-gx adds into GX's validation results before they are stored and the checkpoint's
    actions run, so its data docs and alerts show what dqx-gx reports: the samples
    (``result.details.tables``), the verdict and the skipped rules (``meta.dqx``)."""
    for suite_result in checkpoint_result.run_results.values():
        for evr in suite_result.results:
            rule = rule_id(evr.expectation_config.meta) or "" if evr.expectation_config else ""
            if rule in found:
                evr.result.setdefault("details", {}).setdefault(TABLES, []).append(found[rule].to_dict())
        suite_result.meta["dqx"] = verdict_meta(  # type: ignore[typeddict-unknown-key]  # GX keeps extra meta
            suite_result.results, skipped, contract
        )


def _require_declared_schema(contract: Contract, columns: Columns) -> None:
    """Strict mode: every declared column is present with a compatible type (DQX ODCS spec §7.6).
    Every missing or mistyped column is listed, not only the first."""
    problems: list[str] = []
    for rule in contract.rules:
        if not isinstance(rule, TypeRule) or rule.column is None:
            continue
        field = columns.find(rule.column)
        if field is None:
            problems.append(f"Property '{rule.property_name}': {columns.missing(rule.column)}")
        elif rule.data_type is not None:
            problem = type_mismatch(rule.data_type, field.dataType, f"Property '{rule.property_name}'")
            if problem:
                problems.append(problem.replace(" type mismatch: ", " type mismatch:\n", 1))
    _refuse(problems)


def _require_no_nulls(run: ContractRun) -> None:
    """Strict mode: a required column holds no NULLs (every such column is listed)."""
    problems: list[str] = []
    for result in run.rule_results:
        rule = result.rule
        if rule.schema_check is SchemaCheck.REQUIRED and result.assertion.status == "FAILED":
            prop = next((p.name for p in run.contract.properties if p.column == rule.column), rule.column)
            problems.append(
                f"Property '{prop}' is required (required: true)\nbut contains {result.observed} null values"
            )
    _refuse(problems)


def _refuse(problems: list[str]) -> None:
    """One SchemaValidationError for all the problems: DQX's own message when there is one."""
    if len(problems) == 1:
        raise SchemaValidationError(problems[0])
    if problems:
        listed = "\n".join(f"  - {p.replace(chr(10), ' ')}" for p in problems)
        raise SchemaValidationError(f"{len(problems)} schema problems:\n{listed}")
