"""GX metrics for the declared kinds, computed by Spark in two levels of aggregates and a grouping.

Every kind's aggregate is a *table-domain aggregate partial*. GX bundles partials
that share a compute domain and a graph level into one ``df.agg``
(``SparkDFExecutionEngine.resolve_metric_bundle``). First-pass kinds share the
first ``df.agg`` with ``table.row_count``; the key-based kinds (distinct counts, duplicates and
the rows they mark) are read from one grouping of the batch's keys beside it
(:mod:`dqx_gx.spark.keys`): exact distinct counts inside the shared ``df.agg`` would make Spark
expand every row once per key and carry every other aggregate's buffer through a hash
aggregation by the keys, several times slower at scale. The second level (:class:`SecondPass`)
holds what needs the first: GX's own map metrics (``engine: greatExpectations``
rules) and the exact percentiles' refining aggregates share the second ``df.agg``. The first
pass's object aggregates (the exact percentiles' brackets:
:attr:`~dqx_gx.spark.kinds.SparkKind.object_aggregate`) leave the first ``df.agg`` for one of
their own beside it, so that the pass keeps Spark's generated code. What leaves a bundle is handed over by
:func:`~dqx_gx.gx_private.resolve_metric_bundles`. GX's column-domain
providers would not do: they depend on ``table.columns``/``table.row_count`` and
cannot share a pass with anything at the first level.

A partial must never raise: GX would then re-run every metric of the bundle one
by one and retry three times. An unmeasurable column (missing, wrong type) gives
a typed NULL; the expectation explains it from the same checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from functools import partial
from typing import Any, TypeAlias

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.core.metric_function_types import MetricPartialFunctionTypes
from great_expectations.execution_engine import SparkDFExecutionEngine
from great_expectations.expectations.metrics.metric_provider import metric_partial, metric_value
from great_expectations.expectations.metrics.table_metric_provider import TableMetricProvider
from great_expectations.util import convert_to_json_serializable
from great_expectations.validator.metric_configuration import MetricConfiguration
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from dqx_gx import gx_private
from dqx_gx.expectations.built import BUILT, column_of, frozen
from dqx_gx.kinds import KINDS, Kind, Metric
from dqx_gx.rules.opt_in import not_given
from dqx_gx.rules.partitions import from_micros
from dqx_gx.rules.threshold import Interval
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns, type_problem
from dqx_gx.spark.expressions import count_if, counted, num_rows
from dqx_gx.spark.keys import Key, KeyCounts, in_groupings, key_counts, key_query
from dqx_gx.spark.kinds import On, Pass, count_of, marks_of, spark_of
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.references import given_reference, reference_keys, with_found_keys
from dqx_gx.spark.samples import in_pass_samples, shown
from dqx_gx.spark.text import Sql
from dqx_gx.spark.threads import as_caller
from dqx_gx.spark.uncast import uncast_count

BATCH_SCHEMA = "dqx.batch_schema"
NUM_ROWS = "dqx.num_rows"
FIRST_PASS = "dqx.aggregate"
SECOND_PASS = "dqx.distinct_aggregate"
OWN_QUERY = "dqx.distinct_values"
REFERENCE_QUERY = "dqx.reference_aggregate"
MARKED_ROWS = "dqx.marked_rows"
MARKED_SAMPLES = "dqx.marked_samples"
UNCAST_VALUES = "dqx.uncast_values"
REFINING = "dqx.refining_aggregate"
REFINED = "dqx.refined"
DUPLICATED_ROWS = "dqx.duplicated_rows"
SAMPLED_IN_PASS = "sampled_in_pass"
"""A count's value kwarg: the rule's samples are taken in the same pass, so its per-row predicate is computed
once below the aggregate for both (:func:`over_once`)."""
FOUND = "_dqx_found"
"""The flag column a foreign-key query joins in (see :func:`~dqx_gx.spark.references.with_found_keys`)."""


def measured(kind: Kind, metric: Metric) -> tuple[str, dict[str, Any]]:
    """The metric (name and value kwargs) that computes ``metric``; the scale is applied afterwards."""
    arguments = {k: v for k, v in kind.arguments(metric).items() if k != "scale"}
    name = {Pass.FIRST: FIRST_PASS, Pass.SECOND: SECOND_PASS, Pass.OWN: OWN_QUERY, Pass.REFERENCE: REFERENCE_QUERY}[
        spark_of(kind).pass_
    ]
    return REFINED if spark_of(kind).refine else name, {"kind": kind.name, **arguments}


def measurable(kind: Kind, columns: Columns, kwargs: dict[str, Any]) -> On | None:
    """What the kind's expressions are built on, or None when a column is missing or of a type it refuses;
    ``now`` (epoch microseconds), given to a kind whose expressions read the run's moment."""
    metric = kind.metric_of(kwargs)
    fields = tuple(columns.find(name) for name in metric.columns)
    if any(f is None or type_problem(kind, metric, f, columns) for f in fields):
        return None
    found = tuple(f for f in fields if f is not None)
    now = from_micros(kwargs["now"]) if "now" in kwargs else None
    return On(metric, found, tuple(S.col(f) for f in found), now=now)


@own_expressions()
def on_batch(
    engine: SparkDFExecutionEngine, domain_kwargs: dict[str, Any], kind: Kind, kwargs: dict[str, Any]
) -> tuple[DataFrame, On | None]:
    """The batch of a metric that runs a query of its own, and what ``kind``'s expressions are built on
    there (None: a column it cannot measure, which the expectation explains)."""
    df, _, _ = engine.get_compute_domain(domain_kwargs, domain_type=MetricDomainTypes.TABLE)
    return df, measurable(kind, Columns.of(df), kwargs)


def marked(kind: Kind, metric: Metric, interval: Interval) -> dict[str, Any]:
    """The value kwargs of :class:`MarkedRows` for a bound-based rule."""
    return {**measured(kind, metric)[1], "interval": asdict(interval)}


class BatchSchema(TableMetricProvider):
    """The batch's :class:`Columns` (Spark schema and case rule for names): column presence and types, no job.

    A ``metric_value`` result is handed to the expectations as is (it is never
    serialised), so the frozen :class:`Columns` itself is the value.
    """

    metric_name = BATCH_SCHEMA

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> Columns:
        df, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        return Columns.of(df)


class SqlValue(TableMetricProvider):
    """The single value a contract's (checked, opted-in) SQL query returns over the batch.

    Not part of the aggregate passes: the query is the contract's own plan. Any
    failure of the query becomes ``{"error": …}`` for the rule to report.
    """

    metric_name = "dqx.sql_value"
    value_keys = ("query",)

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> dict[str, Any]:
        df, _, _ = execution_engine.get_compute_domain(metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE)
        try:
            rows = df.sparkSession.sql(metric_value_kwargs["query"], batch=df).limit(2).collect()
        except Exception as exc:  # user SQL fails in countless ways; the rule fails with the message
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return {"error": f"the query failed: {message}"}
        if len(rows) != 1 or len(rows[0]) != 1:
            shape = {0: "no rows", 1: f"{len(rows[0]) if rows else 0} columns"}.get(len(rows), "more than one row")
            return {"error": f"the query returned {shape}; it must return exactly one value"}
        value = rows[0][0]
        if isinstance(value, bool) or value is None:
            return {"value": None if value is None else float(value)}
        if not isinstance(value, int | float | Decimal):
            return {"error": f"the query returned {value!r}, not a number"}
        return {"value": float(value)}


class SecondPass(TableMetricProvider):
    """A marker metric computed after the first aggregate pass (it needs ``table.row_count``).

    GX's own map metrics (the ``engine: greatExpectations`` rules) reach that same depth of
    the validation graph, through their ``condition`` metric; aggregates that depend on this
    one are resolved in the same bundle: the refining ones in the second ``df.agg`` with them.
    """

    metric_name = "dqx.second_pass"

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> bool:
        return True

    @classmethod
    def _get_evaluation_dependencies(
        cls,
        metric: MetricConfiguration,
        configuration: Any = None,
        execution_engine: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
    ) -> dict[str, MetricConfiguration]:
        return {"table.row_count": MetricConfiguration("table.row_count", metric.metric_domain_kwargs)}


class Aggregate(TableMetricProvider):
    """Base for the aggregate metrics: one Spark aggregate expression, bundled by GX into a shared pass."""

    @metric_partial(
        engine=SparkDFExecutionEngine,
        partial_fn_type=MetricPartialFunctionTypes.AGGREGATE_FN,
        domain_type=MetricDomainTypes.TABLE,
    )
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> tuple[Column | OfKey | OwnAggregate | gx_private.OverProjection, dict[str, Any], dict[str, Any]]:
        # one column order per pass (Spark reuses its compiled code); the keys and the object aggregates apart
        gx_private.resolve_metric_bundles(execution_engine, (OfKey, OwnAggregate), apart_queries)
        df, compute_kwargs, accessor_kwargs = execution_engine.get_compute_domain(
            metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE
        )
        columns = Columns.of(df)
        key = (cls, type(df), columns, frozen(metric_value_kwargs), frozen(metrics))
        column = BUILT.get(key, lambda: _partial(cls.aggregate(columns, metric_value_kwargs, metrics), type(df)))
        return column, compute_kwargs, accessor_kwargs

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Partial:
        raise NotImplementedError


def _partial(aggregate: Partial, kind: type[DataFrame]) -> Column | OfKey | OwnAggregate | gx_private.OverProjection:
    return column_of(aggregate, kind) if isinstance(aggregate, Sql) else aggregate


def over_once(columns: Columns, build: Callable[[dict[str, Sql] | None], Sql]) -> Sql | gx_private.OverProjection:
    """The aggregate ``build`` makes with the per-row values its kind computes once (:meth:`On.once`) read from
    columns below the pass's aggregate; as before (each computed in the aggregate) when it has none, or when a
    name would be a batch column's."""
    below: dict[str, Sql] = {}
    aggregate = build(below)
    if not below:
        return aggregate
    if any(columns.find(name) is not None for name in below):
        return build(None)
    named = tuple((name, value.column(name)) for name, value in below.items())
    return gx_private.OverProjection(aggregate.column(), named)


@dataclass(frozen=True)
class OfKey:
    """A key-based metric's partial: instead of a column of the shared ``df.agg``, what it reads from
    its key's counts (:func:`apart_queries`)."""

    key: Key | None
    """None: a column it cannot measure (the value is None; the expectation says why)."""
    read: Callable[[KeyCounts], int]


@dataclass(frozen=True, eq=False)  # a Column has no equality of its own
class OwnAggregate:
    """An object aggregate's partial (:attr:`~dqx_gx.spark.kinds.SparkKind.object_aggregate`): instead of a
    column of the shared ``df.agg``, one of a ``df.agg`` of the bundle's object aggregates."""

    column: Column


Partial: TypeAlias = "Sql | OfKey | OwnAggregate | gx_private.OverProjection"  # gx_private may be importing us
"""What an aggregate metric gives its pass: a column of the shared ``df.agg``, or what stands for one."""


def apart_queries(df: DataFrame, wanted: list[OfKey | OwnAggregate]) -> list[gx_private.ApartQuery]:
    """The queries over ``df`` that answer a bundle's partials set apart, the key grouping first (the
    longer, which runs beside the bundle's ``df.agg``): every key grouped in one query (more only past
    :data:`~dqx_gx.spark.keys.MAX_COLUMNS` key columns), every object aggregate in one ``df.agg``. Each runs
    on whatever thread it is handed to with the caller's Spark job properties."""
    of_keys = [i for i, of in enumerate(wanted) if isinstance(of, OfKey)]
    own = [i for i, of in enumerate(wanted) if isinstance(of, OwnAggregate)]
    keyed = [of for of in wanted if isinstance(of, OfKey)]
    columns = [of.column for of in wanted if isinstance(of, OwnAggregate)]

    def counted() -> list[int | None]:
        counts: dict[Key, KeyCounts] = {}
        for keys in in_groupings(tuple(dict.fromkeys(of.key for of in keyed if of.key is not None))):
            query = BUILT.get((key_query, type(df), keys), partial(key_query, keys))
            counts |= zip(keys, key_counts(df, query), strict=True)
        return [None if of.key is None else of.read(counts[of.key]) for of in keyed]

    def aggregated() -> list[Any]:
        (row,) = df.agg(*columns).collect()
        return [convert_to_json_serializable(value) for value in row]  # as GX's bundle does

    queries: list[gx_private.ApartQuery] = []
    if of_keys:
        queries.append((of_keys, as_caller(df, counted)))
    if own:
        queries.append((own, as_caller(df, aggregated)))
    return queries


class NumRows(Aggregate):
    metric_name = NUM_ROWS

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Sql:
        return num_rows()


class UncastValues(Aggregate):
    """Values of a column read as text that did not cast to its declared type (docs/semantics.md, 'Data in'); NULL for a
    typed batch. Rides the first pass."""

    metric_name = UNCAST_VALUES
    value_keys = ("column",)

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Sql:
        return uncast_count(columns, kwargs["column"])


class KindAggregate(Aggregate):
    """The declared aggregate of a kind (``kind`` plus the metric's arguments); NULL when it cannot be measured."""

    metric_name = FIRST_PASS
    value_keys: tuple[str, ...] = (
        "kind",
        *dict.fromkeys(name for kind in KINDS.values() for name in kind.argument_names if name != "scale"),
        "now",
        SAMPLED_IN_PASS,
    )
    """The kind and every argument a kind's metric may be given (:func:`measured`), with the run's moment and
    whether the rule's samples are taken in the same pass."""
    result_type: str | None = None
    """The Spark type of the result; None: the kind's own."""

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Partial:
        kind = KINDS[kwargs["kind"]]
        on = measurable(kind, columns, kwargs)
        if on is None:
            return S.null(cls.result_type_of(kind))
        if kwargs.get(SAMPLED_IN_PASS):
            return over_once(columns, lambda below: cls.measure(kind, replace(on, below=below), kwargs, metrics))
        column = cls.measure(kind, on, kwargs, metrics)
        own = cls.metric_name == FIRST_PASS and spark_of(kind).object_aggregate
        return OwnAggregate(column.column()) if own else column

    @classmethod
    def result_type_of(cls, kind: Kind) -> str:
        return cls.result_type or spark_of(kind).result_type

    @classmethod
    def measure(cls, kind: Kind, on: On, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Sql:
        return count_of(kind, on)

    @classmethod
    def waits_for(cls, metric: MetricConfiguration) -> dict[str, MetricConfiguration]:
        """Metrics this aggregate is computed after, besides GX's own dependencies: they decide its pass."""
        return {}

    @classmethod
    def _get_evaluation_dependencies(
        cls,
        metric: MetricConfiguration,
        configuration: Any = None,
        execution_engine: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
    ) -> dict[str, MetricConfiguration]:
        dependencies: dict[str, MetricConfiguration] = super()._get_evaluation_dependencies(
            metric, configuration, execution_engine, runtime_configuration
        )
        return {**dependencies, **cls.waits_for(metric)}


class MarkedRows(KindAggregate):
    """The rows a bound-based kind (custom min/max) marks under the rule's ``interval``: what its
    failed-row samples are drawn from. Rides the first pass."""

    metric_name = MARKED_ROWS
    value_keys = (*KindAggregate.value_keys, "interval")
    result_type = "bigint"

    @classmethod
    def measure(cls, kind: Kind, on: On, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Sql:
        predicate = spark_of(kind).predicate
        assert predicate is not None
        return count_if(predicate(replace(on, interval=Interval(**kwargs["interval"]))))


class MarkedSamples(KindAggregate):
    """Up to ``samples`` of the rows a row-local rule marks (its ``interval`` given, as the gate marks them),
    each the texts :mod:`dqx_gx.spark.samples` shows: a rule's failed-row samples, taken in the first pass
    beside its count (Spark 4.2 and later). NULL when the rule's columns cannot be measured."""

    metric_name = MARKED_SAMPLES
    value_keys = (*MarkedRows.value_keys, "samples", "sample_key", "sensitive")
    result_type = "array<array<string>>"

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Partial:
        kind = KINDS[kwargs["kind"]]
        on = measurable(kind, columns, kwargs)
        if on is None:
            return S.null(cls.result_type_of(kind))
        rows = shown(columns, kwargs["sample_key"], on.metric.columns, frozenset(kwargs["sensitive"]))
        at = replace(on, interval=Interval(**kwargs["interval"]))
        return over_once(
            columns, lambda below: in_pass_samples(rows, marks_of(kind, replace(at, below=below)), kwargs["samples"])
        )


def after_the_first_pass(metric: MetricConfiguration) -> dict[str, MetricConfiguration]:
    """The dependency that puts an aggregate in the second bundle (see :class:`SecondPass`)."""
    return {"second_pass": MetricConfiguration(SecondPass.metric_name, metric.metric_domain_kwargs)}


class KeyAggregate(KindAggregate):
    """A key-based kind's value (distinct counts, duplicates), read from its key's counts: in the first level, by
    the one grouping beside the first ``df.agg``."""

    metric_name = SECOND_PASS

    @classmethod
    def aggregate(cls, columns: Columns, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Partial:
        kind = KINDS[kwargs["kind"]]
        on = measurable(kind, columns, kwargs)
        return OfKey(None if on is None else on.fields, cls.read(kind))

    @classmethod
    def read(cls, kind: Kind) -> Callable[[KeyCounts], int]:
        of_key = spark_of(kind).of_key
        assert of_key is not None, f"{kind.metric} is a second-pass kind without a value from its key"
        return of_key


def _marked(counts: KeyCounts) -> int:
    return counts.marked


class DuplicatedRows(KeyAggregate):
    """The rows a duplicates rule marks (docs/semantics.md, 'Invariant'): every row of a repeated key and, for one
    column, every
    NULL key, which the rule's count (the extra copies) counts as a duplicate. From the same grouping of
    the key as the count, so the run reports the rows the gate marks at no cost of its own."""

    metric_name = DUPLICATED_ROWS

    @classmethod
    def read(cls, kind: Kind) -> Callable[[KeyCounts], int]:
        return _marked


class DistinctValues(TableMetricProvider):
    """The distinct non-NULL values of a :attr:`~dqx_gx.spark.kinds.Pass.OWN` kind's per-row value, sorted:
    one query of its own (``select … where … distinct``), whose result is small by the kind's design
    (completeness: the partition starts in the window). None when the column cannot be measured (the
    expectation says why)."""

    metric_name = OWN_QUERY
    value_keys = KindAggregate.value_keys

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> list[Any] | None:
        kind = KINDS[metric_value_kwargs["kind"]]
        df, on = on_batch(execution_engine, metric_domain_kwargs, kind, metric_value_kwargs)
        if on is None:
            return None
        with own_expressions():
            value = spark_of(kind).aggregate(on).column().alias("value")
            query = df.select(value).where(F.col("value").isNotNull()).distinct()
        return sorted(row[0] for row in query.collect())


class ReferenceAggregate(TableMetricProvider):
    """A :attr:`~dqx_gx.spark.kinds.Pass.REFERENCE` kind's aggregate (foreign keys): the batch joined with
    the referenced dataset's keys, one query of its own. ``{"error": why}`` when the referenced dataset
    was not given to this run or its keys cannot be compared; None when the batch's columns cannot be
    measured (the expectation says why)."""

    metric_name = REFERENCE_QUERY
    value_keys = KindAggregate.value_keys

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> Any:
        kind = KINDS[metric_value_kwargs["kind"]]
        df, on = on_batch(execution_engine, metric_domain_kwargs, kind, metric_value_kwargs)
        if on is None:
            return None
        name = on.metric.reference or ""
        reference = given_reference(name)
        if reference is None:
            return {"error": f"the foreign key was not checked: {not_given(name)}"}
        keys = reference_keys(on.metric, on.fields, reference)
        if isinstance(keys, str):
            return {"error": keys}
        with own_expressions():
            joined = with_found_keys(df, on.fields, reference, keys, FOUND)
            found = replace(on, found=counted(S.named(FOUND)))
            query = joined.agg(spark_of(kind).aggregate(found).column())
        return query.first()[0]  # type: ignore[index]


class RefiningAggregate(KindAggregate):
    """A refined kind's second look (:class:`~dqx_gx.spark.kinds.Refine`), built from its first-pass value.

    It waits for :class:`SecondPass` as well, so GX bundles every refining aggregate of the batch
    into the second ``df.agg``, with GX's map metrics, instead of a ``df.agg`` of its own. That
    ``df.agg`` holds no ``count(DISTINCT)`` (the keys are grouped apart), which a refining aggregate
    (``collect_list``) would turn into a slow object hash aggregate over the expanded rows.
    """

    metric_name = REFINING

    @classmethod
    def result_type_of(cls, kind: Kind) -> str:
        refine = spark_of(kind).refine
        assert refine is not None
        return refine.result_type

    @classmethod
    def measure(cls, kind: Kind, on: On, kwargs: dict[str, Any], metrics: dict[str, Any]) -> Sql:
        refine = spark_of(kind).refine
        assert refine is not None
        return refine.aggregate(on, metrics["first_pass"])

    @classmethod
    def waits_for(cls, metric: MetricConfiguration) -> dict[str, MetricConfiguration]:
        first_pass = MetricConfiguration(FIRST_PASS, metric.metric_domain_kwargs, metric.metric_value_kwargs)
        return {"first_pass": first_pass, **after_the_first_pass(metric)}


class Refined(TableMetricProvider):
    """A refined kind's value, read from its refining aggregate; when that cannot decide it (the
    first pass's hint missed), the kind's exact aggregate runs alone."""

    metric_name = REFINED
    value_keys = KindAggregate.value_keys

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict[str, Any],
        metric_value_kwargs: dict[str, Any],
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any],
    ) -> Any:
        kind = KINDS[metric_value_kwargs["kind"]]
        refine = spark_of(kind).refine
        found = metrics["refining"]
        if refine is None or found is None:  # a column it cannot measure: the expectation says why
            return None
        value = refine.value(kind.metric_of(metric_value_kwargs), found)
        if value is not None:
            return value
        df, on = on_batch(execution_engine, metric_domain_kwargs, kind, metric_value_kwargs)
        if on is None:
            return None
        with own_expressions():
            exact = refine.exact(on).column()
        return convert_to_json_serializable(df.agg(exact).first()[0])  # type: ignore[index]

    @classmethod
    def _get_evaluation_dependencies(
        cls,
        metric: MetricConfiguration,
        configuration: Any = None,
        execution_engine: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
    ) -> dict[str, MetricConfiguration]:
        return {"refining": MetricConfiguration(REFINING, metric.metric_domain_kwargs, metric.metric_value_kwargs)}
