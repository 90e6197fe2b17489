"""The validator thesis's rules and contract format (``specVersion: 0.1.x``), engine-neutral.

A thesis rule (``quality[]`` of its contract, ``validations[]`` of its Validator API) names a rule type, the
columns it applies to, a parameter and up to two severity levels, each with a tolerance. Every (column,
level) pair is one check, and each check is one dqx-gx rule here: the rule types map onto dqx-gx's kinds
and thresholds (docs/contracts.md has the table), the fail level is P0 and the warn level P1. The
contract format's schema becomes properties (``dataType`` → logical type, ``constraint`` → required,
unique), its ``access`` a server; consumer, producer, pricing, tags and service levels are recorded.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from dqx_gx.contract.model import Contract, Property, Source
from dqx_gx.contract.pointer import pointer
from dqx_gx.contract.problems import Problems
from dqx_gx.contract.properties import schema_rules
from dqx_gx.contract.servers import Server
from dqx_gx.contract.source import Document, read_document
from dqx_gx.errors import ContractValidationError, shown, warn_contract
from dqx_gx.kinds import MetricKind
from dqx_gx.rules.metric import Metric, Scalar, Scale
from dqx_gx.rules.rule import ExpectationRule, MetricRule, Rule, RuleOrigin, SchemaCheck, SkippedRule, unique_names
from dqx_gx.rules.threshold import EPSILON, Operator, Threshold

Level = Literal["fail", "warn"]
LEVELS: tuple[Level, ...] = ("fail", "warn")
LEVEL_SEVERITY = {"fail": "P0", "warn": "P1"}
"""The dqx-gx severity of each level: a failed fail-level check rejects the data, a warn-level one warns."""

RULE_TYPES = ("size", "complete", "unique", "min", "max", "mean", "stdev", "allowedValues", "custom")
NUMERIC_TYPES = ("min", "max", "mean", "stdev")
"""Rule types that measure numbers: their columns are read as numbers."""
NO_TOLERANCE = ("allowedValues", "custom")
GREAT_EXPECTATIONS = "greatexpectations"
"""The one ``technology`` a custom rule runs with (compared without case, spaces and underscores)."""

DATA_TYPES = {
    "int": "integer",
    "integer": "integer",
    "tinyint": "integer",
    "smallint": "integer",
    "bigint": "integer",
    "byteint": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "numeric": "number",
    "text": "string",
    "string": "string",
    "mediumtext": "string",
    "char": "string",
    "varchar": "string",
    "enum": "string",
    "date": "date",
    "time": "time",
    "timestamp": "timestamp",
    "datetime": "timestamp",
    "boolean": "boolean",
}
"""The format's ``dataType`` names (any case; its own seven and OpenMetadata's primitive spellings) → logical types."""

CONSTRAINTS = ("NOT_NULL", "UNIQUE", "PRIMARY_KEY", "FOREIGN_KEY")
_SPEC_VERSION = re.compile(r"0\.1\.\d+")
RECORDED = ("consumer", "producer", "pricing", "tags", "serviceLevelAgreements", "dataSharingAgreements", "specific")
"""Parts of the format that are recorded in the contract's metadata, never checked."""


@dataclass(frozen=True)
class ThesisCheck:
    """One check of a thesis rule: the rule's id, the column (None for ``size``), the level, and the dqx-gx
    rule that runs it (its ``id`` is unique in the contract)."""

    rule_id: str
    rule_type: str
    column: str | None
    level: Level
    rule: Rule


def is_thesis(data: Mapping[str, Any]) -> bool:
    """A document in the thesis's format: it has ``specVersion`` (ODCS has ``apiVersion``, the native format not)."""
    return "specVersion" in data


def load_thesis(source: Source | Document) -> Contract:
    """A Contract from the thesis's format (its appendix A): the dataset's schema and its quality rules."""
    document = read_document(source)
    data = document.data
    found = Problems(document)
    version = data.get("specVersion")
    if not isinstance(version, str) or not _SPEC_VERSION.fullmatch(version):
        found.add("specVersion", f"dqx-gx reads the thesis's format 0.1.x, got {shown(version)}")
    for key in ("id", "name", "version"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            found.add(key, "is required: give it as text")
    if data.get("kind") != "DataContract":
        found.add("kind", f"must be DataContract, got {shown(data.get('kind'))}")
    dataset = data.get("dataset")
    if not isinstance(dataset, Mapping) or not isinstance(dataset.get("name"), str) or not dataset.get("name"):
        found.add("dataset.name", "is required: the dataset's name")
        dataset = {}
    properties: list[Property] = []
    columns = dataset.get("schema")
    if not isinstance(columns, list):
        found.add("dataset.schema", "must be a list of columns (name, dataType)")
        columns = []
    for index, column in enumerate(columns):
        with found.collecting(f"dataset.schema[{index}]"):
            properties.append(_property(column))
    declared = _declared(properties, found)
    rules: list[Rule] = [_thesis_sources(rule) for rule in schema_rules(tuple(properties), "dataset.schema", found)]
    rules += _foreign_keys(columns)
    quality = data.get("quality")
    if quality is not None and not isinstance(quality, list):
        found.add("quality", "must be a list of rules")
        quality = []
    for index, entry in enumerate(quality or []):
        with found.collecting(f"quality[{index}]"):
            rules += [check.rule for check in thesis_checks(entry, f"quality[{index}]", "type", declared)]
    servers = _access(data.get("access"), found)
    found.raise_if_any()
    return Contract(
        name=data["name"],
        version=data["version"],
        dataset=dataset["name"],
        format="thesis",
        contract_id=data["id"],
        description=data.get("description") if isinstance(data.get("description"), str) else None,
        owner=data.get("ownerGroup") if isinstance(data.get("ownerGroup"), str) else None,
        tags=tuple(_tags(data.get("tags"))),
        properties=tuple(properties),
        rules=unique_names(rules),
        metadata=MappingProxyType({key: data[key] for key in RECORDED if key in data}),
        origin=document.origin,
        servers=servers,
    )


def thesis_checks(
    entry: Any, where: str, type_key: Literal["type", "ruleType"], declared: frozenset[str] | None = None
) -> list[ThesisCheck]:
    """The checks of one thesis rule at ``where`` (``quality[2]``, ``validations[0]``), its type under
    ``type_key``; ``declared`` (the contract's columns) refuses a column not among them. Raises
    ContractValidationError naming the field (``validations[0].parameter: ...``)."""
    if not isinstance(entry, Mapping):
        raise ContractValidationError(f"{where}: a rule must be a mapping (id, {type_key}, columns, ...)")
    rule_id = entry.get("id")
    if not isinstance(rule_id, str) or not rule_id.strip():
        raise ContractValidationError(f"{where}.id: is required: the rule's id names its results")
    rule_type = entry.get(type_key)
    if rule_type not in RULE_TYPES:
        raise ContractValidationError(
            f"{where}.{type_key}: unknown rule type {shown(rule_type)}; one of {', '.join(RULE_TYPES)}"
        )
    columns = _columns(entry, where, rule_type, declared)
    levels = _levels(entry.get("severity"), where, rule_type)
    described = {
        "origin": RuleOrigin.LIBRARY,
        "dimension": entry.get("dimension") if isinstance(entry.get("dimension"), str) else None,
        "description": entry.get("name") if isinstance(entry.get("name"), str) else None,
        "sources": (pointer(where),),
    }
    if rule_type == "custom":
        build = _custom(entry, where, rule_id, described)
    else:
        parameter = _parameter(entry, where, rule_type)
        build = _declarative(rule_type, parameter, described)
    checks: list[ThesisCheck] = []
    for index, column in enumerate(columns):
        at = where if column is None else f"{where}.columns[{index}]"
        for level, tolerance in levels:
            label = f"{rule_id} ({level})" if column is None else f"{rule_id} ({column}, {level})"
            rule = build(column, level, tolerance, f"{at}.{level}", label)
            checks.append(ThesisCheck(rule_id, rule_type, column, level, rule))
    return checks


def implied_properties(checks: Sequence[ThesisCheck]) -> tuple[Property, ...]:
    """The columns a Validator API workload reads as numbers (it declares no schema): those of numeric rules,
    and those whose allowed values are all numbers (integers when they are all whole)."""
    types: dict[str, str] = {}
    for check in checks:
        column = check.column
        if column is None:
            continue
        rule = check.rule
        if check.rule_type in NUMERIC_TYPES:
            types[column] = "number"
        elif check.rule_type == "allowedValues" and isinstance(rule, ExpectationRule):
            values = rule.kwargs["value_set"]
            if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                types.setdefault(column, "integer")
            elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                types[column] = "number"
    return tuple(Property(name=column, column=column, logical_type=kind) for column, kind in types.items())


# --- the rule types --------------------------------------------------------------------------------------


_Build = Callable[[str | None, Level, float | None, str, str], Rule]
"""Makes the rule of one check from its column, level, tolerance, rule id and name."""


@dataclass(frozen=True)
class _Declarative:
    rule_type: str
    parameter: Any
    described: Mapping[str, Any]

    def __call__(self, column: str | None, level: Level, tolerance: float | None, rule_id: str, name: str) -> Rule:
        fields = {**self.described, "id": rule_id, "name": name, "column": column, "severity": LEVEL_SEVERITY[level]}
        if self.rule_type in BY_GX:
            assert column is not None
            return ExpectationRule(
                **{**fields, "origin": RuleOrigin.GREAT_EXPECTATIONS},
                expectation_type=BY_GX[self.rule_type],
                kwargs=MappingProxyType(_gx_arguments(self.rule_type, column, self.parameter, tolerance)),
            )
        metric, threshold = _measured(self.rule_type, column, self.parameter, tolerance)
        return MetricRule(**fields, metric=metric, threshold=threshold)


BY_GX = {
    "unique": "expect_column_proportion_of_unique_values_to_be_between",
    "allowedValues": "expect_column_distinct_values_to_be_in_set",
}
"""Rule types whose metric is GX's own (the thesis's translation): distinct non-NULL ÷ non-NULL values, and
the sorted distinct non-NULL values."""


def _gx_arguments(rule_type: str, column: str, p: Any, t: float | None) -> dict[str, Any]:
    if rule_type == "unique":
        return {"column": column, "min_value": 1.0 - (t or 0.0)}
    return {"column": column, "value_set": list(p)}


def _declarative(rule_type: str, parameter: Any, described: Mapping[str, Any]) -> _Build:
    return _Declarative(rule_type, parameter, MappingProxyType(dict(described)))


def _measured(rule_type: str, column: str | None, p: Any, t: float | None) -> tuple[Metric, Threshold]:
    """The metric and threshold of one check (docs/contracts.md's table): the thesis's tolerance ``t``
    relaxes the bound by a share of the parameter ``p`` (``|p|·t``: a negative bound is relaxed too)."""
    columns = (column,) if column is not None else ()
    relaxed = abs(p) * t if t is not None else 0.0
    match rule_type:
        case "size":
            if t is None:
                return Metric(MetricKind.NUM_ROWS), Threshold(Operator.MUST_BE, float(p))
            return Metric(MetricKind.NUM_ROWS), Threshold(Operator.BETWEEN, (p * (1 - t), p * (1 + t)))
        case "complete":  # non-NULL values ÷ rows ≥ p  ⟺  NULLs ÷ rows ≤ 1 − p
            least = p - (t or 0.0)
            return Metric(MetricKind.NULL_COUNT, columns, scale=Scale.FRACTION), Threshold(
                Operator.LESS_OR_EQUAL, 1.0 - least
            )
        case "min":
            return Metric(MetricKind.MIN, columns), Threshold(Operator.GREATER_OR_EQUAL, p - relaxed)
        case "max":
            return Metric(MetricKind.MAX, columns), Threshold(Operator.LESS_OR_EQUAL, p + relaxed)
    kind = MetricKind.MEAN if rule_type == "mean" else MetricKind.STDDEV
    if t is None:
        return Metric(kind, columns), Threshold(Operator.MUST_BE, p, tolerance=EPSILON * max(1.0, abs(p)))
    return Metric(kind, columns), Threshold(Operator.BETWEEN, (p - relaxed, p + relaxed))


@dataclass(frozen=True)
class _Custom:
    technology: str
    call: str
    args: Mapping[str, Any]
    described: Mapping[str, Any]

    def __call__(self, column: str | None, level: Level, tolerance: float | None, rule_id: str, name: str) -> Rule:
        fields = {**self.described, "id": rule_id, "name": name, "column": column}
        severity = LEVEL_SEVERITY[level]
        if _squeezed(self.technology) != GREAT_EXPECTATIONS:
            reason = f"technology {self.technology!r} is not run here (dqx-gx runs GreatExpectations custom rules)"
            return SkippedRule(**{**fields, "origin": RuleOrigin.CUSTOM}, severity=severity, reason=reason)  # type: ignore[arg-type]
        kwargs = {"column": column, **self.args} if column is not None else dict(self.args)
        return ExpectationRule(
            **{**fields, "origin": RuleOrigin.GREAT_EXPECTATIONS},
            severity=severity,  # type: ignore[arg-type]
            expectation_type=self.call,
            kwargs=MappingProxyType(kwargs),
        )


def _custom(entry: Mapping[str, Any], where: str, rule_id: str, described: Mapping[str, Any]) -> _Build:
    technology = entry.get("technology")
    if not isinstance(technology, str) or not technology.strip():
        raise ContractValidationError(f"{where}.technology: a custom rule names its technology (GreatExpectations)")
    call = entry.get("call", rule_id)
    if not isinstance(call, str) or not call.strip():
        raise ContractValidationError(f"{where}.call: must name the check to call, got {shown(call)}")
    if entry.get("parameter") is not None:
        raise ContractValidationError(f"{where}.parameter: a custom rule takes its arguments in args, not parameter")
    args = entry.get("args") or {}
    if not isinstance(args, Mapping) or not all(isinstance(key, str) for key in args):
        raise ContractValidationError(f"{where}.args: must be a mapping of argument names to values")
    if "column" in args:
        raise ContractValidationError(f"{where}.args.column: the columns are given in columns, one check each")
    return _Custom(technology, call.strip(), MappingProxyType(dict(args)), MappingProxyType(dict(described)))


def _squeezed(text: str) -> str:
    return re.sub(r"[\s_-]", "", text).lower()


def _columns(
    entry: Mapping[str, Any], where: str, rule_type: str, declared: frozenset[str] | None
) -> tuple[str | None, ...]:
    raw = entry.get("columns")
    if rule_type == "size":
        if raw:
            raise ContractValidationError(f"{where}.columns: size counts the rows of the table: give no columns")
        return (None,)
    if not isinstance(raw, list) or not raw:
        raise ContractValidationError(f"{where}.columns: {rule_type} needs the columns it checks (a list of names)")
    for index, column in enumerate(raw):
        if not isinstance(column, str) or not column:
            raise ContractValidationError(f"{where}.columns[{index}]: must be a column name, got {shown(column)}")
        if declared is not None and column not in declared:
            raise ContractValidationError(
                f"{where}.columns[{index}]: column {column!r} is not declared in dataset.schema"
            )
    if len(set(raw)) != len(raw):
        twice = next(c for c in raw if raw.count(c) > 1)
        raise ContractValidationError(f"{where}.columns: {twice!r} is listed twice")
    return tuple(raw)


def _levels(raw: Any, where: str, rule_type: str) -> list[tuple[Level, float | None]]:
    """The levels a rule is checked at, each with its tolerance: only fail, without one, when it has no severity."""
    if raw is None or raw == {}:
        return [("fail", None)]
    if not isinstance(raw, Mapping):
        raise ContractValidationError(f"{where}.severity: must be a mapping with warn and/or fail")
    unknown = sorted(set(raw) - set(LEVELS))
    if unknown:
        raise ContractValidationError(f"{where}.severity.{unknown[0]}: unknown level; the levels are fail and warn")
    levels: list[tuple[Level, float | None]] = []
    for level in LEVELS:
        if level not in raw:
            continue
        given = raw[level]
        tolerance = given.get("tolerance") if isinstance(given, Mapping) else None
        if given is not None and not isinstance(given, Mapping):
            raise ContractValidationError(f"{where}.severity.{level}: must be a mapping with tolerance")
        if rule_type in NO_TOLERANCE:
            if tolerance is not None:
                raise ContractValidationError(
                    f"{where}.severity.{level}.tolerance: {rule_type} takes no tolerance (give the level without one)"
                )
            levels.append((level, None))
            continue
        if tolerance is None:
            raise ContractValidationError(
                f"{where}.severity.{level}.tolerance: is required (a share of the parameter, e.g. 0.05)"
            )
        if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not math.isfinite(tolerance):
            raise ContractValidationError(
                f"{where}.severity.{level}.tolerance: must be a number, got {shown(tolerance)}"
            )
        if tolerance < 0:
            raise ContractValidationError(f"{where}.severity.{level}.tolerance: must be 0 or more, got {tolerance}")
        levels.append((level, float(tolerance)))
    return levels


def _parameter(entry: Mapping[str, Any], where: str, rule_type: str) -> Any:
    raw = entry.get("parameter")
    at = f"{where}.parameter"
    if rule_type == "unique":
        if raw is not None:
            raise ContractValidationError(f"{at}: unique takes no parameter (every non-NULL value is distinct)")
        return None
    if raw is None:
        raise ContractValidationError(f"{at}: {rule_type} needs a parameter ({_PARAMETERS[rule_type]})")
    if rule_type == "allowedValues":
        if not isinstance(raw, list) or not raw:
            raise ContractValidationError(f"{at}: allowedValues needs a list of the values allowed, got {shown(raw)}")
        for index, value in enumerate(raw):
            if not isinstance(value, str | int | float) or (isinstance(value, float) and not math.isfinite(value)):
                raise ContractValidationError(f"{at}[{index}]: must be text or a number, got {shown(value)}")
        return _distinct(raw)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise ContractValidationError(f"{at}: {rule_type} needs {_PARAMETERS[rule_type]}, got {shown(raw)}")
    if rule_type == "size" and (not isinstance(raw, int) or raw < 0):
        raise ContractValidationError(f"{at}: size needs {_PARAMETERS['size']}, got {shown(raw)}")
    if rule_type == "complete" and not 0 <= raw <= 1:
        raise ContractValidationError(f"{at}: complete needs {_PARAMETERS['complete']}, got {raw}")
    return float(raw) if rule_type != "size" else raw


_PARAMETERS = {
    "size": "a whole number of rows, 0 or more",
    "complete": "the share of non-NULL values, between 0 and 1",
    "min": "a number",
    "max": "a number",
    "mean": "a number",
    "stdev": "a number",
    "allowedValues": "a list of the values allowed",
}


def _distinct(values: list[Scalar]) -> tuple[Scalar, ...]:
    seen: list[Scalar] = []
    for value in values:
        if not any(type(value) is type(known) and value == known for known in seen):
            seen.append(value)
    return tuple(seen)


# --- the contract format ------------------------------------------------------------------------------------


def _property(raw: Any) -> Property:
    if not isinstance(raw, Mapping):
        raise ContractValidationError("a column must be a mapping (name, dataType)")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ContractValidationError("is required: the column's name", key="name")
    data_type = raw.get("dataType")
    logical = DATA_TYPES.get(data_type.lower()) if isinstance(data_type, str) else None
    if logical is None:
        known = ", ".join(sorted({"int", "number", "text", "date", "time", "timestamp", "boolean"}))
        raise ContractValidationError(
            f"column {name!r}: dataType {shown(data_type)} is not one dqx-gx checks ({known}, or an OpenMetadata "
            "primitive type such as bigint, double, varchar)",
            key="dataType",
        )
    constraint = raw.get("constraint")
    if constraint is not None and (not isinstance(constraint, str) or constraint.upper() not in CONSTRAINTS):
        raise ContractValidationError(
            f"column {name!r}: constraint {shown(constraint)} is not one of {', '.join(CONSTRAINTS)}", key="constraint"
        )
    said = constraint.upper() if isinstance(constraint, str) else None
    return Property(
        name=name,
        column=name,
        logical_type=logical,
        required=said in ("NOT_NULL", "PRIMARY_KEY"),
        unique=said == "UNIQUE",
        primary_key=said == "PRIMARY_KEY",
        description=raw.get("description") if isinstance(raw.get("description"), str) else None,
    )


def _declared(properties: list[Property], found: Problems) -> frozenset[str]:
    seen: set[str] = set()
    for index, prop in enumerate(properties):
        if prop.name in seen:
            found.add(f"dataset.schema[{index}].name", f"column {prop.name!r} is declared twice")
        seen.add(prop.name)
    return frozenset(seen)


_DECLARED_BY = {
    SchemaCheck.TYPE: ("", "/dataType"),
    SchemaCheck.REQUIRED: ("/constraint",),
    SchemaCheck.UNIQUE: ("/constraint",),
    SchemaCheck.PRIMARY_KEY: ("/constraint",),
}
"""Where the format declares what a column's schema rules check (for ``dqx-gx coverage``)."""


def _thesis_sources(rule: Rule) -> Rule:
    if rule.schema_check not in _DECLARED_BY:
        return rule
    column = pointer(rule.id.rpartition(".")[0])
    return dataclasses.replace(rule, sources=tuple(column + key for key in _DECLARED_BY[rule.schema_check]))


def _foreign_keys(columns: list[Any]) -> Iterator[Rule]:
    """A FOREIGN_KEY constraint names no referenced dataset, so it cannot be checked: SKIPPED, with the reason."""
    for index, raw in enumerate(columns):
        if isinstance(raw, Mapping) and str(raw.get("constraint", "")).upper() == "FOREIGN_KEY":
            where = f"dataset.schema[{index}].constraint"
            reason = "FOREIGN_KEY names no referenced dataset, so there is nothing to check it against"
            warn_contract(f"Column '{raw.get('name')}' ({where}): {reason}; skipping", stacklevel=3)
            yield SkippedRule(
                id=where,
                name=f"{raw.get('name')} is a foreign key",
                severity="P1",
                origin=RuleOrigin.SCHEMA,
                column=str(raw.get("name")),
                reason=reason,
                sources=(pointer(where),),
            )


def _access(raw: Any, found: Problems) -> tuple[Server, ...]:
    """``access.location`` (+ ``accessConfiguration.pattern``, a regular expression file paths under it match)
    as a local server, where the data is."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        found.add("access", "must be a mapping (location, accessConfiguration)")
        return ()
    location = raw.get("location")
    if location is None:
        return ()
    if not isinstance(location, str) or not location.strip():
        found.add("access.location", f"must be the data's location, got {shown(location)}")
        return ()
    entry: dict[str, Any] = {"server": "access", "type": "local", "path": location}
    configuration = raw.get("accessConfiguration")
    if isinstance(configuration, Mapping):
        pattern = configuration.get("pattern")
        if pattern is not None:
            try:
                re.compile(str(pattern))
            except re.error as exc:
                found.add("access.accessConfiguration.pattern", f"is not a regular expression: {exc}")
            entry["pattern"] = str(pattern)
        for key in ("format", "delimiter"):
            if isinstance(configuration.get(key), str):
                entry[key] = configuration[key]
    return (Server("access", "local", 0, MappingProxyType(entry)),)


def _tags(raw: Any) -> Iterator[str]:
    for tag in raw if isinstance(raw, list) else ():
        name = tag.get("tagFQN") if isinstance(tag, Mapping) else tag
        if isinstance(name, str):
            yield name
