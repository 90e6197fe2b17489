"""Every place dqx-gx relies on a private or underscore part of GX (1.7 to 1.24), in one module.

GX's public API has no way to do these things; each assumption is pinned by a
test in ``tests/test_gx_private.py`` that fails loudly when a GX upgrade breaks it.
Besides the functions here, dqx-gx overrides GX's documented extension hooks
where it defines them: ``Expectation._validate`` and the ``@renderer`` prescriptive
renderer (``expectations/base.py``), ``MetricProvider._get_evaluation_dependencies``
(``expectations/metrics.py``); the same tests pin their names and signatures.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import math
import operator
import os
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from concurrent import futures
from contextvars import ContextVar
from functools import partial
from types import MethodType
from typing import Any, ClassVar, Self, TypeVar

import great_expectations as gx
from great_expectations.checkpoint.checkpoint import CheckpointResult
from great_expectations.compatibility.pydantic import PrivateAttr
from great_expectations.core import id_dict
from great_expectations.core.freshness_diagnostics import (
    CheckpointFreshnessDiagnostics,
    ValidationDefinitionFreshnessDiagnostics,
)
from great_expectations.core.id_dict import IDDict, IDDictID
from great_expectations.core.metric_function_types import MetricPartialFunctionTypes
from great_expectations.core.serdes import _IdentifierBundle
from great_expectations.data_context import AbstractDataContext
from great_expectations.data_context.data_context.context_factory import project_manager
from great_expectations.data_context.store.tuple_store_backend import TupleFilesystemStoreBackend
from great_expectations.datasource.fluent import SparkDatasource
from great_expectations.execution_engine.execution_engine import ExecutionEngine, MetricComputationConfiguration
from great_expectations.expectations import expectation_configuration
from great_expectations.expectations.expectation import Expectation
from great_expectations.expectations.expectation_configuration import ExpectationConfiguration
from great_expectations.expectations.metrics.map_metric_provider.column_map_condition_auxilliary_methods import (
    _spark_column_map_condition_values,
)
from great_expectations.expectations.metrics.map_metric_provider.column_pair_map_condition_auxilliary_methods import (
    _spark_column_pair_map_condition_values,
)
from great_expectations.expectations.metrics.map_metric_provider.multicolumn_map_condition_auxilliary_methods import (
    _spark_multicolumn_map_condition_values,
)
from great_expectations.expectations.registry import _registered_expectations
from pyspark.sql import Column

from dqx_gx.files import write_atomically
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.threads import kept_thread

T = TypeVar("T")

GX_VERSION = tuple(int(part) for part in gx.__version__.split(".")[:2])
KEEPS_CONTEXTS = GX_VERSION >= (1, 24)
"""Whether an ephemeral context may be kept and given run after run (``run/warm.py``): GX 1.7 then fails the next
context's runs ("<asset> not found", a datasource that "could not be retrieved"); measured on 1.7.1 and 1.24.1 only,
so older versions make a context each run, as before."""


def expectations_equal(first: Expectation, second: Expectation) -> bool:
    """GX's own test for "the same expectation" in a suite (it ignores meta, notes and id), so that two
    equal GX-declared rules can be told apart before ``ExpectationSuite.add_expectation`` merges them."""
    return bool(gx.ExpectationSuite._expectations_are_equalish(first, second))


def registered_expectation_types() -> Mapping[str, type[Expectation]]:
    """The expectation types GX can build in this process (GX drops unknown ones from loaded suites)."""
    return _registered_expectations


def add_spark_datasource(context: AbstractDataContext, name: str) -> SparkDatasource:
    """Add a Spark datasource without ``data_sources.add_spark``, whose connection test starts a
    Spark session: writing a project (``dqx-gx translate``) needs no JVM.

    ``persist=False``: GX would otherwise cache the caller's DataFrame and never release it.
    """
    datasource = SparkDatasource(name=name, persist=False)
    datasource._data_context = context
    added = context._add_fluent_datasource(datasource)
    assert isinstance(added, SparkDatasource)
    return added


_INSTALLED: ContextVar[frozenset[str]] = ContextVar("dqx_gx_installed", default=frozenset())

_THROWN_AWAY: weakref.WeakSet[AbstractDataContext] = weakref.WeakSet()


def throw_away(context: AbstractDataContext) -> None:
    """Mark ``context`` as one only dqx-gx holds, which nothing reads back (:func:`is_thrown_away`)."""
    _THROWN_AWAY.add(context)


def is_thrown_away(context: AbstractDataContext | None) -> bool:
    """Whether ``context`` is one dqx-gx made for itself. A run there stores neither its suite, validation
    definition and checkpoint (they get the ids a store would give, and run as they are) nor its validation
    result, unless it builds data docs; its installed objects are always fresh there, not only inside
    :func:`just_installed`, so GX's serialising and comparing of them (``checkpoint_result.dict()``, ``==``)
    and a second run work as in any context."""
    return context in _THROWN_AWAY


def owner_from_batch_definition(batch_definition: Any) -> AbstractDataContext | None:
    """The context whose datasource holds ``batch_definition``, or None (GX 1.18's
    ``core.owner_resolution.owner_from_batch_definition``; before 1.18 the same chain of attributes)."""
    try:
        context = batch_definition.data_asset.datasource.data_context
    except AttributeError:
        return None
    return context if isinstance(context, AbstractDataContext) else None


def suite_owner(suite: gx.ExpectationSuite) -> AbstractDataContext | None:
    """The context whose store ``suite`` reads and writes: its owner from GX 1.18 on (``suite._owner``, None
    for a suite of no context), before 1.18 the current context, which every suite used."""
    if hasattr(suite, "_owner"):
        owner: AbstractDataContext | None = suite._owner
        return owner
    try:
        current: AbstractDataContext = project_manager._project
    except Exception:  # no current context (GX raises its DataContextRequiredError)
        return None
    return current


def _unstored(validation: gx.ValidationDefinition) -> bool:
    return is_thrown_away(owner_from_batch_definition(validation.data))


@contextlib.contextmanager
def just_installed(*items: InstalledCheckpoint | InstalledValidationDefinition | gx.ExpectationSuite) -> Iterator[None]:
    """Inside the block, ``items`` (a checkpoint with its validation definitions, or a suite as the store
    gave it back) answer GX's freshness checks from their ids: dqx-gx has just written them. Outside it
    they ask GX's full check again, so an object kept from an earlier run is compared with what the store
    holds now, as GX would (in a context only dqx-gx holds, which stores none of them, they are always fresh:
    :func:`is_thrown_away`)."""
    ids = {i.id for item in items for i in (item, *getattr(item, "validation_definitions", ())) if i.id}
    token = _INSTALLED.set(_INSTALLED.get() | ids)
    try:
        yield
    finally:
        _INSTALLED.reset(token)


_HELD: ContextVar[frozenset[int]] = ContextVar("dqx_gx_held_for_record", default=frozenset())
"""The checkpoints and validation definitions (by object identity: GX may give an id during the run) whose
storing and actions wait for the runner."""


@contextlib.contextmanager
def held_for_record(checkpoint: InstalledCheckpoint) -> Iterator[None]:
    """Inside the block ``checkpoint``'s run neither stores its validation results nor runs its actions:
    dqx-gx completes the results first (samples, verdict), stores each once, and :func:`run_actions` runs the
    actions. So a result is serialised once a run, not twice, and the data docs are built once, with both,
    and an alert links to that page. A GX Cloud store is left to store as GX does (its answer names the
    result), and the runner stores the completed result again, as before."""
    held = {id(checkpoint), *(id(v) for v in checkpoint.validation_definitions)}
    token = _HELD.set(_HELD.get() | held)
    try:
        yield
    finally:
        _HELD.reset(token)


def stored_record(store: Any, name: str) -> dict[str, Any] | None:
    """The record ``store`` holds under ``name``, as its JSON: nothing in it is built, so a checkpoint whose
    action types this process has not registered can be read (GX's ``get`` fails on them). None if absent."""
    key = store.get_key(name=name, id=None)
    if not store.has_key(key):
        return None
    value = store._store_backend.get(store.key_to_tuple(key))
    if store.cloud_mode:
        value = store.gx_cloud_response_json_to_object_dict(response_json=value)
    record = value if isinstance(value, dict) else json.loads(value)
    return record if isinstance(record, dict) else None


def run_actions(checkpoint: gx.Checkpoint, result: CheckpointResult) -> None:
    """Run ``checkpoint``'s actions on ``result`` as its own run does: data docs first, each action's
    result handed to the next."""
    checkpoint._run_actions(checkpoint_result=result)


class _StoredByTheRunner:
    """What a held validation definition stores its result in: nothing; the runner stores it, completed."""

    cloud_mode = False  # held only when the context's store is not GX Cloud's

    def store_validation_results(self, **_: Any) -> None:
        return None


def _suite_bundle(suite: gx.ExpectationSuite) -> _IdentifierBundle:
    """How a validation definition refers to its suite when stored. GX's ``identifier_bundle`` first reads
    the suite back from its store and compares it whole with this one (a cost per rule); a suite
    inside :func:`just_installed` is what the store has just given back."""
    if suite.id and (suite.id in _INSTALLED.get() or is_thrown_away(suite_owner(suite))):
        return _IdentifierBundle(name=suite.name, id=suite.id)
    return suite.identifier_bundle()


class InstalledValidationDefinition(gx.ValidationDefinition):
    """A validation definition dqx-gx writes and runs at once.

    Before a run GX makes sure each object equals its stored copy: it reads the suite back and
    compares the two whole, five times per checkpoint run (``Checkpoint.run``,
    ``ValidationDefinition.run``, and each side of the checkpoint's own equality, whose ``dict()``
    asks each validation definition's ``identifier_bundle()``), a cost per rule and run. Inside
    :func:`just_installed` the id the store gave is the answer. A store keeps no class: what it holds
    is GX's plain object.
    """

    class Config:
        json_encoders: ClassVar[dict[type, Callable[..., Any]]] = {
            gx.ExpectationSuite: _suite_bundle
        }  # pydantic merges in GX's

    def is_fresh(self) -> ValidationDefinitionFreshnessDiagnostics:
        if self.id and (self.id in _INSTALLED.get() or _unstored(self)):
            return ValidationDefinitionFreshnessDiagnostics(errors=[])
        return super().is_fresh()

    @property
    def _validation_results_store(self) -> Any:
        store = super()._validation_results_store
        return _StoredByTheRunner() if id(self) in _HELD.get() and not store.cloud_mode else store


_JSON_OPTIONS = frozenset(
    {"include", "exclude", "by_alias", "skip_defaults", "exclude_unset", "exclude_defaults", "exclude_none"}
    | {"encoder", "models_as_dict"}
)
"""What pydantic's ``json`` takes for itself; the rest of its keywords go to ``json.dumps``."""

ActionsMerge = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


class InstalledCheckpoint(gx.Checkpoint):
    """A checkpoint dqx-gx writes and runs at once, with :class:`InstalledValidationDefinition` s.

    It runs its own actions; stored, its actions may be more (:meth:`store_actions_as`): the actions of the
    stored checkpoint that dqx-gx did not write are kept as their JSON, never built, so a checkpoint whose
    action classes this process has not imported is written again without losing or changing them.
    """

    _stored_actions: ActionsMerge | None = PrivateAttr(default=None)

    def store_actions_as(self, merge: ActionsMerge) -> None:
        """Store as actions ``merge`` of this checkpoint's own actions, as JSON (GX's store serialises it
        with :meth:`json`)."""
        self._stored_actions = merge

    def json(self, **options: Any) -> str:
        text = super().json(**options)
        if self._stored_actions is None:
            return text
        record = json.loads(text)
        record["actions"] = self._stored_actions(record.get("actions") or [])
        return json.dumps(record, **{k: v for k, v in options.items() if k not in _JSON_OPTIONS})

    def is_fresh(self) -> CheckpointFreshnessDiagnostics:
        if not (self.id and (self.id in _INSTALLED.get() or any(_unstored(v) for v in self.validation_definitions))):
            return super().is_fresh()
        diagnostics = CheckpointFreshnessDiagnostics(errors=[])
        diagnostics.update_with_children(*(v.is_fresh() for v in self.validation_definitions))
        return diagnostics

    def _run_actions(self, checkpoint_result: CheckpointResult) -> None:
        if id(self) not in _HELD.get():
            super()._run_actions(checkpoint_result)


_BUILD_CONFIGURATION: Callable[[Expectation], ExpectationConfiguration] = Expectation.configuration.fget  # type: ignore[attr-defined]
_BUILD_EXPECTATION = ExpectationConfiguration.to_domain_obj

_SETTLED: ContextVar[dict[Hashable, tuple[Any, tuple[Any, ...], Any]] | None] = ContextVar(
    "dqx_gx_settled_configurations", default=None
)
"""Inside :func:`settled_configurations`: what was last built from an object (by the object's identity and what
was built), with the object and the state it was built from."""


def settled(
    key: Hashable,
    source: object,
    state: tuple[Any, ...],
    build: Callable[[], T],
    unchanged: Callable[[T], bool] = lambda _: True,
) -> T:
    """``build()``, which depends only on ``source`` (in ``state``) and ``key``: inside
    :func:`settled_configurations` kept under ``key`` while ``source`` is alive, ``state`` holds the same
    objects and what was built is still ``unchanged``; outside the block built on every call."""
    kept_for = _SETTLED.get()
    if kept_for is None:
        return build()
    kept = kept_for.get(key)
    if (
        kept is not None
        and kept[0] is source
        and len(kept[1]) == len(state)
        and all(map(operator.is_, kept[1], state))
        and unchanged(kept[2])
    ):
        return kept[2]  # type: ignore[no-any-return]
    built = build()
    kept_for[key] = (source, state, built)
    return built


def _configuration(self: Expectation) -> ExpectationConfiguration:
    """GX's ``Expectation.configuration``, built once per object and state inside :func:`settled_configurations`,
    and built anew once GX has put the suite's parameters into the one handed out (``process_suite_parameters``
    changes a configuration's kwargs in place; one GX builds anew has its raw kwargs)."""
    return settled(
        ("configuration", id(self)),
        self,
        tuple(self.__dict__.values()),
        lambda: _BUILD_CONFIGURATION(self),
        lambda configuration: configuration._raw_kwargs is None,
    )


def _to_domain_obj(self: ExpectationConfiguration) -> Expectation:
    """GX's ``ExpectationConfiguration.to_domain_obj``, built once per object and state inside
    :func:`settled_configurations`."""
    state = (*vars(self).values(), *self.kwargs, *self.kwargs.values())
    return settled(("expectation", id(self)), self, state, lambda: _BUILD_EXPECTATION(self))


_CONVERT = id_dict.convert_to_json_serializable


def _json_ready(data: Any) -> Any:
    """GX's ``convert_to_json_serializable`` as its ``IDDict.to_id`` calls it for a metric's id: inside
    :func:`settled_configurations`, kwargs made only of JSON's own values (``None``, strings, numbers but NaN, lists
    and string-keyed dicts of them) are their own answer, which GX's walk (a dozen type tests per value, NumPy's
    for each ``None``) would rebuild equal."""
    if _SETTLED.get() is not None and _is_json(data):
        return data
    return _CONVERT(data=data)


_ENSURE = expectation_configuration.ensure_json_serializable


def _json_checked(data: Any) -> None:
    """GX's ``ensure_json_serializable`` as an ``ExpectationConfiguration`` checks its ``meta`` when built: inside
    :func:`settled_configurations` a ``meta`` made only of JSON's own values passes without GX's walk."""
    if _SETTLED.get() is None or not _is_json(data):
        _ENSURE(data)


def _is_json(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return not math.isnan(value)  # GX writes NaN as None
    if kind is dict:
        return all(type(key) is str and _is_json(item) for key, item in value.items())
    if kind is list or kind is tuple:
        return all(_is_json(item) for item in value)
    return False


Expectation.configuration = property(_configuration)  # type: ignore[method-assign,assignment]
ExpectationConfiguration.to_domain_obj = _to_domain_obj  # type: ignore[method-assign]
id_dict.convert_to_json_serializable = _json_ready
expectation_configuration.ensure_json_serializable = _json_checked


@contextlib.contextmanager
def settled_configurations() -> Iterator[None]:
    """Inside the block an expectation answers ``configuration`` with the one it built last, and a configuration
    answers ``to_domain_obj`` with the expectation it built last, while none of their fields (nor a configuration's
    kwargs) has been set since; outside it (and for anyone else's code) GX builds them on every call, as before.

    GX builds an expectation's configuration anew (a pydantic dump of every field, ``meta`` made JSON-safe) on
    each read, and its built-in map rules read it once per domain, success and runtime key of each metric they ask
    for; the validator builds each expectation twice from the same configuration (for its metrics, then to judge
    them). A field set anew is seen (its value is a new object), and so is a configuration whose suite parameters
    GX has put in place; a value changed inside a field (a list appended to) would not be, and nothing in a
    checkpoint's run does that. What is kept lives only for the block, which holds one validation of one suite.
    """
    token = _SETTLED.set({})
    try:
        yield
    finally:
        _SETTLED.reset(token)


@dataclasses.dataclass(frozen=True, eq=False)  # a Column has no equality of its own
class OverProjection:
    """A bundle partial whose aggregate reads columns computed below the bundle's ``df.agg``:
    :func:`resolve_metric_bundles` adds them to the domain's records for that ``df.agg`` only (a value two aggregates
    read is then computed once per row, in Spark's generated projection, where an interpreted aggregate would
    compute it for each)."""

    aggregate: Column
    below: tuple[tuple[str, Column], ...]
    """Each column's name and its value, already named so (the same name means the same value, whichever partial
    gives it)."""


_BELOW: ContextVar[Mapping[IDDictID, Mapping[str, Column]] | None] = ContextVar("dqx_gx_below", default=None)
"""Inside a bundle's ``df.agg``: by domain id, the columns :class:`OverProjection` partials read."""


ApartQuery = tuple[list[int], Callable[[], list[Any]]]
"""A query that answers partials set apart: the positions of those it answers, among those it was given,
and what runs it and returns their values in that order."""


def resolve_metric_bundles(
    engine: ExecutionEngine[Any],
    apart: type | tuple[type, ...],
    resolve_apart: Callable[[Any, list[Any]], list[ApartQuery]],
) -> None:
    """Make ``engine`` resolve each bundle of aggregate partials in metric-id order, and hand the partials
    whose aggregate is an ``apart`` instead of a Spark column to ``resolve_apart`` (with the domain's
    DataFrame, once per domain and bundle), which prepares on the caller's thread the queries that answer
    them.

    Order: GX collects a round's partials from a set of ``MetricConfiguration`` objects hashed by
    identity, so the columns of its shared ``df.agg`` come in a new order every run; Spark then
    generates and compiles new code for the same aggregate each time (JVM CPU time that grows with the
    suite). In one order, Spark's code cache serves every run
    after the first. Apart: a bundle's partials are otherwise one ``df.agg``; the queries ``resolve_apart``
    gives run apart from it (dqx-gx's: the key grouping, :mod:`dqx_gx.spark.keys`, and the object
    aggregates' own ``df.agg``), the first beside it on a thread of its own (with the caller's context
    variables), the others after it on the caller's: none needs another, and Spark runs their jobs at once
    where one leaves cores free. All finish before the values, or an error (the bundle's first), come
    back; while another run's query has the thread, they all run after the bundle, on the caller's. Below: an
    :class:`OverProjection` partial's columns are added to its domain's records (``get_domain_records``) for
    that bundle's ``df.agg`` only; a bundle without one is planned as before. Only this engine instance
    changes; GX maps each value back by metric id.
    """
    if "resolve_metric_bundle" in vars(engine):
        return
    resolve = engine.resolve_metric_bundle
    records = engine.get_domain_records

    def projected(bundle: list[MetricComputationConfiguration]) -> Any:
        below: dict[IDDictID, dict[str, Column]] = {}
        plain = []
        for configuration in bundle:
            over: Any = configuration.metric_fn
            if isinstance(over, OverProjection):
                domain = IDDict(configuration.compute_domain_kwargs or {}).to_id()
                below.setdefault(domain, {}).update(over.below)
                plain.append(dataclasses.replace(configuration, metric_fn=over.aggregate))
            else:
                plain.append(configuration)
        if not below:
            return resolve(plain)
        token = _BELOW.set(below)
        try:
            return resolve(plain)
        finally:
            _BELOW.reset(token)

    def with_below(domain_kwargs: Any) -> Any:
        df = records(domain_kwargs=domain_kwargs)
        below = _BELOW.get()
        if below and (columns := below.get(IDDict(domain_kwargs).to_id())):
            return df.select("*", *columns.values())
        return df

    def in_id_order(metric_fn_bundle: Iterable[MetricComputationConfiguration]) -> Any:
        ordered = sorted(metric_fn_bundle, key=lambda c: _sort_key(c.metric_configuration.id))
        domains: dict[Any, list[MetricComputationConfiguration]] = {}
        for configuration in ordered:
            if isinstance(configuration.metric_fn, apart):
                domain = IDDict(configuration.compute_domain_kwargs or {})
                domains.setdefault(domain.to_id(), []).append(configuration)
        queries = []
        for configurations in domains.values():
            df = engine.get_domain_records(domain_kwargs=IDDict(configurations[0].compute_domain_kwargs or {}))
            asked = resolve_apart(df, [c.metric_fn for c in configurations])
            if sorted(i for positions, _ in asked for i in positions) != list(range(len(configurations))):
                raise ValueError(f"resolve_apart must answer each partial set apart once: {asked}")
            queries += [partial(_values_of, [configurations[i] for i in p], run) for p, run in asked]
        if not queries:
            return projected(ordered)
        beside = kept_thread(queries[0])
        try:
            resolved = projected([c for c in ordered if not isinstance(c.metric_fn, apart)])
            for query in queries if beside is None else queries[1:]:
                resolved.update(query())
        finally:
            if beside is not None:
                futures.wait([beside])
        if beside is not None:
            resolved.update(beside.result())
        return resolved

    engine.resolve_metric_bundle = in_id_order  # type: ignore[method-assign]
    engine.get_domain_records = with_below  # type: ignore[method-assign]


def _values_of(configurations: list[MetricComputationConfiguration], run: Callable[[], list[Any]]) -> dict[Any, Any]:
    return {c.metric_configuration.id: value for c, value in zip(configurations, run(), strict=True)}


SAMPLE_QUERIES = (
    _spark_column_map_condition_values,
    _spark_column_pair_map_condition_values,
    _spark_multicolumn_map_condition_values,
)
"""GX's Spark functions for a map expectation's sample of unexpected values (``partial_unexpected_list``)."""


def lighter_metric_resolution(engine: ExecutionEngine[Any]) -> None:
    """Make ``engine`` resolve each level of GX's metric graph without two costs that a run does not need.

    * A map expectation's sample of unexpected values is ``[]``, without a query, when the result format
      asks for none (``partial_unexpected_count: 0``, not ``COMPLETE``; dqx-gx's checkpoints ask for none:
      its own samples honour sensitive columns). GX asks for the sample whatever the count and builds a
      ``limit(0)`` query that returns ``[]``, dozens of py4j calls per rule.
    * The metric partials (GX's ``metric_partial`` functions: map conditions, aggregates; they only build
      Spark expressions, the bundle's query runs them) are called with PySpark's call-site recording off
      (:func:`~dqx_gx.spark.own_expressions.own_expressions`): GX's own conditions for ``engine:
      greatExpectations`` rules otherwise cost dozens of gateway calls per rule, and their recorded lines
      are inside GX.

    Every other metric, and any other result format, goes to GX as before. Only this engine instance changes,
    for as long as GX keeps it (a datasource keeps its engine: plain GX runs on it later get the same answers).
    """
    if "_process_direct_and_bundled_metric_computation_configurations" in vars(engine):
        return
    process = engine._process_direct_and_bundled_metric_computation_configurations

    def lighter(
        metric_fn_direct_configurations: list[MetricComputationConfiguration],
        metric_fn_bundle_configurations: list[MetricComputationConfiguration],
    ) -> dict[Any, Any]:
        empty: list[MetricComputationConfiguration] = []
        partials: list[MetricComputationConfiguration] = []
        direct: list[MetricComputationConfiguration] = []
        for configuration in metric_fn_direct_configurations:
            if _asks_no_rows(configuration):
                empty.append(configuration)
            else:
                (partials if _is_partial(configuration) else direct).append(configuration)
        resolved: dict[Any, Any] = {}
        if partials:
            with own_expressions():
                resolved = process(metric_fn_direct_configurations=partials, metric_fn_bundle_configurations=[])
        resolved.update(
            process(
                metric_fn_direct_configurations=direct, metric_fn_bundle_configurations=metric_fn_bundle_configurations
            )
        )
        resolved.update((c.metric_configuration.id, []) for c in empty)
        return resolved

    engine._process_direct_and_bundled_metric_computation_configurations = lighter  # type: ignore[method-assign]


def _is_partial(configuration: MetricComputationConfiguration) -> bool:
    """A metric partial: its function builds a Spark expression and runs no query."""
    return isinstance(getattr(configuration.metric_fn, "metric_fn_type", None), MetricPartialFunctionTypes)


def _asks_no_rows(configuration: MetricComputationConfiguration) -> bool:
    value_kwargs: dict[str, Any] = configuration.metric_configuration.metric_value_kwargs or {}
    result_format = value_kwargs.get("result_format")
    return (
        any(configuration.metric_fn is query for query in SAMPLE_QUERIES)
        and isinstance(result_format, dict)
        and result_format.get("result_format") != "COMPLETE"
        and result_format.get("partial_unexpected_count") == 0
    )


class IdOnce(IDDict):
    """Metric kwargs whose id is computed once. GX computes a ``MetricConfiguration``'s id from its kwargs'
    ``IDDict.to_id()`` (a JSON dump, each value through ``convert_to_json_serializable``, and an MD5 digest) every
    time one is built: an expectation's metric, each of their dependencies (which share their kwargs), and again
    when its result is judged. The id is kept until the kwargs change."""

    def __init__(self, values: Mapping[str, Any], known: IDDictID | None = None) -> None:
        super().__init__(values)
        self._known = known

    def to_id(self, id_keys: Any = None, id_ignore_keys: Any = None) -> IDDictID:
        if id_keys is not None or id_ignore_keys is not None:
            return super().to_id(id_keys, id_ignore_keys)
        if self._known is None:
            self._known = super().to_id()
        return self._known

    def __deepcopy__(self, memo: dict[int, Any]) -> IdOnce:  # GX copies a domain before each use
        return IdOnce(copy.deepcopy(dict(self), memo), self._known)

    def __setitem__(self, key: str, value: Any) -> None:
        self._known = None
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._known = None
        super().__delitem__(key)

    def __ior__(self, other: Any) -> Self:  # type: ignore[misc]  # | gives a plain dict, |= keeps the class
        self._known = None
        return super().__ior__(other)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._known = None
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._known = None
        return super().setdefault(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self._known = None
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._known = None
        return super().popitem()

    def clear(self) -> None:
        self._known = None
        super().clear()


def table_domain(batch_id: str | None) -> IdOnce:
    """The table domain of ``batch_id`` (``TableMetricProvider.domain_keys``, as GX's ``get_metric_kwargs`` builds
    it for ``table.row_count``), its id computed once per batch; each call gives a copy of its own."""
    kept = _kept_table_domain(batch_id)
    return IdOnce(kept, kept.to_id())


@functools.lru_cache(maxsize=64)
def _kept_table_domain(batch_id: str | None) -> IdOnce:
    return IdOnce({"batch_id": batch_id, "table": None, "row_condition": None, "condition_parser": None})


def _sort_key(metric_id: Any) -> tuple[str, ...]:
    return tuple("" if part is None else str(part) for part in metric_id)


def _atomic_set(self: TupleFilesystemStoreBackend, key: Any, value: Any, **kwargs: Any) -> str:
    """``TupleFilesystemStoreBackend._set``, written whole (a temporary sibling renamed over the target)."""
    if not isinstance(key, tuple):
        key = key.to_tuple()
    path = os.path.join(self.full_base_directory, self._convert_key_to_filepath(key))  # type: ignore[no-untyped-call]
    write_atomically(path, value.encode("utf-8") if isinstance(value, str) else value)
    return path


ATOMIC_BACKEND = "dqx_gx.gx_private.AtomicFilesystemStoreBackend"


class AtomicFilesystemStoreBackend(TupleFilesystemStoreBackend):
    """GX's filesystem store backend, writing every file whole; GX loads it by class and module name."""

    _set = _atomic_set


@contextlib.contextmanager
def atomic_writes(context: AbstractDataContext, *, sites: bool = True) -> Iterator[None]:
    """Inside the block, ``context``'s filesystem stores and (with ``sites``) data docs sites write
    every file whole.

    GX writes files in place, so a run killed midway would leave half a suite, checkpoint,
    result or docs page. Only this context's own stores change, and only for the block:
    GX's classes and every other context in the process are untouched. Blocks may nest.
    The sites are swapped in the context's configuration, which GX writes to the project's
    ``great_expectations.yml`` when it adds a datasource: a block that adds one passes
    ``sites=False``, so the project keeps naming GX's own backend.
    """
    backends = [
        store.store_backend
        for store in context.stores.values()
        if type(store.store_backend) is TupleFilesystemStoreBackend and "_set" not in vars(store.store_backend)
    ]
    site_backends = [
        site["store_backend"]
        for site in (context.config.data_docs_sites or {}).values()  # the live config; variables return copies
        if sites
        and site.get("store_backend", {}).get("class_name") == "TupleFilesystemStoreBackend"
        and "module_name" not in site["store_backend"]
    ]
    for backend in backends:
        backend._set = MethodType(_atomic_set, backend)  # type: ignore[method-assign]
    module, _, class_name = ATOMIC_BACKEND.rpartition(".")
    for site_backend in site_backends:
        site_backend.update(class_name=class_name, module_name=module)
    try:
        yield
    finally:
        for backend in backends:
            del backend._set
        for site_backend in site_backends:
            site_backend.update(class_name="TupleFilesystemStoreBackend")
            del site_backend["module_name"]
