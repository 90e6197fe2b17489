"""Every element of a contract document, by its JSON pointer, with what it is when no rule is on it.

The walk names each part of the document a reader could ask about: each schema object, property and
declaration, each quality rule, SLA entry, server and relationship, and every other key at the level
of a top-level key or a property field. Whether a rule checks an element is not decided here: the
loaders put rules' ``sources`` on the same pointers, and :mod:`dqx_gx.coverage` joins the two. What
is decided here is the element's status when no rule is on it (``fallback``), with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from dqx_gx.contract.model import SENSITIVE_CLASSES
from dqx_gx.contract.odcs import LATENCY_PROPERTIES
from dqx_gx.contract.pointer import under
from dqx_gx.contract.properties import is_sensitive
from dqx_gx.contract.servers import readable_type
from dqx_gx.sources.servers import supported


class Status(StrEnum):
    """What becomes of an element of the document in a run."""

    ENFORCED = "enforced"
    """Checked by the named expectation(s) of the translated suite."""
    APPLIED = "applied"
    """Shapes the run (where the data is, which values are hidden, a severity) but is no check."""
    DOCUMENTED = "documented"
    """Nothing can check it: it is for people (descriptions, owners, support, text rules)."""
    SKIPPED = "skipped"
    """Could be checked but is not in this run; the reason says why."""


@dataclass(frozen=True)
class Place:
    """One element of the document: its pointer, what it is, and its status when no rule's ``sources`` name it."""

    path: str
    element: str
    fallback: Status
    reason: str | None = None


FOR_PEOPLE = "for people to read; nothing in the data can check it"

_DOCUMENTED = {
    "description": "a description " + FOR_PEOPLE,
    "businessName": "a business name " + FOR_PEOPLE,
    "tags": "labels for catalogues and search",
    "team": "who owns the data: " + FOR_PEOPLE,
    "roles": "access roles: granted by the platform, not checked in the data",
    "support": "support channels " + FOR_PEOPLE,
    "price": "pricing " + FOR_PEOPLE,
    "owner": "the owner " + FOR_PEOPLE,
    "status": "the contract's lifecycle status " + FOR_PEOPLE,
    "domain": "the business domain " + FOR_PEOPLE,
    "dataProduct": "the data product " + FOR_PEOPLE,
    "tenant": "the tenant " + FOR_PEOPLE,
    "customProperties": "custom metadata dqx-gx does not interpret",
    "authoritativeDefinitions": "links to definitions " + FOR_PEOPLE,
    "contractCreatedTs": "when the contract was written " + FOR_PEOPLE,
    "physicalType": "the storage type: the type check compares the logicalType with the data",
    "examples": "example values " + FOR_PEOPLE,
    "criticalDataElement": "a marker " + FOR_PEOPLE,
    "transformLogic": "how the value is derived " + FOR_PEOPLE,
    "transformSourceObjects": "where the value comes from " + FOR_PEOPLE,
    "transformDescription": "how the value is derived " + FOR_PEOPLE,
    "encryptedName": "the name of an encrypted copy " + FOR_PEOPLE,
    "dataGranularityDescription": "the grain of the data " + FOR_PEOPLE,
    "id": "an identifier relationships may refer to; nothing to check in the data",
    "schema": "declares no schema objects: there is no dataset to check",
    "partitioned": "the storage layout " + FOR_PEOPLE,
    "partitionKeyPosition": "the storage layout " + FOR_PEOPLE,
    "primaryKeyPosition": "a key position without primaryKey: true asks nothing",
    "logicalType": "the schema object's kind: its data is checked through its properties",
}
"""Keys that only document, with why; any other key not handled below is documented with a generic reason."""

_IDENTITY = {
    "apiVersion": "the ODCS version the document is validated against",
    "kind": "says the document is an ODCS data contract",
    "id": "identifies the contract in results and the suite (contract_id)",
    "name": "names the check of every result (Contract: NAME) and the suite",
    "version": "recorded with every result and in the suite (contract_version)",
    "dataset": "the dataset the contract is about (the suite's name, what --table reads by default)",
    "slaDefaultElement": "the column an SLA entry without its own element is measured on",
}
"""Top-level keys that shape the run without checking anything."""


def documented(path: str, element: str, key: str) -> Place:
    return Place(path, element, Status.DOCUMENTED, _DOCUMENTED.get(key, f"'{key}' is not interpreted by dqx-gx"))


def odcs_places(data: Mapping[str, Any], schema_indices: list[int]) -> Iterator[Place]:
    """The elements of an ODCS document: its top-level keys, and the schema objects at ``schema_indices``."""
    latency = any(
        isinstance(e, Mapping) and str(e.get("property", "")).lower() in LATENCY_PROPERTIES
        for e in _list(data.get("slaProperties"))
    )
    for key, value in data.items():
        at = under("", key)
        if key == "schema" and isinstance(value, list) and value:
            for i in schema_indices:
                yield from _schema_object(value[i], under(at, i), latency)
        elif key == "servers" and isinstance(value, list):
            yield from (_server(entry, under(at, i)) for i, entry in enumerate(value))
        elif key == "slaProperties" and isinstance(value, list):
            yield from (_sla_entry(entry, under(at, i)) for i, entry in enumerate(value))
        elif key in _IDENTITY and key != "dataset":
            yield Place(at, key, Status.APPLIED, _IDENTITY[key])
        else:
            yield documented(at, key, key)


def native_places(data: Mapping[str, Any]) -> Iterator[Place]:
    """The elements of a DQX native document."""
    for key, value in data.items():
        at = under("", key)
        if key == "columns" and isinstance(value, list):
            for i, column in enumerate(value):
                yield from _native_column(column, under(at, i))
        elif key == "checks" and isinstance(value, list):
            for i, check in enumerate(value):
                name = check.get("name") if isinstance(check, Mapping) else None
                kind = check.get("type") if isinstance(check, Mapping) else None
                yield _rule(under(at, i), f"check '{name}' ({kind})")
        elif key == "sla":
            yield _rule(at, "SLA (cron schedule and lag)")
        elif key == "metadata" and isinstance(value, Mapping):
            for name in value:
                where = under(at, name)
                if name in ("timestamp_column", "partitioned_by"):
                    yield Place(where, f"metadata {name}", Status.APPLIED, "where the SLA's freshness is measured")
                else:
                    yield documented(where, f"metadata {name}", name)
        elif key in _IDENTITY:
            yield Place(at, key, Status.APPLIED, _IDENTITY[key])
        else:
            yield documented(at, key, key)


_THESIS_IDENTITY = {
    "specVersion": "the version of the thesis's format the document is read in",
    "id": "identifies the contract in results and the suite (contract_id)",
    "name": "names the check of every result (Contract: NAME) and the suite",
    "kind": "says the document is a data contract",
    "version": "recorded with the suite (contract_version)",
    "access": "where the data is: its location (and the pattern files there match) is read like a local server",
}
_RECORDED = "recorded in the contract's metadata, not checked"


def thesis_places(data: Mapping[str, Any]) -> Iterator[Place]:
    """The elements of a document in the thesis's format (``specVersion``)."""
    for key, value in data.items():
        at = under("", key)
        if key == "dataset" and isinstance(value, Mapping):
            yield Place(under(at, "name"), "dataset name", Status.APPLIED, _IDENTITY["dataset"])
            for i, column in enumerate(_list(value.get("schema"))):
                name = column.get("name") if isinstance(column, Mapping) else None
                where = under(at, "schema", i)
                yield _rule(where, f"column '{name}'", "declared, but nothing checks it")
                for field in ("dataType", "constraint"):
                    if isinstance(column, Mapping) and field in column:
                        yield _rule(under(where, field), f"column '{name}' {field}")
        elif key == "quality" and isinstance(value, list):
            for i, rule in enumerate(value):
                rule_id = rule.get("id") if isinstance(rule, Mapping) else None
                kind = rule.get("type") if isinstance(rule, Mapping) else None
                yield _rule(under(at, i), f"rule '{rule_id}' ({kind})")
        elif key in _THESIS_IDENTITY:
            yield Place(at, key, Status.APPLIED, _THESIS_IDENTITY[key])
        elif key in ("consumer", "producer", "pricing", "serviceLevelAgreements", "dataSharingAgreements", "specific"):
            yield Place(at, key, Status.DOCUMENTED, _RECORDED)
        else:
            yield documented(at, key, key)


def _shown(value: Any) -> str:
    """A value as YAML writes it (``false``, not ``False``)."""
    return json.dumps(value) if isinstance(value, bool) or value is None else str(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _rule(at: str, element: str, reason: str = "no rule is made of it", fallback: Status = Status.DOCUMENTED) -> Place:
    """An element rules may be on; without one it is ``fallback`` for ``reason``."""
    return Place(at, element, fallback, reason)


def _schema_object(obj: Any, at: str, latency: bool) -> Iterator[Place]:
    if not isinstance(obj, Mapping):
        return
    name = obj.get("name")
    dataset = obj.get("physicalName") or name
    yield Place(at, f"schema object '{name}'", Status.APPLIED, f"the dataset validated: {dataset}")
    for key, value in obj.items():
        where = under(at, key)
        if key == "name":
            continue  # the schema object's own element names it
        if key == "physicalName":
            yield Place(where, f"{name} physicalName", Status.APPLIED, "the name of the dataset in the data")
        elif key == "properties" and isinstance(value, list):
            for k, prop in enumerate(value):
                yield from _property(prop, under(where, k), _name(prop), latency)
        elif key == "quality" and isinstance(value, list):
            yield from _quality(value, where)
        elif key == "relationships" and isinstance(value, list):
            yield from _relationships(value, where)
        else:
            yield documented(where, f"{name} {key}", key)


def _name(prop: Any) -> str:
    return str(prop.get("name")) if isinstance(prop, Mapping) and prop.get("name") else "?"


def _property(raw: Any, at: str, name: str, latency: bool) -> Iterator[Place]:
    if not isinstance(raw, Mapping):
        return
    yield _rule(at, f"property {name}", "its enclosing property declares no logicalType", Status.SKIPPED)
    for key, value in raw.items():
        where = under(at, key)
        label = f"{name} {key}"
        match key:
            case "name":
                continue  # the property's own element names it
            case "logicalType":
                yield _rule(where, f"{label} {value}", "its enclosing property declares no logicalType", Status.SKIPPED)
            case "required" | "unique" | "primaryKey":
                yield _declaration(where, label, key, value)
            case "logicalTypeOptions" if isinstance(value, Mapping):
                for option, bound in value.items():
                    yield _rule(under(where, option), f"{name} {option} {_shown(bound)}", "on its own it asks nothing")
            case "enum":
                yield _rule(where, f"{name} enum")
            case "classification":
                yield _classification(where, label, value)
            case "quality" if isinstance(value, list):
                yield from _quality(value, where)
            case "relationships" if isinstance(value, list):
                yield from _relationships(value, where)
            case "properties" if isinstance(value, list):
                for k, field in enumerate(value):
                    yield from _property(field, under(where, k), f"{name}.{_name(field)}", latency)
            case "items" if isinstance(value, Mapping):
                yield from _property(value, where, f"{name}[]", latency)
            case "map" if isinstance(value, Mapping):
                for part in ("key", "value"):
                    if isinstance(value.get(part), Mapping):
                        yield from _property(value[part], under(where, part), f"{name}<{part}>", latency)
            case "physicalName":
                yield Place(where, label, Status.APPLIED, "the column's name in the data")
            case "primaryKeyPosition" if raw.get("primaryKey"):
                yield Place(where, label, Status.APPLIED, "orders the primary key's columns")
            case "partitioned" | "partitionKeyPosition" if latency and _partition_column(raw):
                yield Place(where, label, Status.APPLIED, "a latency SLA without a usable element is measured on it")
            case "tags" | "customProperties" if is_sensitive({key: value}):
                yield Place(where, label, Status.APPLIED, "marks the column sensitive: its values are never shown")
            case _:
                yield documented(where, label, key)


def _partition_column(raw: Mapping[str, Any]) -> bool:
    """Whether the property is the first partition column (the loader's fallback for a latency SLA)."""
    return raw.get("partitioned") is True and raw.get("partitionKeyPosition") == 1


def _declaration(at: str, label: str, key: str, value: Any) -> Place:
    if value is not True:
        return _rule(at, f"{label} {_shown(value)}", f"{key}: {_shown(value)} asks nothing")
    return _rule(at, label, f"dqx-gx makes no rule of {key} here", Status.SKIPPED)


def _classification(at: str, label: str, value: Any) -> Place:
    if isinstance(value, str) and value.strip().lower() in SENSITIVE_CLASSES:
        return Place(at, f"{label} {value}", Status.APPLIED, "its values are shown as *** in every output")
    return Place(at, f"{label} {value}", Status.DOCUMENTED, "a class whose values may be shown: nothing to apply")


def _quality(rules: list[Any], at: str) -> Iterator[Place]:
    for j, raw in enumerate(rules):
        where = under(at, j)
        if not isinstance(raw, Mapping):
            continue
        kind = raw.get("type", "library")
        engine = f" {raw['engine']}" if kind == "custom" and raw.get("engine") else ""
        metric = raw.get("metric") or raw.get("rule")
        label = f"{kind}{engine} rule '{raw.get('name') or where}'" + (f" ({metric})" if metric else "")
        if kind == "text":
            yield Place(where, label, Status.DOCUMENTED, "a text rule: " + FOR_PEOPLE)
        else:
            yield _rule(where, label)
        if "severity" in raw:
            reason = "how grave a failure is: the level of the rule's results"
            yield Place(under(where, "severity"), f"{label} severity {raw['severity']}", Status.APPLIED, reason)


def _relationships(relations: list[Any], at: str) -> Iterator[Place]:
    for i, raw in enumerate(relations):
        to = raw.get("to") if isinstance(raw, Mapping) else None
        yield _rule(under(at, i), f"relationship to {to}")


def _sla_entry(entry: Any, at: str) -> Place:
    if not isinstance(entry, Mapping):
        return documented(at, "SLA entry", "slaProperties")
    name = entry.get("property")
    said = "".join(f" {entry[k]}" for k in ("value", "unit") if k in entry)
    on = f" on {entry['element']}" if entry.get("element") else ""
    label = f"SLA {name}{said}{on}"
    if str(name).lower() in LATENCY_PROPERTIES:
        return _rule(at, label, "about a schema object not listed")
    return _rule(at, label, "recorded with the results (SLA metadata); dqx-gx does not check it")


def _server(entry: Any, at: str) -> Place:
    if not isinstance(entry, Mapping):
        return documented(at, "server", "servers")
    kind = entry.get("type")
    label = f"server '{entry.get('server')}' ({kind})"
    if readable_type(kind):
        return Place(at, label, Status.APPLIED, "where the data is: dqx-gx validate --server reads it")
    return Place(at, label, Status.DOCUMENTED, f"dqx-gx cannot read a {kind} server (it reads {supported()})")


def _native_column(raw: Any, at: str) -> Iterator[Place]:
    if not isinstance(raw, Mapping):
        return
    name = raw.get("name")
    yield _rule(at, f"column {name}")
    for key, value in raw.items():
        where = under(at, key)
        label = f"{name} {key}"
        if key == "name":
            continue
        if key == "type":
            yield _rule(where, f"{label} {value}" if isinstance(value, str) else label)
        elif key == "nullable":
            yield _rule(where, f"{label} {_shown(value)}", "nullable: true asks nothing")
        elif key == "checks" and isinstance(value, list):
            for j, check in enumerate(value):
                check_name = check.get("name") if isinstance(check, Mapping) else None
                kind = check.get("type") if isinstance(check, Mapping) else None
                yield _rule(under(where, j), f"check '{check_name}' ({kind})")
        elif key in ("metadata", "tags") and is_sensitive({key: value}):
            yield Place(where, label, Status.APPLIED, "marks the column sensitive: its values are never shown")
        else:
            yield documented(where, label, key)
