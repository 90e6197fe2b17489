"""The GX artefacts of a contract: Spark datasource, dataframe asset, suite, validation definition, checkpoint.

Written with get-or-create semantics and stable ids, so writing the same
contract twice into a file project changes nothing on disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import great_expectations as gx
from great_expectations.checkpoint import UpdateDataDocsAction
from great_expectations.core.batch_definition import BatchDefinition
from great_expectations.data_context import AbstractDataContext
from great_expectations.data_context.types.base import ProgressBarsConfig
from great_expectations.datasource.fluent import SparkDatasource
from great_expectations.exceptions import DataContextError

from dqx_gx.contract.model import Contract
from dqx_gx.expectations.base import DqxExpectation
from dqx_gx.expectations.guard import DqxGuardAction
from dqx_gx.expectations.suite import SuiteBuild, rule_id
from dqx_gx.gx_private import add_spark_datasource, atomic_writes, registered_expectation_types

DATASOURCE = "dqx_gx_spark"
BATCH_DEFINITION = "whole_dataframe"
Stored = TypeVar("Stored", gx.ExpectationSuite, gx.ValidationDefinition, gx.Checkpoint)

RESULT_FORMAT: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": 0}
"""SUMMARY keeps observed values; no unexpected-value samples, which would cost GX's map
expectations an extra Spark job each."""


@dataclass(frozen=True)
class Artifacts:
    suite: gx.ExpectationSuite
    checkpoint: gx.Checkpoint


def quiet_context(context: AbstractDataContext) -> AbstractDataContext:
    """Switch off GX's progress bars on a context dqx-gx created (not saved to disk)."""
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    return context


def ephemeral_context() -> AbstractDataContext:
    """A fresh in-memory GX context: nothing is written to disk."""
    return quiet_context(gx.get_context(mode="ephemeral"))


def install(context: AbstractDataContext, contract: Contract, build: SuiteBuild, *, data_docs: bool) -> Artifacts:
    """Add (or update in place) everything a checkpoint run of ``contract`` needs.

    GX's ``add_or_update`` methods cascade (checkpoint → validation definition →
    suite) and match expectations pairwise, quadratic in the suite size; this
    writes each object once through the context's stores instead. It builds no docs, so the sites
    keep their configuration, which GX saves with the project when the datasource is added.
    """
    with atomic_writes(context, sites=False):
        return _install(context, contract, build, data_docs=data_docs)


def _install(context: AbstractDataContext, contract: Contract, build: SuiteBuild, *, data_docs: bool) -> Artifacts:
    batch_definition = _batch_definition(context, contract.dataset)
    suite = _store_suite(context, build.suite)
    validation = _store_validation(context, suite, batch_definition)
    actions: list[Any] = [
        DqxGuardAction(
            rule_ids={suite.name: [found for e in suite.expectations if (found := rule_id(e.meta))]},
            expectation_types=sorted({e.expectation_type for e in suite.expectations if _is_ours(e.expectation_type)}),
        )
    ]
    if data_docs:
        actions.append(UpdateDataDocsAction(name="update_data_docs"))
    checkpoint = gx.Checkpoint(
        name=suite.name, validation_definitions=[validation], actions=actions, result_format=RESULT_FORMAT
    )
    return Artifacts(suite, _store_checkpoint(context, checkpoint))


def _batch_definition(context: AbstractDataContext, asset_name: str) -> BatchDefinition[Any]:
    found = context.data_sources.all().get(DATASOURCE)
    if found is None:
        found = add_spark_datasource(context, DATASOURCE)
    if not isinstance(found, SparkDatasource):
        raise TypeError(f"the GX datasource {DATASOURCE!r} exists but is not a Spark datasource ({found.type})")
    datasource: SparkDatasource = found
    asset = next((a for a in datasource.assets if a.name == asset_name), None)
    if asset is None:
        asset = datasource.add_dataframe_asset(name=asset_name)
    existing = next((b for b in asset.batch_definitions if b.name == BATCH_DEFINITION), None)
    batch_definition: BatchDefinition[Any] = existing or asset.add_batch_definition_whole_dataframe(BATCH_DEFINITION)
    return batch_definition


def _is_ours(expectation_type: str) -> bool:
    """A dqx-gx expectation type (the guard makes loading fail when one is not registered)."""
    registered = registered_expectation_types().get(expectation_type)
    return registered is not None and issubclass(registered, DqxExpectation)


def _store_suite(context: AbstractDataContext, suite: gx.ExpectationSuite) -> gx.ExpectationSuite:
    """Add or update the suite, keeping the ids of expectations already stored for the same rules."""
    try:
        stored = context.suites.get(suite.name)
    except DataContextError:
        added: gx.ExpectationSuite = context.suites.add(suite)  # GX re-reads it: as stored, with its new ids
        return added
    known = {rule_id(e.meta): e.id for e in stored.expectations}
    for expectation in suite.expectations:
        expectation.id = known.get(rule_id(expectation.meta))
    _overwrite(context.expectations_store, suite, stored.id)
    return context.suites.get(suite.name)  # as stored, with the ids the store gave new expectations


def _store_validation(
    context: AbstractDataContext, suite: gx.ExpectationSuite, batch_definition: BatchDefinition[Any]
) -> gx.ValidationDefinition:
    validation = gx.ValidationDefinition(name=suite.name, data=batch_definition, suite=suite)
    return _add_or_overwrite(context.validation_definitions, context.validation_definition_store, validation)


def _store_checkpoint(context: AbstractDataContext, checkpoint: gx.Checkpoint) -> gx.Checkpoint:
    return _add_or_overwrite(context.checkpoints, context.checkpoint_store, checkpoint)


def _add_or_overwrite(factory: Any, store: Any, item: Stored) -> Stored:
    """Add ``item``, or overwrite the stored item of the same name in place, keeping its id."""
    try:
        stored = factory.get(item.name)
    except DataContextError:
        added: Stored = factory.add(item)
        return added
    return _overwrite(store, item, stored.id)


def _overwrite(store: Any, item: Stored, stored_id: str | None) -> Stored:
    """Overwrite the stored item of the same name in place with ``item``, under the stored id."""
    item.id = stored_id
    store.update(key=store.get_key(name=item.name, id=item.id), value=item)
    return item
