"""The expectations: one class per declared kind, plus the type rule and SQL rules.

The kind expectations are made from the declarations in :mod:`dqx_gx.kinds.catalog` (and their Spark
halves, :mod:`dqx_gx.spark.kinds`)
(:func:`kind_expectation`), so a kind is declared in one place. Type names follow
GX's convention from the class name (``ExpectDqxNullCount`` → ``expect_dqx_null_count``);
the ``dqx`` keeps them apart from GX's built-ins.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict
from datetime import date, datetime
from typing import Any, ClassVar, Union

from great_expectations.compatibility.pydantic import StrictBool, StrictFloat, StrictInt, StrictStr
from great_expectations.core.suite_parameters import SuiteParameterDict

from dqx_gx.expectations.base import DqxExpectation, Observation, Observed, Unmeasured, rule_id
from dqx_gx.expectations.metrics import (
    BATCH_SCHEMA,
    DUPLICATED_ROWS,
    MARKED_ROWS,
    MARKED_SAMPLES,
    NUM_ROWS,
    SAMPLED_IN_PASS,
    UNCAST_VALUES,
    marked,
    measured,
)
from dqx_gx.expectations.moment import instant
from dqx_gx.kinds import KINDS, Kind, Metric, Scalar, Scale, Value
from dqx_gx.kinds.kind import Marks, Reach, columns_text
from dqx_gx.kinds.params import ALLOW_FUTURE_GAPS, GRANULARITY, LOOKBACK_DAYS
from dqx_gx.rules import partitions
from dqx_gx.rules.details import TABLES, Detail
from dqx_gx.rules.rule import DataType
from dqx_gx.rules.timestamps import epoch_micros
from dqx_gx.spark.columns import type_problem, type_text
from dqx_gx.spark.kinds import Pass, spark_of
from dqx_gx.spark.samples import wanted_in_pass
from dqx_gx.spark.types import type_mismatch

StrictScalar = Union[StrictBool, StrictInt, StrictFloat, StrictStr]  # noqa: UP007 - pydantic v1 needs typing.Union
# text first: GX's now() arrives as wall-clock text, which pydantic would otherwise read as a UTC datetime
Instant = Union[StrictStr, datetime, date, SuiteParameterDict]  # type: ignore[type-arg]  # noqa: UP007 - pydantic v1

_STRICT: dict[Any, Any] = {Scalar: StrictScalar, list[Scalar]: list[StrictScalar]}
"""A kind's argument types as pydantic must hold them: a value compared with keeps its type (``1`` stays
an integer, ``"1"`` text)."""


def _field_types(kind: Kind) -> dict[str, Any]:
    """The expectation's field type of every argument of ``kind`` (:meth:`Kind.argument_types`, and ``now``)."""
    types = {name: _STRICT.get(held, held) for name, held in kind.argument_types.items()}
    return {**types, "now": Instant} if kind.needs_now else types


_GENERIC_DEFAULTS: dict[str, Any] = {"scale": "count", "items": False, "element": []}
"""The defaults of the arguments every kind of a sort takes (a stored suite leaves out a default)."""


class _Arguments(Mapping[str, Any]):
    """An expectation's fields read as they are, for :meth:`Kind.metric_of`, which reads a few: a run asks an
    expectation for its metric two or three times, and a pydantic dump of every field each time cost ~0.1 ms."""

    def __init__(self, expectation: DqxExpectation) -> None:
        self._expectation = expectation

    def __getitem__(self, name: str) -> Any:
        if name not in self._expectation.__fields__:
            raise KeyError(name)
        return getattr(self._expectation, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._expectation.__fields__)

    def __len__(self) -> int:
        return len(self._expectation.__fields__)


class KindExpectation(DqxExpectation):
    """A rule on a declared kind: the kind's metric, read back as its :class:`~dqx_gx.kinds.Value` says."""

    kind: ClassVar[Kind]

    @property
    def metric(self) -> Metric:
        return self.kind.metric_of(_Arguments(self))

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        metric = self.metric
        name, kwargs = measured(self.kind, metric)
        spark = spark_of(self.kind)
        if spark.reads_now:
            moment = self.moment()
            if moment is None:  # nothing to measure: observe says why
                return {}
            kwargs = {**kwargs, "now": epoch_micros(moment)}
        if spark.pass_ is Pass.OWN:  # its own query, and nothing from the shared passes
            return {name: kwargs}
        needed = {name: kwargs}
        if self.kind.value is Value.ROWS and metric.scale is not Scale.COUNT:  # a share of all rows
            needed[NUM_ROWS] = {}
        if self.marks_by_bounds:
            needed[MARKED_ROWS] = marked(self.kind, metric, self.interval)
        if self.kind.marks_by_key:
            needed[DUPLICATED_ROWS] = kwargs
        if (wanted := wanted_in_pass()) is not None and self.samples_in_pass and rule_id(self.meta) in wanted.rules:
            needed[MARKED_SAMPLES] = {**kwargs, "interval": asdict(self.interval), **wanted.value_kwargs()}
            if self.kind.value is Value.ROWS:  # its count and the samples' filter read one per-row predicate
                needed[name] = {**kwargs, SAMPLED_IN_PASS: True}
        return needed

    @property
    def samples_in_pass(self) -> bool:
        """A rule that can fail whose marks read the row alone (no other rows' keys, no referenced dataset):
        its failed-row samples can ride the first pass (:mod:`dqx_gx.spark.samples`)."""
        marks = self.kind.marks
        local = isinstance(marks, Marks) and marks.reach in (Reach.ROW, Reach.BOUNDS)
        bounded = self.min_value is not None or self.max_value is not None
        return local and bounded and spark_of(self.kind).pass_ is Pass.FIRST

    @property
    def marks_by_bounds(self) -> bool:
        """A bound-based kind (custom min/max) with bounds: it counts the rows it marks, for samples."""
        marks = self.kind.marks
        bounded = self.min_value is not None or self.max_value is not None
        return isinstance(marks, Marks) and marks.reach is Reach.BOUNDS and bounded

    def observe(self, metrics: dict[str, Any]) -> Observation:
        metric = self.metric
        for name in metric.columns:
            field = self.field(metrics, name)
            if isinstance(field, Unmeasured):
                return field
            if problem := type_problem(self.kind, metric, field, metrics[BATCH_SCHEMA]):
                return Unmeasured(problem)
        if self.kind.needs_now and self.moment() is None:
            return Unmeasured(f"'now' gives no moment to measure from: {getattr(self, 'now', None)!r}")
        wanted = wanted_in_pass()
        if wanted is not None and metrics.get(MARKED_SAMPLES) is not None and (rule := rule_id(self.meta)):
            wanted.take(rule, metrics[BATCH_SCHEMA], metric.columns, metrics[MARKED_SAMPLES])
        raw = metrics[measured(self.kind, metric)[0]]
        if isinstance(raw, dict) and "error" in raw:  # a referenced dataset missing or not comparable
            return Unmeasured(raw["error"])
        what = f"{self.kind.name}({columns_text(metric)})"
        match self.kind.value:
            case Value.ROWS:
                if raw is None:
                    return Unmeasured(no_count(what))
                observed = self.scaled(int(raw), metrics.get(NUM_ROWS, 0), metric.scale, what)
                if isinstance(observed, Observed) and self.kind.row_level:
                    marks = metrics[DUPLICATED_ROWS] if self.kind.marks_by_key else raw
                    return Observed(observed.value, {"rows_marked": int(marks)})
                return observed
            case Value.COUNT:
                return Observed(int(raw)) if raw is not None else Unmeasured(no_count(what))
            case Value.NUMBER:
                value = floating(raw, what)
                if self.marks_by_bounds and isinstance(value, Observed) and metrics.get(MARKED_ROWS) is not None:
                    return Observed(value.value, {"rows_marked": int(metrics[MARKED_ROWS])})
                return value
            case Value.GAPS:
                return self.gaps(raw, metric)
            case _:  # Value.AGE
                return self.age(raw, metric)

    def moment(self) -> datetime | None:
        """The UTC moment of this run (:mod:`dqx_gx.expectations.moment`), once GX has filled in ``now``."""
        return instant(getattr(self, "now", None))

    def age(self, newest: Any, metric: Metric) -> Observation:
        """Hours between the run-time parameter ``now`` and the measured instant (epoch microseconds, UTC)."""
        if newest is None:
            return Unmeasured(f"freshness_hours({metric.column}) has no value: no non-null values in the batch")
        now = self.moment()
        assert now is not None
        age = (epoch_micros(now) - int(newest)) / 3_600_000_000
        return Observed(age, {"now": now.isoformat()})

    def gaps(self, starts: list[int], metric: Metric) -> Observation:
        """The expected partitions of the window ending at ``now`` that no row fills (docs/semantics.md,
        'Completeness'); the result
        names the first few."""
        now = self.moment()
        assert now is not None
        granularity = partitions.Granularity(GRANULARITY.of(metric))
        span = partitions.window(now, granularity, LOOKBACK_DAYS.of(metric))
        present = (partitions.from_micros(start) for start in starts)
        missing = partitions.missing_partitions(span, present, allow_future_gaps=ALLOW_FUTURE_GAPS.of(metric))
        shown = tuple((partitions.partition_text(p, granularity),) for p in missing[: partitions.SHOWN_MISSING])
        return Observed(
            len(missing),
            {
                "now": now.isoformat(),
                "expected_partitions": len(span.expected),
                "window": [
                    partitions.partition_text(span.start, granularity),
                    partitions.partition_text(span.end, granularity),
                ],
                TABLES: [Detail("missing partitions", ("partition",), shown, len(missing), one_line=True).to_dict()],
            },
        )

    @classmethod
    def subject(cls, kwargs: dict[str, Any]) -> str:
        return cls.kind.describe(cls.kind.metric_of(kwargs))


def kind_expectation(kind: Kind) -> type[KindExpectation]:
    """The GX expectation class of a declared kind, named as suites store it (``expect_dqx_…``)."""
    types = _field_types(kind)
    defaults = dict(_GENERIC_DEFAULTS)
    for param in kind.params:
        if param.default is not None:
            defaults |= param.arguments(param.default)
    attributes: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"``{kind.name}``: the declared kind (dqx_gx.kinds.catalog) as a GX expectation.",
        "__annotations__": types,
        "kind": kind,
        "success_keys": (*DqxExpectation.bound_keys, *types),
        **{name: defaults[name] for name in types if defaults.get(name) is not None},
    }
    class_name = "".join(part.capitalize() for part in kind.expectation.split("_"))
    return type(class_name, (KindExpectation,), attributes)


EXPECTATIONS: Mapping[str, type[KindExpectation]] = {metric: kind_expectation(kind) for metric, kind in KINDS.items()}
"""Every kind's GX expectation class, by the kind's name."""


def no_count(what: str) -> str:
    return (
        f"{what} has no value: no row has a value to count (an empty batch, or only NULLs); "
        "DQX counts with DuckDB's COUNT_IF, which is NULL then"
    )


def floating(raw: Any, what: str) -> Observation:
    """Read ``[value, is_nan]`` from a floating metric (see ``dqx_gx.spark.expressions.with_nan_flag``)."""
    value, is_nan = raw if isinstance(raw, list | tuple) else (None, False)
    if is_nan:
        return Unmeasured(f"{what} is NaN (the column holds NaN values)")
    if value is None:
        return Unmeasured(f"{what} has no value: the batch has no non-null values to compute it from")
    return Observed(float(value))


class ExpectDqxColumnType(DqxExpectation):
    """The column exists and its Spark type fits the declared logical type (DQX ODCS spec §7)."""

    column: str
    data_type: dict[str, Any] | None = None
    """The declared type (``DataType.to_dict()``); None checks existence only."""
    metric_text: ClassVar[str] = "type({column})"
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "column", "data_type")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {UNCAST_VALUES: {"column": self.column}} if self.data_type is not None else {}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        field = self.field(metrics, self.column)
        if isinstance(field, Unmeasured):
            return field
        details: dict[str, Any] = {}
        if field.name != self.column:
            details["note"] = f"matched column {field.name!r} (case differs from the contract)"
        if self.data_type is not None:
            declared = DataType.from_dict(self.data_type)
            problem = type_mismatch(declared, field.dataType, f"Property '{self.column}'")
            uncast = metrics.get(UNCAST_VALUES)
            if problem:
                details["failure"] = problem
            elif uncast is not None:  # read as text from an untyped source and cast (docs/semantics.md, 'Data in')
                details["uncast_values"] = int(uncast)
                if uncast:
                    details["rows_marked"] = int(uncast)
                    details["failure"] = (
                        f"Property '{self.column}': {uncast} value(s) read as text do not cast to {declared.describe()}"
                    )
        return Observed(type_text(field.dataType), details)


class ExpectDqxSqlValue(DqxExpectation):
    """The value of a contract's SQL query over the batch (``type: sql``, opted in with ``allow_sql``)."""

    query: str
    metric_text: ClassVar[str] = "sql({query})"
    success_keys: ClassVar[tuple[str, ...]] = (*DqxExpectation.bound_keys, "query")

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        return {"dqx.sql_value": {"query": self.query}}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        outcome = metrics["dqx.sql_value"]
        if "error" in outcome:
            return Unmeasured(outcome["error"])
        if outcome["value"] is None:
            return Unmeasured("the query returned NULL")
        return Observed(outcome["value"])
