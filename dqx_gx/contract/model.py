"""The Contract: one dataset's schema, rules and SLA, whatever format it was written in."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from dqx_gx.contract.servers import Server
from dqx_gx.errors import ChecksError, warn_contract
from dqx_gx.kinds import Scalar
from dqx_gx.rules.rule import CheckRule, MetricRule, Rule, SkippedRule

if TYPE_CHECKING:
    from dqx.api import DecoratedCheck

    from dqx_gx.checks.from_contract import ContractChecks

Source = str | os.PathLike[str] | Mapping[str, Any]
"""A contract source: a path, YAML text, or an already parsed mapping."""

SAMPLE_KEY_COLUMNS = 3
"""Declared columns that identify a sample row when the contract has no primary key."""

SENSITIVE_CLASSES = frozenset({"restricted", "confidential", "sensitive", "pii"})
"""ODCS ``classification`` values (any case) whose columns are never shown (docs/semantics.md, 'Samples and sensitive
columns')."""


def _frozen_map() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Property:
    """A column (or nested field) as the contract declares it."""

    name: str
    column: str
    """The name in the data: ``physicalName`` when given, else ``name``."""
    logical_type: str | None = None
    physical_type: str | None = None
    required: bool = False
    unique: bool = False
    primary_key: bool = False
    primary_key_position: int | None = None
    partitioned: bool = False
    partition_key_position: int | None = None
    logical_type_options: Mapping[str, Any] = field(default_factory=_frozen_map)
    items: Property | None = None
    """The element of an array."""
    properties: tuple[Property, ...] = ()
    """The fields of an object."""
    map_key: Property | None = None
    map_value: Property | None = None
    description: str | None = None
    sensitive: bool = False
    """Classified restricted, confidential, sensitive or pii, or marked ``pii`` (docs/semantics.md, 'Samples and
    sensitive columns'): its values are shown as ``***`` in every output."""
    valid_values: tuple[Scalar, ...] | None = None
    """The values it may hold: ODCS 3.2 ``enum`` or datacontract-cli's ``enum`` custom property (NULLs left
    out: ``()`` for a list of NULLs alone); None when it declares none."""
    valid_values_at: str = "enum"
    """Where ``valid_values`` are declared, as a JSON pointer from the property (``enum``, ``customProperties/2``)."""


@dataclass(frozen=True)
class SlaLatency:
    """The freshness the SLA promises: the newest ``timestamp_column`` value is at most this old."""

    max_age_hours: float
    timestamp_column: str
    schedule: str | None = None
    """The cron schedule it was derived from (native ``sla:`` block), if any."""
    period_hours: float | None = None
    lag_hours: float | None = None


@dataclass(frozen=True)
class TextRule:
    """A ``type: text`` quality rule: documentation, never executed."""

    id: str
    name: str
    description: str | None


@dataclass(frozen=True)
class Contract:
    """One dataset's contract: what ``Contract.from_odcs`` makes of each ``schema[]`` object.

    ``rules`` holds every rule in contract order: quality rules, the checks
    derived from the schema properties, and the SLA freshness check; rules that
    cannot run are there too, as :class:`~dqx_gx.rules.rule.SkippedRule`.
    """

    name: str | None
    version: str
    dataset: str
    format: Literal["odcs", "native", "thesis", "checks"]
    """The document's format; ``checks``: no document, the hand-written checks of :func:`~dqx_gx.run_checks`."""
    schema_name: str | None = None
    """The ODCS ``schema[]`` object's ``name`` (``dataset`` prefers its ``physicalName``)."""
    api_version: str | None = None
    contract_id: str | None = None
    status: str | None = None
    description: str | None = None
    owner: str | None = None
    tags: tuple[str, ...] = ()
    properties: tuple[Property, ...] = ()
    rules: tuple[Rule, ...] = ()
    text_rules: tuple[TextRule, ...] = ()
    sla_latency: SlaLatency | None = None
    sla_metadata: Mapping[str, Any] = field(default_factory=_frozen_map)
    metadata: Mapping[str, Any] = field(default_factory=_frozen_map)
    lint_notes: tuple[str, ...] = ()
    """Findings that are neither errors nor warnings (e.g. a non-portable operator placement)."""
    origin: str = "<mapping>"
    servers: tuple[Server, ...] = ()
    """The document's ODCS ``servers`` (where the data is; docs/semantics.md, 'Data in'), shared by its schema
    objects."""

    # The loaders build Contracts, so they sit above this module; ``dqx_gx.contract`` binds them here.
    from_odcs: ClassVar[Callable[[Source], list[Contract]]]
    """Load an ODCS v3.0–v3.2 document: one Contract per ``schema[]`` object
    (:func:`~dqx_gx.contract.odcs.load_odcs`)."""
    from_yaml: ClassVar[Callable[[Source], Contract]]
    """Load a contract in DQX's native format (:func:`~dqx_gx.contract.native.load_native`)."""

    @property
    def check_name(self) -> str:
        """DQX's check name for this contract: ``Contract: {name or dataset}``."""
        return f"Contract: {self.name or self.dataset}"

    @property
    def executable_rules(self) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if not isinstance(rule, SkippedRule))

    @property
    def skipped_rules(self) -> tuple[SkippedRule, ...]:
        return tuple(rule for rule in self.rules if isinstance(rule, SkippedRule))

    @property
    def metric_rules(self) -> tuple[MetricRule, ...]:
        return tuple(rule for rule in self.rules if isinstance(rule, MetricRule))

    @property
    def referenced_datasets(self) -> frozenset[str]:
        """The datasets its foreign keys refer to, by the names a run is given them under."""
        return frozenset(r.metric.reference for r in self.metric_rules if r.metric.reference is not None)

    @property
    def sensitive_columns(self) -> frozenset[str]:
        """The columns whose values no output may show (docs/semantics.md, 'Samples and sensitive columns'): each
        sensitive property, a struct field by its path (``address.zip``), and every struct holding one, since showing
        the struct shows the field."""
        return sensitive_columns(self.properties)

    @property
    def sample_key(self) -> tuple[str, ...]:
        """The columns that identify a failed row in samples: the primary key, else the first declared columns."""
        keyed = sorted(
            (p for p in self.properties if p.primary_key),
            key=lambda p: (p.primary_key_position is None, p.primary_key_position or 0),
        )
        return tuple(p.column for p in keyed) or tuple(p.column for p in self.properties[:SAMPLE_KEY_COLUMNS])

    def property(self, name: str) -> Property | None:
        """The top-level property called ``name``, if declared."""
        return next((p for p in self.properties if p.name == name), None)

    def with_checks(self, checks: Sequence[DecoratedCheck]) -> Contract:
        """This contract with the assertions of hand-written DQX checks (dqlib's ``@check`` functions) as rules
        beside its own (docs/semantics.md, 'Hand-written DQX checks'): a run, its suite and its verdict hold both. Each
        check function is called now, with dqlib's own ``MetricProvider`` and ``Context``; one that raises becomes one
        FAILED rule naming it and the exception. :class:`~dqx_gx.errors.ChecksError` for what dqlib's
        ``VerificationSuite`` would refuse: two checks of one name, two assertions of one name in a check, a
        check or metric of a dataset other than this contract's."""
        from dqx_gx.checks.reading import read_checks  # noqa: PLC0415 - dqlib is imported only for checks

        added = read_checks(checks, dataset=self.dataset)
        known = {rule.id for rule in self.rules}
        repeated = sorted({rule.check for rule in added if isinstance(rule, CheckRule) and rule.id in known})
        if repeated:
            raise ChecksError(f"the contract already holds the assertions of check(s) {', '.join(map(repr, repeated))}")
        return dataclasses.replace(self, rules=(*self.rules, *added))

    def to_checks(self) -> ContractChecks:
        """The contract's rules as dqlib check functions (one ``@check`` named :attr:`check_name`, for
        :attr:`dataset`), to run with dqlib's ``VerificationSuite`` beside hand-written ones, or with
        :func:`~dqx_gx.run_checks`: each gives the values, statuses and severities ``run_contract`` gives. Rules
        that dqlib's ``MetricProvider`` cannot state are left out, each named with why in the list's
        ``left_out`` and in a :class:`~dqx_gx.errors.ContractWarning`."""
        from dqx_gx.checks.from_contract import contract_checks  # noqa: PLC0415 - dqlib is imported only here

        return contract_checks(self.rules, name=self.check_name, dataset=self.dataset)


def sensitive_columns(properties: tuple[Property, ...]) -> frozenset[str]:
    """The columns of ``properties`` whose values no output may show (:attr:`Contract.sensitive_columns`)."""
    return frozenset(_sensitive(properties))


def _sensitive(properties: tuple[Property, ...], prefix: str = "", inherited: bool = False) -> Iterator[str]:
    """Sensitive columns by path; every field of a sensitive struct is sensitive too, and an array or map
    whose elements hold a sensitive value is sensitive as a whole (showing it shows them)."""
    for prop in properties:
        column = f"{prefix}{prop.column}"
        if inherited or _holds_sensitive(prop):
            yield column
        yield from _sensitive(prop.properties, f"{column}.", inherited or prop.sensitive)


def _holds_sensitive(prop: Property) -> bool:
    """Sensitive itself, or holding a sensitive field or element (of an array or map) at any depth."""
    nested = (*prop.properties, prop.items, prop.map_key, prop.map_value)
    return prop.sensitive or any(_holds_sensitive(n) for n in nested if n is not None)


def skipped(label: str, reason: str, *, stacklevel: int = 1, **fields: Any) -> SkippedRule:
    """A rule that cannot run: SKIPPED with its reason and a ContractWarning naming it, never dropped
    (docs/semantics.md, 'Rules that cannot run'). ``stacklevel`` counts from the caller, as in :func:`warnings.warn`."""
    warn_contract(f"{label}: {reason}; skipping", stacklevel=stacklevel + 1)
    return SkippedRule(reason=reason, **fields)
