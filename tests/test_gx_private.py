"""Pins for every assumption dqx_gx.gx_private makes about GX's private API and extension hooks.

Each test fails loudly, naming the assumption, when a GX upgrade breaks it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime as dt
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from concurrent import futures
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from unittest import mock

import great_expectations as gx
import great_expectations.expectations as gxe
import pyspark.errors.utils as pyspark_errors
import pytest
from great_expectations.core.batch_definition import BatchDefinition
from great_expectations.core.id_dict import IDDict
from great_expectations.core.metric_function_types import MetricFunctionTypes, MetricPartialFunctionTypes
from great_expectations.data_context.store.tuple_store_backend import TupleFilesystemStoreBackend
from great_expectations.datasource.fluent import SparkDatasource
from great_expectations.exceptions import MetricResolutionError
from great_expectations.exceptions.resource_freshness import ResourceFreshnessAggregateError
from great_expectations.execution_engine import SparkDFExecutionEngine
from great_expectations.execution_engine.execution_engine import ExecutionEngine, MetricComputationConfiguration
from great_expectations.expectations.expectation import Expectation
from great_expectations.expectations.expectation_configuration import ExpectationConfiguration, parse_result_format
from great_expectations.expectations.metrics.metric_provider import MetricProvider
from great_expectations.expectations.registry import get_metric_kwargs, get_metric_provider, get_renderer_impl
from great_expectations.render import LegacyRendererType
from great_expectations.validator.metric_configuration import MetricConfiguration
from packaging.version import Version
from pyspark.sql import functions as F

from dqx_gx import gx_private, run_contract
from dqx_gx.expectations.base import DqxExpectation
from dqx_gx.expectations.catalog import EXPECTATIONS
from dqx_gx.expectations.metrics import OfKey, OwnAggregate, apart_queries
from dqx_gx.expectations.moment import measured_at
from dqx_gx.expectations.suite import build_suite
from dqx_gx.files import write_atomically
from dqx_gx.gx_private import (
    KEEPS_CONTEXTS,
    SAMPLE_QUERIES,
    AtomicFilesystemStoreBackend,
    IdOnce,
    InstalledCheckpoint,
    InstalledValidationDefinition,
    OverProjection,
    add_spark_datasource,
    atomic_writes,
    expectations_equal,
    held_for_record,
    is_thrown_away,
    just_installed,
    lighter_metric_resolution,
    owner_from_batch_definition,
    registered_expectation_types,
    resolve_metric_bundles,
    run_actions,
    settled_configurations,
    stored_record,
    suite_owner,
    table_domain,
)
from dqx_gx.kinds import MetricKind
from dqx_gx.notify import parse_target
from dqx_gx.run import runner as run_module
from dqx_gx.run.artifacts import RESULT_FORMAT, ephemeral_context, install
from dqx_gx.spark import threads
from dqx_gx.spark_versions import CALL_SITES
from tests.conftest import ROOT, needs
from tests.documents import one_table
from tests.spark_plans import executed_plans

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

MOMENT = dt.datetime(2026, 11, 22, 12, tzinfo=dt.UTC)
"""When the orders example's good batch passes its freshness rule."""


def test_gx_tells_equal_expectations_apart_ignoring_meta() -> None:
    first = gxe.ExpectColumnValuesToNotBeNull(column="a", meta={"rule": 1})
    assert expectations_equal(first, gxe.ExpectColumnValuesToNotBeNull(column="a", meta={"rule": 2}))
    assert not expectations_equal(first, gxe.ExpectColumnValuesToNotBeNull(column="b"))


def test_gx_merges_equal_expectations_in_a_suite_which_is_why_we_compare_first() -> None:
    gx.get_context(mode="ephemeral")  # add_expectation needs an active context
    suite = gx.ExpectationSuite(name="s")
    suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column="a", meta={"rule": 1}))
    suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column="a", meta={"rule": 2}))
    assert len(suite.expectations) == 1


def test_the_expectation_registry_holds_gx_and_dqx_gx_types() -> None:
    registered = registered_expectation_types()
    assert registered["expect_column_values_to_not_be_null"] is gxe.ExpectColumnValuesToNotBeNull
    assert registered["expect_dqx_null_count"] is EXPECTATIONS[MetricKind.NULL_COUNT]


def test_a_spark_datasource_is_added_without_a_spark_session() -> None:
    context = gx.get_context(mode="ephemeral")
    with mock.patch("pyspark.sql.SparkSession.builder") as builder:
        datasource = add_spark_datasource(context, "ds")
    builder.getOrCreate.assert_not_called()
    assert isinstance(datasource, SparkDatasource) and datasource.persist is False
    assert context.data_sources.all()["ds"] is datasource or context.data_sources.get("ds").name == "ds"


def test_the_filesystem_backend_writes_through_set_at_the_path_its_key_names(tmp_path: Path) -> None:
    backend = TupleFilesystemStoreBackend(base_directory=str(tmp_path), root_directory=str(tmp_path))
    assert inspect.signature(TupleFilesystemStoreBackend._set).parameters.keys() >= {"key", "value"}
    assert backend.full_base_directory == str(tmp_path)
    assert backend._convert_key_to_filepath(("suite",)) == "suite"
    AtomicFilesystemStoreBackend._set(backend, ("x",), "{}")
    assert (tmp_path / "x").read_text() == "{}"


def _file_context(root: Path) -> gx.data_context.AbstractDataContext:
    return gx.get_context(mode="file", project_root_dir=str(root))


def test_atomic_writes_change_only_this_contexts_stores_for_the_block(tmp_path: Path) -> None:
    ours, theirs = _file_context(tmp_path / "ours"), _file_context(tmp_path / "theirs")
    original = TupleFilesystemStoreBackend._set
    with mock.patch("dqx_gx.gx_private.write_atomically", wraps=write_atomically) as written:
        with atomic_writes(ours):
            ours.suites.add(gx.ExpectationSuite(name="ours"))
            theirs.suites.add(gx.ExpectationSuite(name="theirs"))
            assert TupleFilesystemStoreBackend._set is original
            site = ours.variables.data_docs_sites["local_site"]["store_backend"]
            assert (site["class_name"], site["module_name"]) == ("AtomicFilesystemStoreBackend", "dqx_gx.gx_private")
        paths = [call.args[0] for call in written.call_args_list]
    assert any(p.endswith("ours.json") for p in paths)
    assert not any("theirs" in p for p in paths)
    assert ours.variables.data_docs_sites["local_site"]["store_backend"] == {
        "class_name": "TupleFilesystemStoreBackend",
        "base_directory": "uncommitted/data_docs/local_site/",
    }
    assert all("_set" not in vars(store.store_backend) for store in ours.stores.values())


def test_data_docs_pages_are_written_whole_inside_the_block(tmp_path: Path) -> None:
    context = _file_context(tmp_path)
    with mock.patch("dqx_gx.gx_private.write_atomically", wraps=write_atomically) as written, atomic_writes(context):
        context.build_data_docs()
    assert any(call.args[0].endswith("index.html") for call in written.call_args_list)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "suite.json"
    target.write_text("old")
    with mock.patch("os.replace", side_effect=OSError("disk full")), pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.json"]


def test_written_files_keep_the_umask_mode_and_unchanged_files_keep_their_mtime(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        assert write_atomically(tmp_path / "new.json", b"{}")
    finally:
        os.umask(previous)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640
    os.utime(tmp_path / "new.json", (1_000_000, 1_000_000))
    assert not write_atomically(tmp_path / "new.json", b"{}")
    assert (tmp_path / "new.json").stat().st_mtime == 1_000_000
    assert write_atomically(tmp_path / "new.json", b"{ }")
    assert (tmp_path / "new.json").read_bytes() == b"{ }"


def test_gx_builds_every_stored_action_so_a_checkpoint_is_read_as_json_and_written_through_json(
    tmp_path: Path,
) -> None:
    """GX's ``checkpoints.get`` builds each action and fails on a type this process has not registered; the
    store's record is the JSON; GX's store writes a checkpoint as its ``json()``, where dqx-gx puts them back."""
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    store = context.checkpoint_store
    checkpoint = InstalledCheckpoint(name="c", validation_definitions=[], actions=[])
    foreign = {"name": "audit", "type": "acme_never_registered", "level": 2}
    checkpoint.store_actions_as(lambda ours: [foreign, *ours])
    store.add(key=store.get_key(name="c", id=None), value=checkpoint)
    with pytest.raises(Exception, match="acme_never_registered"):
        context.checkpoints.get("c")
    record = stored_record(store, "c")
    assert record is not None and record["actions"] == [foreign] and record["id"] == checkpoint.id
    assert stored_record(store, "absent") is None


def test_the_extension_hooks_dqx_gx_overrides_keep_their_signatures() -> None:
    assert list(inspect.signature(Expectation._validate).parameters) == [
        "self",
        "metrics",
        "runtime_configuration",
        "execution_engine",
    ]
    assert list(inspect.signature(MetricProvider._get_evaluation_dependencies).parameters) == [
        "metric",
        "configuration",
        "execution_engine",
        "runtime_configuration",
    ]
    renderer = get_renderer_impl("expect_dqx_null_count", LegacyRendererType.PRESCRIPTIVE)
    assert renderer is not None and renderer.renderer.__qualname__.startswith(DqxExpectation.__name__)


@pytest.mark.slow
@pytest.mark.parametrize("first", ["great_expectations", "dqx_gx", "dqx_gx.gx_private"])
def test_import_dqx_gx_registers_with_gx_whatever_is_imported_first(first: str) -> None:
    """GX's import registers dqx-gx's expectations, whose modules use this one: imported first, it is
    still being initialised when they ask for it."""
    code = textwrap.dedent(
        f"""
        import json, sys
        import {first}
        import great_expectations, dqx_gx
        from great_expectations.expectations.registry import get_expectation_impl
        from great_expectations.checkpoint.checkpoint import ValidationAction
        print(json.dumps([get_expectation_impl("expect_dqx_freshness").__name__,
                          "dqx_gx.expectations.guard" in sys.modules]))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.splitlines()[-1]) == ["ExpectDqxFreshness", True]


def test_the_bundled_aggregates_reach_spark_in_one_order_so_a_second_run_compiles_nothing(
    spark: Any, orders: Any
) -> None:
    """GX resolves a bundle through ``resolve_metric_bundle(metric_fn_bundle=...)`` of the engine instance
    (a set of identity-hashed metrics, so a new column order each run); ordered, Spark's code cache
    serves the second run of the same contract, and every value still lands on its own metric."""
    frame = spark.read.parquet(str(ROOT / "examples" / "orders" / "data" / "bad.parquet"))
    compiled = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    first = run_contract(orders, frame, now="2026-11-22T12:00:00Z")
    run_contract(orders, frame, now="2026-11-22T12:00:00Z")  # its failing rules now take their samples in the pass
    before = compiled.getCount()
    second = run_contract(orders, frame, now="2026-11-22T12:00:00Z")
    assert compiled.getCount() == before
    assert [(r.rule.id, r.observed) for r in second.rule_results] == [
        (r.rule.id, r.observed) for r in first.rule_results
    ]
    assert "metric_fn_bundle" in inspect.signature(SparkDFExecutionEngine.resolve_metric_bundle).parameters
    source = inspect.getsource(ExecutionEngine._process_direct_and_bundled_metric_computation_configurations)
    assert "self.resolve_metric_bundle(metric_fn_bundle=" in source


def test_ordering_bundles_changes_only_that_engine_instance() -> None:
    engine, other = (
        SparkDFExecutionEngine.__new__(SparkDFExecutionEngine),
        SparkDFExecutionEngine.__new__(SparkDFExecutionEngine),
    )
    resolve_metric_bundles(engine, (OfKey, OwnAggregate), apart_queries)
    resolve_metric_bundles(engine, (OfKey, OwnAggregate), apart_queries)  # once per engine
    assert "resolve_metric_bundle" in vars(engine) and "resolve_metric_bundle" not in vars(other)
    assert "get_domain_records" in vars(engine) and "get_domain_records" not in vars(other)
    projected = inspect.getclosurevars(vars(engine)["resolve_metric_bundle"]).nonlocals["projected"]
    wrapped = inspect.getclosurevars(projected).nonlocals["resolve"]
    assert wrapped.__func__ is SparkDFExecutionEngine.resolve_metric_bundle


def test_a_bundle_hands_over_each_partial_with_its_function_and_domain() -> None:
    """The partials set apart are recognised by ``metric_fn`` (what the partial returned) and grouped by
    ``compute_domain_kwargs``; their DataFrame comes from the engine's ``get_domain_records``."""
    fields = {f.name for f in dataclasses.fields(MetricComputationConfiguration)}
    assert {"metric_configuration", "metric_fn", "compute_domain_kwargs"} <= fields
    assert "domain_kwargs" in inspect.signature(SparkDFExecutionEngine.get_domain_records).parameters


class _Apart:
    """A partial set apart (what ``OfKey`` is to dqx-gx)."""


_CALLER = ContextVar("caller", default="unset")


class _Engine(SparkDFExecutionEngine):
    """An engine whose bundle resolution waits until the partials set apart are being resolved: it
    returns only if both run at once."""

    def __init__(self, apart_started: threading.Event, fail: bool = False) -> None:  # no Spark, no GX state
        self.apart_started, self.fail, self.threads = apart_started, fail, []

    def resolve_metric_bundle(self, metric_fn_bundle: Any) -> dict[Any, Any]:
        self.threads.append(threading.get_ident())
        assert self.apart_started.wait(10), "the partials set apart did not run beside the bundle"
        if self.fail:
            raise RuntimeError("the bundle failed")
        return {c.metric_configuration.id: "aggregate" for c in metric_fn_bundle}

    def get_domain_records(self, domain_kwargs: Any) -> Any:
        return f"records of {dict(domain_kwargs)}"


def _partial(name: str, fn: Any) -> MetricComputationConfiguration:
    metric = MetricConfiguration(name, {"table": None})
    return MetricComputationConfiguration(
        metric_configuration=metric, metric_fn=fn, metric_provider_kwargs={}, compute_domain_kwargs={"table": None}
    )


@pytest.mark.parametrize("fails", ["nothing", "the bundle", "the keys"])
def test_key_based_partials_run_beside_the_bundle_with_the_callers_context(fails: str) -> None:
    """The key grouping and the bundle's ``df.agg`` need nothing from each other: the grouping is prepared on
    the caller's thread and runs on another, at the same time, with the caller's context variables; the
    values, or an error (the bundle's first), come back once both have finished."""
    started, finished = threading.Event(), threading.Event()
    engine = _Engine(started, fail=fails == "the bundle")
    seen: dict[str, Any] = {}

    def resolve_apart(df: Any, partials: list[_Apart]) -> Any:
        seen["prepared on"] = threading.get_ident()

        def values() -> list[str]:
            started.set()
            seen.update({"ran on": threading.get_ident(), "caller": _CALLER.get(), "df": df})
            time.sleep(0.2)
            finished.set()
            if fails == "the keys":
                raise ValueError("the keys failed")
            return [f"key {i}" for i, _ in enumerate(partials)]

        return [(list(range(len(partials))), values)]

    resolve_metric_bundles(engine, _Apart, resolve_apart)
    bundle = [_partial("a.agg", "column"), _partial("b.key", _Apart()), _partial("c.key", _Apart())]
    token = _CALLER.set("the run")
    try:
        if fails == "nothing":
            resolved = engine.resolve_metric_bundle(bundle)
        else:
            with pytest.raises((RuntimeError, ValueError), match=f"{fails} failed"):
                engine.resolve_metric_bundle(bundle)
    finally:
        _CALLER.reset(token)
    assert finished.is_set()  # waited for, whatever failed
    assert seen["prepared on"] == engine.threads[0] == threading.get_ident() != seen["ran on"]
    assert (seen["caller"], seen["df"]) == ("the run", "records of {'table': None}")
    if fails == "nothing":
        assert sorted(resolved.values()) == ["aggregate", "key 0", "key 1"]


class _Recording(_Engine):
    def resolve_metric_bundle(self, metric_fn_bundle: Any) -> dict[Any, Any]:
        self.threads.append("bundle")
        return super().resolve_metric_bundle(metric_fn_bundle)


def test_while_another_runs_grouping_has_the_thread_the_keys_run_after_the_bundle_on_the_callers() -> None:
    """Two runs at once (two streams' batches, say) do not queue one's grouping behind the other's."""
    started = threading.Event()
    started.set()  # this engine does not wait for the partials set apart
    engine = _Recording(started)

    def resolve_apart(df: Any, partials: list[_Apart]) -> Any:
        return [([0], lambda: engine.threads.append(("keys", threading.get_ident())) or ["key"])]

    resolve_metric_bundles(engine, _Apart, resolve_apart)
    with threads._KEPT_FREE:  # another run's grouping has the thread
        resolved = engine.resolve_metric_bundle([_partial("a.agg", "column"), _partial("b.key", _Apart())])
    me = threading.get_ident()
    assert engine.threads == ["bundle", me, ("keys", me)]
    assert sorted(resolved.values()) == ["aggregate", "key"]


def test_the_kept_thread_is_free_again_once_its_work_has_returned() -> None:
    """A run hands it work twice in a row (the brackets' ``df.agg``, then the key grouping): waiting for the
    first must leave the thread free for the second, else the grouping would run after its bundle."""
    for attempt in range(200):
        first = threads.kept_thread(lambda: "first")
        assert first is not None
        futures.wait([first])
        second = threads.kept_thread(lambda: "second")
        assert second is not None, f"the thread was still taken after attempt {attempt}'s first work returned"
        assert (first.result(), second.result()) == ("first", "second")


def test_a_partial_set_apart_that_no_query_answers_is_refused_not_dropped() -> None:
    started = threading.Event()
    started.set()
    engine = _Recording(started)
    resolve_metric_bundles(engine, _Apart, lambda df, partials: [([0], lambda: ["key"])])
    with pytest.raises(ValueError, match="resolve_apart must answer each partial set apart once"):
        engine.resolve_metric_bundle([_partial("a.key", _Apart()), _partial("b.key", _Apart())])


class _Own(_Apart):
    """A partial set apart for a query of another kind (what ``OwnAggregate`` is to dqx-gx)."""


def test_the_first_query_apart_runs_beside_the_bundle_and_the_others_after_it_on_the_callers() -> None:
    """Each query answers its own partials, wherever they were in the bundle: the first (dqx-gx's key
    grouping) on the kept thread while the bundle's ``df.agg`` runs, the next (the object aggregates'
    ``df.agg``) after the bundle on the caller's thread."""
    started = threading.Event()
    engine = _Recording(started)
    me = threading.get_ident()

    def resolve_apart(df: Any, partials: list[_Apart]) -> Any:
        keys = [i for i, p in enumerate(partials) if not isinstance(p, _Own)]
        own = [i for i, p in enumerate(partials) if isinstance(p, _Own)]

        def grouped() -> list[str]:
            started.set()
            engine.threads.append(("keys", threading.get_ident() != me))
            return [f"key {i}" for i in keys]

        def aggregated() -> list[str]:
            engine.threads.append(("own", threading.get_ident() != me))
            return [f"own {i}" for i in own]

        return [(keys, grouped), (own, aggregated)]

    resolve_metric_bundles(engine, _Apart, resolve_apart)
    bundle = [
        _partial(n, f) for n, f in (("a.key", _Apart()), ("b.own", _Own()), ("c.agg", "column"), ("d.key", _Apart()))
    ]
    resolved = engine.resolve_metric_bundle(bundle)
    # the bundle returned only once the grouping had started on the kept thread; the object aggregates ran after it
    assert sorted(engine.threads, key=str) == sorted(["bundle", me, ("keys", True), ("own", False)], key=str)
    assert engine.threads.index(("own", False)) > engine.threads.index(me)
    assert {c.metric_configuration.metric_name: resolved[c.metric_configuration.id] for c in bundle} == {
        "a.key": "key 0",
        "b.own": "own 1",
        "c.agg": "aggregate",
        "d.key": "key 2",
    }


def _direct(metric_fn: Any, result_format: dict[str, Any]) -> MetricComputationConfiguration:
    """A directly computed metric whose function fails if GX calls it (it is given no arguments)."""
    metric = MetricConfiguration(
        "column_values.nonnull.unexpected_values", {"column": "c"}, {"result_format": result_format}
    )
    return MetricComputationConfiguration(metric_configuration=metric, metric_fn=metric_fn, metric_provider_kwargs={})


def test_a_sample_of_no_rows_is_answered_without_gx_query_and_only_then(spark: Any) -> None:
    """GX runs each directly computed metric as ``metric_fn(**metric_provider_kwargs)`` in
    ``_process_direct_and_bundled_metric_computation_configurations`` of the engine instance; answered
    there, GX's sample query never runs. Any other result format still reaches GX's function."""
    engine, other = SparkDFExecutionEngine(persist=False), SparkDFExecutionEngine(persist=False)
    lighter_metric_resolution(engine)
    lighter_metric_resolution(engine)  # once per engine
    process = engine._process_direct_and_bundled_metric_computation_configurations
    for query in SAMPLE_QUERIES:
        none = _direct(query, parse_result_format(dict(RESULT_FORMAT)))
        assert process(metric_fn_direct_configurations=[none], metric_fn_bundle_configurations=[]) == {
            none.metric_configuration.id: []
        }
        for asks_rows in (
            {"result_format": "SUMMARY", "partial_unexpected_count": 3},
            {"result_format": "COMPLETE", "partial_unexpected_count": 0},
        ):
            with pytest.raises(MetricResolutionError):
                process(metric_fn_direct_configurations=[_direct(query, asks_rows)], metric_fn_bundle_configurations=[])
    assert "_process_direct_and_bundled_metric_computation_configurations" not in vars(other)


@needs(CALL_SITES)
def test_gx_metric_partials_are_resolved_with_call_sites_off_and_other_metrics_with_them(spark: Any) -> None:
    """GX marks a metric partial's function with a ``MetricPartialFunctionTypes`` ``metric_fn_type`` (a
    ``metric_value`` function with ``MetricFunctionTypes.VALUE``); the partials are called with PySpark's
    call-site recording off, the value functions (which may run a query) with it as it was."""
    engine = SparkDFExecutionEngine(persist=False)
    lighter_metric_resolution(engine)
    seen: dict[str, bool] = {}

    def recording(name: str, kind: Any) -> MetricComputationConfiguration:
        def metric_fn() -> str:
            seen[name] = pyspark_errors.is_debugging_enabled()
            return name

        metric_fn.metric_fn_type = kind  # type: ignore[attr-defined]
        metric = MetricConfiguration(f"table.{name}", {}, {})
        return MetricComputationConfiguration(
            metric_configuration=metric, metric_fn=metric_fn, metric_provider_kwargs={}
        )

    configurations = [
        recording("condition", MetricPartialFunctionTypes.MAP_CONDITION_FN),
        recording("value", MetricFunctionTypes.VALUE),
        recording("aggregate", MetricPartialFunctionTypes.AGGREGATE_FN),
    ]
    (_, nonnull_condition) = get_metric_provider("column_values.nonnull.condition", engine)
    (_, row_count_partial) = get_metric_provider("table.row_count.aggregate_fn", engine)
    assert nonnull_condition.metric_fn_type is MetricPartialFunctionTypes.MAP_CONDITION_FN
    assert row_count_partial.metric_fn_type is MetricPartialFunctionTypes.AGGREGATE_FN
    with mock.patch.object(pyspark_errors, "_enable_debugging_cache", True):
        resolved = engine._process_direct_and_bundled_metric_computation_configurations(
            metric_fn_direct_configurations=configurations, metric_fn_bundle_configurations=[]
        )
        assert pyspark_errors.is_debugging_enabled() is True
    assert seen == {"condition": False, "value": True, "aggregate": False}
    assert sorted(resolved.values()) == ["aggregate", "condition", "value"]


def test_gx_asks_a_map_rule_for_samples_even_when_none_are_wanted_and_its_query_returns_none(spark: Any) -> None:
    """Why :func:`lighter_metric_resolution` exists, and that ``[]`` is GX's own answer: GX's query for the sample
    is ``limit(0)`` with ``partial_unexpected_count: 0`` (no Spark job, but a plan and ~80 py4j calls)."""
    frame = spark.createDataFrame([("x",), (None,)], "c string")
    expectation = gxe.ExpectColumnValuesToNotBeNull(column="c")
    wanted = expectation.get_validation_dependencies(runtime_configuration={"result_format": dict(RESULT_FORMAT)})
    assert "column_values.nonnull.unexpected_values" in wanted.get_metric_names()
    context = gx.get_context(mode="ephemeral")
    batch = (
        context.data_sources.add_spark("gx_own")
        .add_dataframe_asset("a")
        .add_batch_definition_whole_dataframe("b")
        .get_batch(batch_parameters={"dataframe": frame})
    )
    result = batch.validate(expectation, result_format=dict(RESULT_FORMAT))
    assert (result.result["unexpected_count"], result.result["partial_unexpected_list"]) == (1, [])


def test_a_run_with_a_gx_map_rule_plans_no_sample_query(spark: Any) -> None:
    """End to end: the run's GX rule reports its unexpected count and an empty sample, and Spark saw no
    query for the sample (GX's ``limit(0)`` query plans as a scan of an empty local table)."""
    rule = {"name": "c set", "type": "custom", "engine": "greatExpectations"}
    implementation = {"type": "expect_column_values_to_not_be_null"}
    contract = one_table(
        [{"name": "c", "logicalType": "string", "quality": [{**rule, "implementation": implementation}]}]
    )
    frame = spark.createDataFrame([("x",), (None,), (None,)], "c string")
    with executed_plans(spark, "a run with a GX map rule") as plans:
        run = run_contract(contract, frame)
    (gx_rule,) = [r for r in run.rule_results if r.rule.name == "c set"]
    (evr,) = [
        e
        for e in run.checkpoint_result.describe_dict()["validation_results"][0]["expectations"]
        if e["expectation_type"] == "expect_column_values_to_not_be_null"
    ]
    assert (gx_rule.assertion.status, gx_rule.assertion.metric.unwrap()) == ("FAILED", 2.0)
    assert evr["result"]["partial_unexpected_list"] == []
    assert plans and not [p for p in plans if "LocalTableScan" in p]


def test_gx_pages_load_the_libraries_whose_local_copies_dqx_gx_puts_in_the_site() -> None:
    """dqx_gx.run.site_assets replaces every remote script and style sheet of GX's page templates by
    jQuery 3, Bootstrap 4 (with Popper) and Font Awesome 6 from inside the site, and draws the index
    without bootstrap-table (and so without its date picker). A GX upgrade that loads another library,
    or another major, needs a look."""
    templates = Path(gx.__file__).parent / "render" / "view" / "templates"
    earlier = {"jquery-3.4.1.min.js": "jquery-3.7.1.min.js", "vega-lite@4": "vega-lite@5"}  # what GX 1.7 loads
    loaded = {
        earlier.get(url.rsplit("/", 1)[-1], url.rsplit("/", 1)[-1])
        for template in templates.glob("*.j2")
        for url in re.findall(r"""<(?:script|link)\b[^>]*(?:src|href)="(https?://[^"]+)""", template.read_text())
    }
    assert loaded == {
        "vega@5",
        "vega-lite@5",
        "vega-embed@6",
        "jquery-3.7.1.min.js",
        "popper.min.js",
        "bootstrap.min.js",
        "bootstrap.min.css",
        "all.min.css",
        "bootstrap-table.min.js",
        "bootstrap-table.min.css",
        "bootstrap-table-filter-control.min.js",
        "bootstrap-table-filter-control.min.css",
        "bootstrap-table-filter-control.css",
        "bootstrap-datepicker.min.js",
        "bootstrap-datepicker.min.css",
        "bootstrap-prefers-dark.css",
    }
    text = "".join(template.read_text() for template in templates.glob("*.j2"))
    assert all(major in text for major in ("jquery-3.", "bootstrap/4.", "font-awesome/6."))


@pytest.mark.parametrize("project", ["ephemeral", "file"])
def test_installed_artefacts_are_what_gx_calls_fresh_and_a_run_reads_no_suite_back(
    spark: Any, orders: Any, project: str, tmp_path: Path
) -> None:
    """GX asks ``is_fresh`` of the checkpoint it runs and of each validation definition (in ``run``, and
    through ``identifier_bundle`` when the checkpoint is compared or written). GX's own answer for what
    install() wrote, added or overwritten, with docs and alert actions, is "fresh", so inside
    ``just_installed`` the installed classes answer it without reading the suite back; the results are
    those of the checkpoint as GX loads it, which is GX's plain class."""
    context = ephemeral_context() if project == "ephemeral" else _file_context(tmp_path)
    build = build_suite(orders)
    alert = [parse_target("webhook:http://127.0.0.1:9/never")]  # sent only for a rejected batch
    for _ in ("added", "overwritten"):
        checkpoint = install(context, orders, build, data_docs=True, notify=alert).checkpoint
        assert isinstance(checkpoint, InstalledCheckpoint)
        assert gx.Checkpoint.is_fresh(checkpoint).success
        assert all(gx.ValidationDefinition.is_fresh(v).success for v in checkpoint.validation_definitions)
    assert type(context.checkpoints.get(checkpoint.name)) is gx.Checkpoint
    assert "self.is_fresh()" in inspect.getsource(gx.Checkpoint.run)
    assert "self.is_fresh()" in inspect.getsource(gx.ValidationDefinition.run)
    assert "self.is_fresh()" in inspect.getsource(gx.ValidationDefinition.identifier_bundle)
    frame = spark.read.parquet(str(ROOT / "examples" / "orders" / "data" / "good.parquet"))
    checked = mock.patch.object(
        gx.ValidationDefinition, "is_fresh", autospec=True, side_effect=gx.ValidationDefinition.is_fresh
    )
    runs = {}
    for name, runner in (("installed", checkpoint), ("as GX loads it", context.checkpoints.get(checkpoint.name))):
        with just_installed(checkpoint), measured_at(MOMENT), checked as asked:
            result = runner.run(batch_parameters={"dataframe": frame})
        (suite_result,) = result.run_results.values()
        runs[name] = (
            asked.call_count,
            [(r.expectation_config and r.expectation_config.id, r.success) for r in suite_result.results],
        )
    assert runs["installed"][0] == 0 and runs["as GX loads it"][0] >= 2  # GX's own check, not asked
    assert runs["installed"][1] == runs["as GX loads it"][1]
    assert len(runs["installed"][1]) == len(build.suite.expectations)


def test_install_refers_to_the_suite_it_stored_without_reading_it_back(orders: Any) -> None:
    """A validation definition is written with its suite as an identifier bundle, and GX's
    ``identifier_bundle`` reads the suite back and compares it whole. install() hands it the suite the
    store has just returned, so inside ``just_installed`` the bundle comes from its id; outside, GX's
    check stands and a suite changed since it was stored cannot be written."""
    context = ephemeral_context()
    gx_check = mock.patch.object(
        gx.ExpectationSuite, "is_fresh", autospec=True, side_effect=gx.ExpectationSuite.is_fresh
    )
    for _ in ("added", "overwritten"):
        with gx_check as asked:
            suite = install(context, orders, build_suite(orders), data_docs=False).suite
        assert asked.call_count == 0
    validation = InstalledValidationDefinition(
        name=suite.name, data=context.validation_definitions.get(suite.name).data, suite=suite
    )
    reads = mock.patch.object(
        type(context.expectations_store), "get", autospec=True, side_effect=type(context.expectations_store).get
    )
    with reads as read, just_installed(suite):
        inside = json.loads(validation.json())["suite"]
    assert read.call_count == 0
    assert inside == {"name": suite.name, "id": suite.id}
    gx_encoders = gx.ValidationDefinition.__config__.json_encoders
    assert InstalledValidationDefinition.__config__.json_encoders[BatchDefinition] is gx_encoders[BatchDefinition]
    with reads as read:
        assert json.loads(validation.json())["suite"] == inside
    assert read.call_count >= 1  # GX's own check
    suite.expectations.pop()
    with pytest.raises(
        ResourceFreshnessAggregateError, match=r"ExpectationSuite .* has changed since it has last been saved"
    ):
        validation.json()


def test_a_run_in_a_context_only_dqx_gx_holds_stores_no_artefact_and_gx_can_still_use_them(
    spark: Any, orders: Any
) -> None:
    """Without ``context`` or data docs, the run's own context stores no suite, validation definition or
    checkpoint; GX's freshness check of each would read its store and fail ("not found"), so there they are
    always fresh: the checkpoint serialises (its validation definitions as identifier bundles, which ask
    it), results compare (pydantic compares their ``dict()``) and the checkpoint runs again, alike."""
    frame = spark.read.parquet(str(ROOT / "examples" / "orders" / "data" / "bad.parquet"))
    run = run_contract(orders, frame, now=MOMENT)
    checkpoint = run.checkpoint_result.checkpoint_config
    (validation,) = checkpoint.validation_definitions
    context = owner_from_batch_definition(validation.data)
    assert context is not None and is_thrown_away(context)
    assert (len(context.suites.all()), len(context.validation_definitions.all()), len(context.checkpoints.all())) == (
        0,
        0,
        0,
    )
    assert not gx.ExpectationSuite.is_fresh(validation.suite).success  # GX's own check: not in the store
    assert json.loads(checkpoint.json())["validation_definitions"] == [{"name": validation.name, "id": validation.id}]
    assert json.loads(validation.json())["suite"] == {"name": validation.suite.name, "id": validation.suite.id}
    assert run.checkpoint_result == run.checkpoint_result
    with measured_at(MOMENT):
        again = checkpoint.run(batch_parameters={"dataframe": frame})
    (first,), (second,) = run.checkpoint_result.run_results.values(), again.run_results.values()
    observed = [[(r.success, r.result.get("observed_value")) for r in result.results] for result in (first, second)]
    assert observed[0] == observed[1] and (False, None) not in observed[0] and not first.success


def test_a_checkpoint_kept_from_an_earlier_run_is_checked_by_gx_again(orders: Any) -> None:
    """Outside ``just_installed`` an installed checkpoint asks GX's full check: after the same contract name
    is installed with other rules, the one kept from before is not fresh, as GX would say."""
    context = ephemeral_context()
    kept = install(context, orders, build_suite(orders), data_docs=False).checkpoint
    with just_installed(kept):
        assert kept.is_fresh().success
    assert kept.is_fresh().success  # GX's own check, still equal to the store
    fewer = dataclasses.replace(orders, rules=orders.rules[:3])
    install(context, fewer, build_suite(fewer), data_docs=False)
    assert not kept.is_fresh().success
    assert not kept.validation_definitions[0].is_fresh().success


def test_a_held_run_stores_nothing_and_waits_for_run_actions_and_outside_runs_as_gx_does(
    spark: Any, orders: Any, tmp_path: Path
) -> None:
    """GX's ``ValidationDefinition.run`` stores its result through ``self._validation_results_store`` and
    ``Checkpoint.run`` ends in ``_run_actions(checkpoint_result=...)``. Inside ``held_for_record`` the
    installed checkpoint's run stores no result and stops before its actions (no data docs page yet), and
    ``run_actions`` runs them; outside the block it stores and runs them itself, as GX's classes do."""
    assert "self._validation_results_store.store_validation_results(" in inspect.getsource(gx.ValidationDefinition.run)
    asked = inspect.getsource(gx.ValidationDefinition._get_expectation_suite_and_validation_result_ids)
    assert "self._validation_results_store.cloud_mode" in asked  # the stand-in answers it: False
    assert "self._run_actions(checkpoint_result=checkpoint_result)" in inspect.getsource(gx.Checkpoint.run)
    context = _file_context(tmp_path)
    checkpoint = install(context, orders, build_suite(orders), data_docs=True).checkpoint
    frame = spark.read.parquet(str(ROOT / "examples" / "orders" / "data" / "good.parquet"))
    pages = tmp_path / "gx" / "uncommitted" / "data_docs" / "local_site" / "validations"

    def built() -> int:
        return len(list(pages.rglob("*.html")))

    with just_installed(checkpoint), held_for_record(checkpoint), measured_at(MOMENT):
        result = checkpoint.run(batch_parameters={"dataframe": frame})
    assert (built(), context.validation_results_store.list_keys()) == (0, [])
    ((key, suite_result),) = result.run_results.items()
    context.validation_results_store.set(key, suite_result)
    run_actions(checkpoint, result)
    assert built() == 1
    with just_installed(checkpoint), measured_at(MOMENT):
        checkpoint.run(batch_parameters={"dataframe": frame})
    assert (built(), len(context.validation_results_store.list_keys())) == (2, 2)


def test_a_suite_resolves_through_its_owner_or_before_gx_1_18_the_current_context() -> None:
    """GX 1.18 gave suites an owner (``suite._owner``, the context that made or stored them); before, every suite
    used the current context. ``suite_owner`` answers either way, so a run in a context only dqx-gx holds stores
    no suite on any GX of the range."""
    ours = ephemeral_context(keep_results=False)
    suite = ours.suites.add(gx.ExpectationSuite(name="owned"))
    assert hasattr(suite, "_owner") == (Version(gx.__version__) >= Version("1.18"))
    assert suite_owner(suite) is ours and is_thrown_away(suite_owner(suite))
    later = ephemeral_context()  # now the current context
    assert suite_owner(suite) is (ours if hasattr(suite, "_owner") else later)
    assert suite_owner(later.suites.add(gx.ExpectationSuite(name="theirs"))) is later


def test_a_metric_id_is_its_kwargs_to_id_and_a_dependency_shares_its_metrics_kwargs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids: list[Any] = []
    to_id = IDDict.to_id

    def counted(self: IDDict, *args: Any, **kwargs: Any) -> Any:
        ids.append(to_id(self, *args, **kwargs))
        return ids[-1]

    monkeypatch.setattr(IDDict, "to_id", counted)
    domain, value = table_domain("batch-1"), IdOnce({"kind": "null_count", "column": "a"})
    metric = MetricConfiguration("dqx.aggregate", domain, value)
    plain = MetricConfiguration("dqx.aggregate", IDDict(domain), IDDict(value))
    assert metric.id == plain.id  # the same id as GX's own dicts give
    assert metric.metric_domain_kwargs is domain and metric.metric_value_kwargs is value  # kept, not copied
    computed = len(ids)
    dependency = MetricConfiguration(
        "dqx.aggregate.aggregate_fn", metric.metric_domain_kwargs, metric.metric_value_kwargs
    )
    again = MetricConfiguration("dqx.aggregate", domain, value)
    assert dependency.id[1:] == metric.id[1:] and again.id == metric.id
    assert len(ids) == computed, "the ids of kwargs already seen are computed again"


def test_the_table_domain_is_the_one_gx_builds_for_a_table_metric() -> None:
    configuration = gxe.ExpectColumnValuesToNotBeNull(column="a").configuration
    configuration.kwargs["batch_id"] = "batch-1"
    built = get_metric_kwargs("table.row_count", configuration=configuration)["metric_domain_kwargs"]
    assert built == table_domain("batch-1")
    assert built.to_id() == table_domain("batch-1").to_id() == IDDict(table_domain("batch-1")).to_id()
    assert table_domain("batch-2").to_id() != table_domain("batch-1").to_id()


def test_kwargs_that_change_forget_their_id_and_a_deep_copy_keeps_it() -> None:
    value = IdOnce({"kind": "min", "column": "a"})
    first = value.to_id()
    copied = copy.deepcopy(value)
    assert isinstance(copied, IdOnce) and copied == value and copied.to_id() == first
    for change in (
        lambda v: v.__setitem__("column", "b"),
        lambda v: v.update(column="b"),
        lambda v: v.setdefault("now", 1),
        lambda v: v.pop("column"),
        lambda v: v.__delitem__("column"),
        lambda v: v.__ior__({"column": "b"}),
        lambda v: v.popitem(),
        lambda v: v.clear(),
    ):
        changed = copy.deepcopy(value)
        change(changed)
        assert changed.to_id() == IDDict(changed).to_id() != first
    assert value.to_id(id_ignore_keys={"column"}) == IDDict(value).to_id(id_ignore_keys={"column"}) != first


def test_gx_builds_an_expectations_configuration_on_each_read_and_inside_the_block_once_per_object_and_state() -> None:
    """:func:`settled_configurations` wraps GX's own ``Expectation.configuration`` property; inside the block a
    read gives what GX builds, kept while no field is set, and outside it GX builds anew on every read."""
    wrapped = vars(Expectation)["configuration"]
    assert isinstance(wrapped, property) and wrapped.fget is not None
    expectation = gxe.ExpectColumnValuesToNotBeNull(column="a", mostly=0.5, meta={"dqx": {"rule_id": "r"}})
    outside = expectation.configuration
    assert expectation.configuration is not outside and expectation.configuration == outside
    with settled_configurations():
        first = expectation.configuration
        assert first == outside and expectation.configuration is first
        twin = gxe.ExpectColumnValuesToNotBeNull(column="a", mostly=0.5, meta={"dqx": {"rule_id": "r"}})
        assert twin.configuration is not first and twin.configuration == first
        expectation.mostly = 0.9
        changed = expectation.configuration
        assert changed is not first and changed.kwargs["mostly"] == 0.9 and first.kwargs["mostly"] == 0.5
        expectation.meta = {"dqx": {"rule_id": "s"}}
        assert expectation.configuration.meta == {"dqx": {"rule_id": "s"}}
    assert expectation.configuration is not expectation.configuration
    assert (
        expectation.configuration
        == gxe.ExpectColumnValuesToNotBeNull(column="a", mostly=0.9, meta={"dqx": {"rule_id": "s"}}).configuration
    )


def test_a_configuration_whose_suite_parameters_gx_put_in_place_is_built_anew_inside_the_block() -> None:
    """GX's validator puts the suite's parameters into the configurations it reads (``process_suite_parameters``
    changes their kwargs in place): the next read inside the block is what GX builds anew, the raw ``$PARAMETER``
    again, so a second validation would substitute its own parameters."""
    expectation = gxe.ExpectColumnValuesToNotBeNull(column="a", mostly={"$PARAMETER": "share"})
    with settled_configurations():
        first = expectation.configuration
        first.process_suite_parameters({"share": 0.5})
        assert first.kwargs["mostly"] == 0.5
        again = expectation.configuration
        assert again is not first and again.kwargs["mostly"] == {"$PARAMETER": "share"}
        assert expectation.configuration is again
        again.process_suite_parameters({"share": 0.7})
        assert expectation.configuration.kwargs["mostly"] == {"$PARAMETER": "share"} and again.kwargs["mostly"] == 0.7


def test_a_configuration_builds_its_expectation_once_per_object_and_state_inside_the_block() -> None:
    """GX's ``ExpectationConfiguration.to_domain_obj`` is wrapped the same way: the validator builds each expectation
    from the same configuration twice a run; a kwarg set or changed is seen."""
    assert ExpectationConfiguration.to_domain_obj is not None
    configuration = gxe.ExpectColumnValuesToNotBeNull(column="a", mostly=0.5).configuration
    assert configuration.to_domain_obj() is not configuration.to_domain_obj()
    with settled_configurations():
        first = configuration.to_domain_obj()
        assert configuration.to_domain_obj() is first and first.configuration == configuration
        configuration.kwargs.update({"batch_id": "batch-1"})
        batched = configuration.to_domain_obj()
        assert batched is not first and batched.batch_id == "batch-1" and first.batch_id is None
        configuration.kwargs["mostly"] = 0.7
        assert configuration.to_domain_obj().mostly == 0.7
        copied = copy.deepcopy(configuration)
        assert copied.to_domain_obj() is not configuration.to_domain_obj()
    assert configuration.to_domain_obj() is not configuration.to_domain_obj()


def test_dqx_gx_expectations_answer_their_dependencies_once_per_result_format_and_engine_inside_the_block() -> None:
    """GX asks an expectation for its metrics for the graph and again to judge them: inside the block the second
    answer is the first, unless the result format, the engine or a field differs."""
    expectation = EXPECTATIONS[MetricKind.NUM_ROWS](rule="rows", min_value=1)
    summary, basic = {"result_format": dict(RESULT_FORMAT)}, {"result_format": "BASIC"}
    assert expectation.get_validation_dependencies(None, summary) is not expectation.get_validation_dependencies(
        None, summary
    )
    engine = SparkDFExecutionEngine()
    with settled_configurations():
        first = expectation.get_validation_dependencies(engine, summary)
        assert expectation.get_validation_dependencies(engine, copy.deepcopy(summary)) is first
        assert expectation.get_validation_dependencies(engine, basic).result_format["result_format"] == "BASIC"
        assert expectation.get_validation_dependencies(SparkDFExecutionEngine(), summary) is not first
        expectation.min_value = 2
        assert expectation.get_validation_dependencies(engine, summary) is not first
    names = first.get_metric_names()
    assert names == expectation.get_validation_dependencies(engine, summary).get_metric_names() and len(names) >= 2


def test_a_metric_id_is_gx_own_inside_the_block_where_kwargs_of_json_values_skip_gx_conversion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GX's ``IDDict.to_id`` converts the kwargs through its module's ``convert_to_json_serializable`` (which
    dqx-gx wraps): inside the block kwargs of JSON's own values are not converted, others are, and every id is
    the one GX gives outside it."""
    plain: list[dict[str, Any]] = [
        {"batch_id": "b", "table": None, "row_condition": None, "condition_parser": None},
        {"column": "a", "result_format": {"result_format": "SUMMARY", "partial_unexpected_count": 0}, "mostly": 0.5},
        {"value_set": ["x", None, 1, 2.5, True, float("inf")], "pair": ("a", "b"), "nested": [{"k": [None]}]},
    ]
    converted: list[dict[str, Any]] = [
        {"value": float("nan"), "column": "a"},
        {"when": dt.date(2026, 1, 1), "column": "a"},
        {"keys": {1: "a"}, "column": "a"},
        {"kind": MetricKind.NULL_COUNT, "column": "a"},
    ]
    outside = [IDDict(values).to_id() for values in plain + converted]
    calls: list[Any] = []
    convert = gx_private._CONVERT
    monkeypatch.setattr(gx_private, "_CONVERT", lambda data: calls.append(data) or convert(data=data))
    with settled_configurations():
        inside = [IDDict(values).to_id() for values in plain]
        assert not calls
        inside += [IDDict(values).to_id() for values in converted]
    assert len(calls) == len(converted) and inside == outside
    assert IDDict(plain[0]).to_id() == outside[0] and len(calls) == len(converted) + 1


def test_a_configuration_checks_its_meta_through_gx_inside_the_block_unless_it_is_json_values_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GX's ``ExpectationConfiguration`` checks its ``meta`` through its module's ``ensure_json_serializable`` (which
    dqx-gx wraps): inside the block a meta of JSON's own values is not walked, any other still is, and what GX
    refuses is refused."""
    calls: list[Any] = []
    ensure = gx_private._ENSURE
    monkeypatch.setattr(gx_private, "_ENSURE", lambda data: calls.append(data) or ensure(data))

    def configuration(meta: dict[str, Any]) -> ExpectationConfiguration:
        return ExpectationConfiguration(type="expect_column_values_to_not_be_null", kwargs={"column": "a"}, meta=meta)

    with settled_configurations():
        assert configuration({"dqx": {"rule_id": "r", "n": [1, None, 2.5, True]}}).meta["dqx"]["rule_id"] == "r"
        assert not calls
        configuration({"when": dt.date(2026, 1, 1)})
        with pytest.raises(Exception, match="cannot be serialized to json"):
            configuration({"x": object()})
        assert len(calls) == 2
    configuration({"dqx": {}})
    assert len(calls) == 3


def test_a_run_gives_the_same_results_whether_configurations_are_settled_or_built_on_each_read(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GX's built-in rules (a map rule with ``mostly``, an aggregate one) and dqx-gx's own, failing and passing, run
    once and again: every validation result, expectation configuration included, is the one GX gives building each
    read."""
    gx_rules = [
        ("c set", {"type": "expect_column_values_to_not_be_null", "mostly": 0.9}),
        ("c listed", {"type": "expect_column_values_to_be_in_set", "value_set": ["x", "y"]}),
        ("rows", {"type": "expect_table_row_count_to_be_between", "min_value": 1, "max_value": 5}),
    ]
    quality = [{"name": n, "type": "custom", "engine": "greatExpectations", "implementation": i} for n, i in gx_rules]
    contract = one_table(
        [
            {"name": "c", "logicalType": "string", "required": True, "quality": quality[:2]},
            {"name": "n", "logicalType": "integer", "quality": [{"metric": "nullValues", "mustBe": 0}]},
        ],
        quality[2:],
    )
    frame = spark.createDataFrame([("x", 1), (None, None), ("z", 3)], "c string, n int")

    def results(run: Any) -> list[dict[str, Any]]:
        """Every result as JSON; before GX 1.24 each run installs its suite anew, whose expectations get new ids."""
        (suite_result,) = run.checkpoint_result.run_results.values()
        found = [evr.to_json_dict() for evr in suite_result.results]
        for evr in found if not KEEPS_CONTEXTS else ():
            evr["expectation_config"].pop("id")
        return found

    settled, again = run_contract(contract, frame, now=MOMENT), run_contract(contract, frame, now=MOMENT)
    monkeypatch.setattr(run_module, "settled_configurations", contextlib.nullcontext)
    built = run_contract(contract, frame, now=MOMENT)
    assert results(settled) == results(again) == results(built)
    assert [r.assertion for r in settled.rule_results] == [r.assertion for r in built.rule_results]
    gx_types = {t["type"] for _, t in gx_rules}
    outcomes = {e["expectation_config"]["type"]: e["success"] for e in results(settled)}
    assert {t: outcomes[t] for t in gx_types} == {
        "expect_column_values_to_not_be_null": False,
        "expect_column_values_to_be_in_set": False,
        "expect_table_row_count_to_be_between": True,
    }


def test_a_partial_over_a_projection_reads_its_column_below_that_bundles_df_agg_only(spark: Any) -> None:
    """GX's bundle takes its DataFrame from ``get_domain_records`` and aggregates it with ``df.agg``: an
    :class:`OverProjection` partial's columns are added to that DataFrame for its bundle, each name once, and to
    nothing else (the records asked for outside a bundle, a bundle without one)."""
    source = inspect.getsource(SparkDFExecutionEngine.resolve_metric_bundle)
    assert "self.get_domain_records(domain_kwargs=" in source and ".agg(" in source
    frame = spark.createDataFrame([(1, "a"), (2, None), (3, "bb")], "id int, t string")
    engine = SparkDFExecutionEngine.__new__(SparkDFExecutionEngine)
    engine.get_domain_records = lambda domain_kwargs: frame  # type: ignore[method-assign]  # the batch's records
    resolve_metric_bundles(engine, _Apart, lambda df, partials: [])
    below = (("_dqx_once_t", F.col("t").isNotNull().alias("_dqx_once_t")),)
    bundle = [
        _partial("a.rows", F.count(F.lit(1))),
        _partial("b.marked", OverProjection(F.sum(F.col("_dqx_once_t").cast("int")), below)),
        _partial("c.shown", OverProjection(F.max(F.when(F.col("_dqx_once_t"), F.col("id"))), below)),
    ]
    resolved = engine.resolve_metric_bundle(bundle)
    assert {c.metric_configuration.metric_name: resolved[c.metric_configuration.id] for c in bundle} == {
        "a.rows": 3,
        "b.marked": 2,
        "c.shown": 3,
    }
    assert engine.get_domain_records(domain_kwargs={"table": None}).columns == ["id", "t"]
    plain = engine.resolve_metric_bundle([_partial("a.rows", F.count(F.lit(1)))])
    assert list(plain.values()) == [3]
