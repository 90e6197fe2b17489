"""Rules: one checkable statement about a dataset, engine-neutral.

Every quality rule, schema property constraint and SLA of a contract becomes
one rule here, so results map one-to-one back to what the contract says. A rule
that cannot run is still a rule (:class:`SkippedRule`), so it is reported,
never dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from dqx_gx.rules.hand_written import MetricSymbol, Validation
from dqx_gx.rules.metric import Metric
from dqx_gx.rules.threshold import Threshold

if TYPE_CHECKING:
    from dqx.common import SeverityLevel


class RuleOrigin(StrEnum):
    """Which part of the contract a rule comes from."""

    LIBRARY = "library"
    """An ODCS library metric (nullValues, rowCount, …)."""
    DQX = "dqx"
    """A ``type: custom, engine: dqx`` rule, or a check of the native format."""
    GREAT_EXPECTATIONS = "greatExpectations"
    """A ``type: custom, engine: greatExpectations`` rule: a GX expectation as written."""
    SCHEMA = "schema"
    """Derived from a property: existence, type, required, unique, primaryKey, logicalTypeOptions."""
    SLA = "sla"
    """The freshness check of the SLA."""
    SQL = "sql"
    CUSTOM = "custom"
    """A custom rule for an engine this project does not run."""
    CHECK = "check"
    """An assertion of a hand-written DQX check function (dqlib's ``@check``), run beside the contract's."""


class SchemaCheck(StrEnum):
    """Which declaration of a property a schema rule checks (its ``id`` ends with the same word)."""

    TYPE = "logicalType"
    REQUIRED = "required"
    UNIQUE = "unique"
    PRIMARY_KEY = "primaryKey"
    OPTION = "logicalTypeOptions"
    ENUM = "enum"
    RELATIONSHIP = "relationships"


@dataclass(frozen=True, kw_only=True)
class RuleInfo:
    """What every rule has: identity, name, severity and where it came from."""

    id: str
    """Where the rule is in the contract, e.g. ``schema[0].properties[2].quality[0]``; unique per contract."""
    name: str
    """The rule's name (the assertion name in results)."""
    severity: SeverityLevel
    origin: RuleOrigin
    dimension: str | None = None
    column: str | None = None
    """The column the rule is about, if any."""
    description: str | None = None
    schema_check: SchemaCheck | None = None
    """For rules derived from a property (origin ``schema``): which of its declarations."""
    sources: tuple[str, ...] = ()
    """JSON pointers (RFC 6901) of what the rule checks in the document (``/schema/0/properties/2/required``):
    one rule may serve several declarations (a primary key over two columns). The loaders fill it;
    ``dqx-gx coverage`` joins the document's elements with the rules on it."""


@dataclass(frozen=True, kw_only=True)
class MetricRule(RuleInfo):
    """Compute a metric and compare it with a threshold (no threshold: only record it)."""

    metric: Metric
    threshold: Threshold | None

    def expression(self) -> str:
        """The assertion in words, as DQX writes it: ``null_count(order_id) = 0``."""
        text = self.metric.describe()
        return f"{text} {self.threshold.describe()}" if self.threshold else text


@dataclass(frozen=True, kw_only=True)
class TypeRule(RuleInfo):
    """The column exists and its type is compatible with the declared logical type."""

    property_name: str
    data_type: DataType | None
    """``None``: only existence is checked (the property declares no logicalType)."""

    def expression(self) -> str:
        if self.data_type is None:
            return f"exists({self.column})"
        return f"type({self.column}) ~ {self.data_type.describe()}"


@dataclass(frozen=True, kw_only=True)
class ExpectationRule(RuleInfo):
    """A GX expectation declared in the contract (``engine: greatExpectations``)."""

    expectation_type: str
    kwargs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def expression(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.expectation_type}({args})"


@dataclass(frozen=True, kw_only=True)
class SqlRule(RuleInfo):
    """A ``type: sql`` rule: a query returning one number, compared with a threshold.

    Runs only when the caller opts in (``allow_sql``), and only as a single read-only
    SELECT over the batch.
    """

    query: str
    threshold: Threshold | None

    def expression(self) -> str:
        text = f"sql({' '.join(self.query.split())})"
        return f"{text} {self.threshold.describe()}" if self.threshold else text


@dataclass(frozen=True, kw_only=True)
class SkippedRule(RuleInfo):
    """A rule that cannot run here; reported as SKIPPED with the reason."""

    reason: str

    def expression(self) -> str:
        return f"skipped: {self.reason}"


@dataclass(frozen=True, kw_only=True)
class CheckRule(RuleInfo):
    """An assertion of a DQX check function (dqlib's ``@check``): a formula over dqlib metrics and a validator.

    Its result names its own check (``check``), not the contract's, and carries dqlib's tags and flags, as
    dqlib's ``collect_results()`` would (docs/semantics.md, 'Hand-written DQX checks').
    """

    check: str
    """The name of the check function's ``@check``."""
    formula: str
    """The asserted expression over :attr:`symbols`, as JSON text (:mod:`dqx_gx.checks.formula`)."""
    symbols: tuple[MetricSymbol, ...]
    validation: Validation
    text: str
    """dqlib's expression of the assertion, as its ``AssertionResult`` gives it: ``x_1/x_2 in [0, 10]``."""
    readable: str
    """The same with each symbol named by its metric, as reports and data docs show it:
    ``null_count(status)/num_rows() in [0, 10]`` (a metric of an earlier day: ``lag(1)(average(price))``)."""
    tags: frozenset[str] = frozenset()
    experimental: bool = False
    required: bool = False
    cost_fp: float | None = None
    cost_fn: float | None = None
    sql: tuple[str, ...] = ()
    """The SQL expressions of its ``custom_sql`` metrics, which run only when SQL is allowed (docs/semantics.md, 'SQL
    rules')."""
    problem: str | None = None
    """Why the assertion cannot be evaluated (its check function raised, it uses what cannot be stored): it
    FAILS with this reason."""

    def expression(self) -> str:
        return self.readable


Rule = MetricRule | TypeRule | ExpectationRule | SqlRule | SkippedRule | CheckRule


def unique_names(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """Rules with repeated names suffixed (``name #2``) so each assertion name identifies one rule."""
    counts: dict[str, int] = {}
    named: list[Rule] = []
    for rule in rules:
        counts[rule.name] = counts.get(rule.name, 0) + 1
        n = counts[rule.name]
        named.append(rule if n == 1 else dataclasses.replace(rule, name=f"{rule.name} #{n}"))
    return tuple(named)


@dataclass(frozen=True)
class DataType:
    """A declared type: an ODCS logicalType (or native type) with what nests inside it.

    ``logical_type`` is one of ODCS's names (string, integer, number, boolean,
    date, timestamp, time, array, object, map, vector) or ``binary`` (native
    ``bytes``). ``options`` carries logicalTypeOptions that narrow the type
    (timestamp ``timezone``/``defaultTimezone``).
    """

    logical_type: str
    items: DataType | None = None
    fields: tuple[tuple[str, DataType | None], ...] = ()
    """Object fields: (name, type or None when the field declares no logicalType)."""
    key: DataType | None = None
    value: DataType | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (stored in GX expectations)."""
        data: dict[str, Any] = {"logical_type": self.logical_type}
        if self.items is not None:
            data["items"] = self.items.to_dict()
        if self.fields:
            data["fields"] = [[name, t.to_dict() if t else None] for name, t in self.fields]
        if self.key is not None:
            data["key"] = self.key.to_dict()
        if self.value is not None:
            data["value"] = self.value.to_dict()
        if self.options:
            data["options"] = dict(self.options)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DataType:
        def inner(key: str) -> DataType | None:
            return cls.from_dict(data[key]) if data.get(key) else None

        return cls(
            logical_type=data["logical_type"],
            items=inner("items"),
            fields=tuple((name, cls.from_dict(t) if t else None) for name, t in data.get("fields", [])),
            key=inner("key"),
            value=inner("value"),
            options=MappingProxyType(dict(data.get("options", {}))),
        )

    def describe(self) -> str:
        match self.logical_type:
            case "array":
                return f"array<{self.items.describe() if self.items else '*'}>"
            case "map":
                key = self.key.describe() if self.key else "*"
                value = self.value.describe() if self.value else "*"
                return f"map<{key}, {value}>"
            case "object" if self.fields:
                inner = ", ".join(f"{n}: {t.describe() if t else '*'}" for n, t in self.fields)
                return f"object<{inner}>"
            case "timestamp" if "timezone" in self.options:
                return "timestamp with time zone" if self.options["timezone"] else "timestamp without time zone"
            case _:
                return self.logical_type
