"""Load contracts in DQX's native YAML format (the format of the DQX SLA spec and dqlib's ``Contract.from_yaml``).

The document is validated against ``schemas/dqx-native-contract.schema.json``;
then column references are checked as dqlib checks them, and columns, checks
and the ``sla:`` block become the same rules an ODCS contract would give.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from dqx_gx.contract.checks import check_metric, check_params, own_bound
from dqx_gx.contract.jsonschemas import own_validator, problems
from dqx_gx.contract.model import Contract, Property, Source, skipped
from dqx_gx.contract.pointer import located, pointer
from dqx_gx.contract.problems import Problems
from dqx_gx.contract.properties import is_sensitive, schema_rules
from dqx_gx.contract.quality import return_scale
from dqx_gx.contract.sla import cron_latency, freshness_rule
from dqx_gx.contract.source import Document, read_document
from dqx_gx.errors import ContractValidationError, warn_contract
from dqx_gx.kinds import CHECKS
from dqx_gx.kinds.words import Check, Format
from dqx_gx.rules.rule import MetricRule, Rule, RuleOrigin, SchemaCheck, unique_names
from dqx_gx.rules.severity import parse_severity
from dqx_gx.rules.threshold import Operator, finite_number, parse_threshold

_SIMPLE_TYPES = {
    "int": "integer",
    "float": "number",
    "decimal": "number",
    "bool": "boolean",
    "string": "string",
    "bytes": "binary",
    "date": "date",
    "time": "time",
    "timestamp": "timestamp",
}

_VALIDATORS = {
    "min": Operator.GREATER_OR_EQUAL,
    "max": Operator.LESS_OR_EQUAL,
    "equals": Operator.MUST_BE,
    "between": Operator.BETWEEN,
    "not_between": Operator.NOT_BETWEEN,
}
"""Native validators and the ODCS operator with the same semantics (dqlib ``_parse_validator``)."""


def load_native(source: Source | Document) -> Contract:
    """A Contract from DQX's native format (``name``/``dataset``/``columns``/``sla``; ``Contract.from_yaml``)."""
    document = read_document(source)
    data = document.data
    found = Problems(document)
    for problem in problems(own_validator("dqx-native-contract"), data):
        found.add(problem.location, problem.message)
    if found:  # the document's shape is wrong: what is built from it would only repeat that
        found.raise_if_any()
    columns = data["columns"]
    properties = tuple(_property(column) for column in columns)
    declared = _declared_columns(properties, found)
    metadata = data.get("metadata") or {}
    partitioned_by = tuple(metadata.get("partitioned_by") or ())
    for i, name in enumerate(partitioned_by):
        with found.collecting(f"metadata.partitioned_by[{i}]"):
            _require_column(declared, name, f"metadata.partitioned_by[{i}]")
    rules: list[Rule] = list(schema_rules(properties, "columns", found))
    for i, check in enumerate(data.get("checks") or []):
        with found.collecting(f"checks[{i}]"):
            rules.append(_table_check(check, f"checks[{i}]", declared))
    for i, column in enumerate(columns):
        for j, check in enumerate(column.get("checks") or []):
            with found.collecting(f"columns[{i}].checks[{j}]"):
                rules.append(_column_check(check, f"columns[{i}].checks[{j}]", properties[i]))
    latency = None
    if data.get("sla") is not None:
        with found.collecting("sla"):
            timestamp_column = metadata.get("timestamp_column")
            if timestamp_column is not None and not partitioned_by:
                _require_column(declared, timestamp_column, "metadata.timestamp_column")
            latency = cron_latency(
                data["sla"]["schedule"],
                finite_number("sla.lag_hours", data["sla"]["lag_hours"]),
                partitioned_by=partitioned_by,
                timestamp_column=timestamp_column,
            )
            rules.append(freshness_rule("sla", latency))
    found.raise_if_any()
    return Contract(
        name=data["name"],
        version=data["version"],
        dataset=data["dataset"],
        format="native",
        description=data["description"],
        owner=data["owner"],
        tags=tuple(data.get("tags") or ()),
        properties=properties,
        rules=tuple(located(_native_sources(rule)) for rule in unique_names(rules)),
        sla_latency=latency,
        sla_metadata=MappingProxyType(dict(data["sla"]) if data.get("sla") else {}),
        metadata=MappingProxyType(dict(metadata)),
        origin=document.origin,
    )


_NATIVE_DECLARATIONS = {SchemaCheck.TYPE: ("", "/type"), SchemaCheck.REQUIRED: ("/nullable",)}
"""Where the native format declares what a column's schema rules check (``type``, ``nullable: false``)."""


def _native_sources(rule: Rule) -> Rule:
    """A schema rule's sources in the native document: its column's ``type`` and ``nullable``."""
    if rule.schema_check not in _NATIVE_DECLARATIONS:
        return rule
    column = pointer(rule.id.rpartition(".")[0])
    return dataclasses.replace(rule, sources=tuple(column + key for key in _NATIVE_DECLARATIONS[rule.schema_check]))


def _declared_columns(properties: tuple[Property, ...], found: Problems) -> frozenset[str]:
    seen: set[str] = set()
    for i, prop in enumerate(properties):
        if prop.name in seen:
            found.add(f"columns[{i}].name", f"column {prop.name!r} is declared twice; rename or remove one")
        seen.add(prop.name)
    return frozenset(seen)


def _require_column(declared: frozenset[str], name: str, where: str) -> None:
    if name not in declared:
        raise ContractValidationError(f"{where}: column {name!r} is not declared in columns")


# --- types --------------------------------------------------------------------------------------------


def _property(raw: Mapping[str, Any]) -> Property:
    prop = _typed_property(raw["name"], raw["type"], required=raw.get("nullable") is False)
    return dataclasses.replace(prop, sensitive=is_sensitive(raw)) if is_sensitive(raw) else prop


def _typed_property(name: str, native_type: Any, *, required: bool = False) -> Property:
    if isinstance(native_type, str):
        return Property(name=name, column=name, logical_type=_SIMPLE_TYPES[native_type], required=required)
    kind = native_type["kind"]
    if kind == "timestamp":
        tz = native_type.get("tz")
        options = {"timezone": True, "defaultTimezone": tz} if tz else {}
        return Property(
            name=name,
            column=name,
            logical_type="timestamp",
            required=required,
            logical_type_options=MappingProxyType(options),
        )
    if kind == "list":
        return Property(
            name=name,
            column=name,
            logical_type="array",
            required=required,
            items=_typed_property("item", native_type["value_type"]),
        )
    if kind == "map":
        return Property(
            name=name,
            column=name,
            logical_type="map",
            required=required,
            map_key=_typed_property("key", native_type["key_type"]),
            map_value=_typed_property("value", native_type["value_type"]),
        )
    return Property(
        name=name,
        column=name,
        logical_type="object",
        required=required,
        properties=tuple(_typed_property(f["name"], f["type"]) for f in native_type["fields"]),
    )


# --- checks ----------------------------------------------------------------------------------------


def _common(check: Mapping[str, Any], where: str, label: str) -> dict[str, Any]:
    return {
        "id": where,
        "name": check["name"],
        "severity": parse_severity(check.get("severity"), label),
        "description": check.get("description"),
    }


def _threshold(check: Mapping[str, Any], label: str) -> Any:
    given = [key for key in _VALIDATORS if key in check]
    if len(given) > 1:
        raise ContractValidationError(f"{label}: specifies more than one validator ({', '.join(given)}); give one")
    operators = {_VALIDATORS[key].value: check[key] for key in given}
    spelling = {_VALIDATORS[key]: key for key in given}
    tolerance = finite_number(f"{label}: tolerance", check.get("tolerance", 1e-9))
    return parse_threshold(label, operators, tolerance=tolerance, spelling=spelling)


def _table_check(check: Mapping[str, Any], where: str, declared: frozenset[str]) -> Rule:
    label = f"Check '{check['name']}'"
    info = _common(check, where, label)
    kind, words = CHECKS[Format.NATIVE_TABLE][check["type"]]
    threshold = _threshold(check, label)
    if words.at_most is not None:
        if threshold is not None:  # dqlib reads the validator (refusing a bad one) and then ignores it
            warn_contract(
                f"{label}: a {words.name} check ignores validators (min/max/equals/between/not_between), as dqlib does",
                stacklevel=3,
            )
        threshold = own_bound(words, check, label)
    columns = _table_columns(words, check, where, declared)
    metric = check_metric(kind, columns, return_scale(check), check_params(kind, words, check, label), label)
    return MetricRule(
        origin=RuleOrigin.DQX,
        dimension=words.dimension,
        column=metric.column,
        metric=metric,
        threshold=threshold,
        **info,
    )


def _table_columns(words: Check, check: Mapping[str, Any], where: str, declared: frozenset[str]) -> tuple[str, ...]:
    """The declared columns a table check names in its column options (``columns``, ``timestamp_column``)."""
    found: list[str] = []
    for option in words.column_options:
        named = check.get(option)
        listed = named if isinstance(named, list) else [] if named is None else [named]
        for i, name in enumerate(listed):
            _require_column(declared, name, f"{where}.{option}" + (f"[{i}]" if isinstance(named, list) else ""))
            found.append(name)
    return tuple(found)


def _column_check(check: Mapping[str, Any], where: str, prop: Property) -> Rule:
    label = f"Check '{check['name']}'"
    info = _common(check, where, label)
    kind, words = CHECKS[Format.NATIVE_COLUMN][check["type"]]
    column = prop.column
    if check.get("case_sensitive") is False:
        reason = "case_sensitive: false is not supported (DQX does not implement it either)"
        return skipped(label, reason, stacklevel=3, origin=RuleOrigin.DQX, column=column, **info)
    # what a native check does not give is read from its column
    fields = check_params(kind, words, check, label, declared=(prop.logical_type, prop.name))
    return MetricRule(
        origin=RuleOrigin.DQX,
        column=column,
        metric=check_metric(kind, (column,), return_scale(check), fields, label),
        threshold=_threshold(check, label),
        **info,
    )
