"""The GX artefacts of a contract: Spark datasource, dataframe asset, suite, validation definition, checkpoint.

Written with get-or-create semantics and stable ids, so writing the same
contract twice into a file project changes nothing on disk.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

import great_expectations as gx
from great_expectations.checkpoint import UpdateDataDocsAction
from great_expectations.core.batch_definition import BatchDefinition
from great_expectations.data_context import AbstractDataContext, FileDataContext
from great_expectations.data_context.types.base import ProgressBarsConfig
from great_expectations.datasource.fluent import SparkDatasource
from great_expectations.exceptions import DataContextError

from dqx_gx.actions import notify_actions
from dqx_gx.contract.model import Contract
from dqx_gx.errors import warn_contract
from dqx_gx.expectations.base import DqxExpectation, rule_id
from dqx_gx.expectations.guard import DqxGuardAction
from dqx_gx.expectations.suite import SuiteBuild
from dqx_gx.gx_private import (
    InstalledCheckpoint,
    InstalledValidationDefinition,
    add_spark_datasource,
    atomic_writes,
    is_thrown_away,
    just_installed,
    registered_expectation_types,
    stored_record,
    throw_away,
)
from dqx_gx.notify import NotifyOn, Target

DATASOURCE = "dqx_gx_spark"
STORE = "dqx_gx.expectations.store"
GX_STORES = "great_expectations.data_context.store"
BATCH_DEFINITION = "whole_dataframe"
DATA_DOCS_ACTION = "update_data_docs"
Stored = TypeVar("Stored", gx.ExpectationSuite, InstalledValidationDefinition, InstalledCheckpoint)

RESULT_FORMAT: Mapping[str, Any] = MappingProxyType({"result_format": "SUMMARY", "partial_unexpected_count": 0})
"""SUMMARY keeps observed values; no unexpected-value samples, which would cost GX's map
expectations an extra Spark job each. Read-only: GX fills in its defaults in the dict it is given
(``parse_result_format``), so it is given a copy."""


@dataclass(frozen=True)
class Artifacts:
    suite: gx.ExpectationSuite
    checkpoint: InstalledCheckpoint
    stored: bool
    """Whether they are in the context's stores, and so the run's validation result goes there too: not in a
    context only dqx-gx holds (:func:`~dqx_gx.gx_private.is_thrown_away`), unless data docs are built from it."""


def quiet_context(context: AbstractDataContext) -> AbstractDataContext:
    """Switch off GX's progress bars on a context dqx-gx created (not saved to disk)."""
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    return context


def ephemeral_context(*, keep_results: bool = True) -> AbstractDataContext:
    """A fresh in-memory GX context: nothing is written to disk. One that only dqx-gx holds
    (``keep_results=False``) keeps no suite, validation definition, checkpoint or result of a run
    (:func:`~dqx_gx.gx_private.is_thrown_away`): storing them is a serialising (and, for the suite, a reading
    back) of every rule in every run, and of every result, which no one reads there; a
    stream's context would also hold one more result every micro-batch."""
    context = quiet_context(gx.get_context(mode="ephemeral"))
    if not keep_results:
        throw_away(context)
    return context


def install(
    context: AbstractDataContext,
    contract: Contract,
    build: SuiteBuild,
    *,
    data_docs: bool,
    notify: Sequence[Target] = (),
    notify_on: NotifyOn = "rejected",
    rewrite_own_actions: bool = False,
) -> Artifacts:
    """Add (or update in place) everything a checkpoint run of ``contract`` needs.

    GX's ``add_or_update`` methods cascade (checkpoint → validation definition →
    suite) and match expectations pairwise, quadratic in the suite size; this
    writes each object once through the context's stores instead. It builds no docs, so the sites
    keep their configuration, which GX saves with the project when the datasource is added. In a
    context only dqx-gx holds (:func:`~dqx_gx.gx_private.is_thrown_away`) the suite, validation definition
    and checkpoint get the ids a store would give and are not stored, unless data docs are built from them.

    A stored checkpoint keeps every action dqx-gx did not write, unchanged and in its place
    (:func:`merged_actions`); dqx-gx's own actions (the guard, data docs, one per ``notify`` target) replace
    the stored ones of the same name in place, new ones go last. With ``rewrite_own_actions`` (``dqx-gx
    translate``) dqx-gx's stored actions that are not written again go; else they stay.
    """
    registers_on_open(context)
    with atomic_writes(context, sites=False):
        return _install(
            context,
            contract,
            build,
            data_docs=data_docs,
            notify=notify,
            notify_on=notify_on,
            rewrite_own_actions=rewrite_own_actions,
        )


def _install(
    context: AbstractDataContext,
    contract: Contract,
    build: SuiteBuild,
    *,
    data_docs: bool,
    notify: Sequence[Target],
    notify_on: NotifyOn,
    rewrite_own_actions: bool,
) -> Artifacts:
    batch_definition = _batch_definition(context, contract.dataset)
    keep = data_docs or not is_thrown_away(context)  # the docs are built from what the stores hold
    suite = _store_suite(context, build.suite) if keep else _with_new_ids(build.suite)
    validation = InstalledValidationDefinition(name=suite.name, data=batch_definition, suite=suite)
    with just_installed(suite):  # as the store gave it back: writing the validation definition refers to it
        validation = _kept(keep, context.validation_definitions, context.validation_definition_store, validation)
    actions: list[Any] = [
        DqxGuardAction(
            rule_ids={suite.name: [found for e in suite.expectations if (found := rule_id(e.meta))]},
            expectation_types=sorted({e.expectation_type for e in suite.expectations if _is_ours(e.expectation_type)}),
        )
    ]
    if data_docs:
        actions.append(UpdateDataDocsAction(name=DATA_DOCS_ACTION))
    actions += notify_actions(notify, notify_on, contract, build.skipped)
    checkpoint = InstalledCheckpoint(
        name=suite.name, validation_definitions=[validation], actions=actions, result_format=dict(RESULT_FORMAT)
    )
    with just_installed(validation):  # writing the checkpoint asks its validation definition
        if not keep:
            return Artifacts(suite, _with_new_ids(checkpoint), keep)
        return Artifacts(suite, _store_checkpoint(context, checkpoint, rewrite_own_actions), keep)


def registers_on_open(context: AbstractDataContext) -> None:
    """Make a file project import dqx-gx whenever it is opened (:mod:`dqx_gx.expectations.store`), so
    its suites load on any GX platform; a project whose expectations store is not GX's keeps it. It saves
    the project's configuration: never inside a data docs swap (:func:`~dqx_gx.run.docs.dqx_data_docs`)."""
    if not isinstance(context, FileDataContext):
        return
    store = context.config.stores[context.expectations_store_name]
    if store.get("class_name") != "ExpectationsStore" or store.get("module_name", GX_STORES) not in (GX_STORES, STORE):
        warn_contract(
            f"the GX project's expectations store is {store.get('module_name', GX_STORES)}.{store.get('class_name')}: "
            f"a process opening the project must `import dqx_gx` before it reads a suite (see docs/platforms.md)"
        )
        return
    if store.get("module_name") != STORE:
        store["module_name"] = STORE
        context.variables.save()


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


def _store_checkpoint(
    context: AbstractDataContext, checkpoint: InstalledCheckpoint, rewrite_own_actions: bool
) -> InstalledCheckpoint:
    """Add the checkpoint, or overwrite the stored one of the same name in place, keeping its id and, read as
    JSON (:func:`~dqx_gx.gx_private.stored_record`), the actions dqx-gx did not write."""
    store = context.checkpoint_store
    record = stored_record(store, checkpoint.name)
    if record is None:
        store.add(key=store.get_key(name=checkpoint.name, id=None), value=checkpoint)
        return checkpoint
    stored = record.get("actions") or []
    checkpoint.store_actions_as(partial(merged_actions, stored, rewrite_own_actions=rewrite_own_actions))
    return _overwrite(store, checkpoint, record.get("id"))


def written_by_dqx_gx(action: Mapping[str, Any]) -> bool:
    """Whether a stored checkpoint action is one dqx-gx writes: a ``dqx_gx_*`` type, or GX's data docs action
    under the name dqx-gx gives it."""
    kind, name = action.get("type"), action.get("name")
    return str(kind).startswith("dqx_gx_") or (kind == name == DATA_DOCS_ACTION)


def merged_actions(
    stored: list[dict[str, Any]], ours: list[dict[str, Any]], *, rewrite_own_actions: bool
) -> list[dict[str, Any]]:
    """A checkpoint's actions once dqx-gx has written ``ours`` over ``stored``: each stored action dqx-gx did not
    write, as it was and where it was; each of ours in the place of the stored one of the same name, the new ones
    last; dqx-gx's stored actions not among ours stay, unless ``rewrite_own_actions``."""
    new = {action["name"]: action for action in ours}
    merged: list[dict[str, Any]] = []
    for action in stored:
        if not written_by_dqx_gx(action):
            merged.append(action)
        elif action.get("name") in new:
            merged.append(new.pop(action["name"]))
        elif not rewrite_own_actions:
            merged.append(action)
    return merged + list(new.values())


def _kept(keep: bool, factory: Any, store: Any, item: Stored) -> Stored:
    """``item`` as the store now holds it (:func:`_add_or_overwrite`), or, not kept, with new ids."""
    return _add_or_overwrite(factory, store, item) if keep else _with_new_ids(item)


def _add_or_overwrite(factory: Any, store: Any, item: Stored) -> Stored:
    """Add ``item`` (the store gives it its id), or overwrite the stored item of the same name in place,
    keeping its id. Either way ``item`` is what the store now holds: it is returned, not read back."""
    try:
        stored = factory.get(item.name)
    except DataContextError:
        store.add(key=store.get_key(name=item.name, id=None), value=item)
        return item
    return _overwrite(store, item, stored.id)


def _overwrite(store: Any, item: Stored, stored_id: str | None) -> Stored:
    """Overwrite the stored item of the same name in place with ``item``, under the stored id."""
    item.id = stored_id
    store.update(key=store.get_key(name=item.name, id=item.id), value=item)
    return item


def _with_new_ids(item: Stored) -> Stored:
    """``item`` (a suite with its expectations) with the new ids a store gives on adding, not stored."""
    item.id = str(uuid.uuid4())
    for expectation in getattr(item, "expectations", ()):
        expectation.id = str(uuid.uuid4())
    return item
