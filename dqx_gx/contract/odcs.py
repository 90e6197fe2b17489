"""Load ODCS v3.0–v3.2 documents: normalise, validate against the ODCS JSON Schema, build Contracts.

Order matters and is that of docs/semantics.md, 'Contracts in': deprecated forms are normalised first (each
with a ContractWarning), the document is then validated against the official
schema before anything else looks at it, then DQX's own rules apply.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from dqx_gx.contract.jsonschemas import Problem, json_path, odcs_problems
from dqx_gx.contract.model import Contract, Property, SlaLatency, Source, TextRule, sensitive_columns, skipped
from dqx_gx.contract.pointer import located
from dqx_gx.contract.problems import INCIDENTAL, Problems
from dqx_gx.contract.properties import parse_property, schema_rules
from dqx_gx.contract.quality import DQX_ENGINE, RuleContext, parse_quality_rule
from dqx_gx.contract.relationships import SchemaObjects, relationship_rules
from dqx_gx.contract.servers import parse_servers, readable_type
from dqx_gx.contract.sla import freshness_rule, resolve_latency, skipped_freshness
from dqx_gx.contract.source import Document, read_document
from dqx_gx.errors import ContractValidationError, warn_contract
from dqx_gx.rules.rule import MetricRule, Rule, RuleOrigin, SkippedRule, unique_names
from dqx_gx.rules.threshold import OPERATOR_NAMES, parse_threshold

SUPPORTED_API_VERSIONS = ("v3.0.0", "v3.0.1", "v3.0.2", "v3.1.0", "v3.2.0")

ODCS30_RULES = {
    "duplicateCount": "duplicateValues",
    "validValues": "invalidValues",
    "rowCount": "rowCount",
    "nullValues": "nullValues",
    "missingValues": "missingValues",
    "invalidValues": "invalidValues",
    "duplicateValues": "duplicateValues",
}
"""ODCS 3.0 ``rule:`` names → ODCS 3.1 ``metric:`` names."""

LATENCY_PROPERTIES = frozenset({"latency", "ly"})

UNCHECKED_SLA_PROPERTIES = {  # with an element (datacontract-cli's form); without one they are metadata
    "retention": "how long data is kept (the oldest value's age) is not checked yet",
    "frequency": "how often data arrives is not checked (one run sees one batch)",
    "freshness": "datacontract-cli's freshness is not checked; write it as ODCS 'latency' for a freshness check",
}
"""SLA properties that state something about the data but produce no check here: each is SKIPPED with
its reason, a ContractWarning and a lint note, so none is ignored in silence."""


def load_odcs(source: Source | Document) -> list[Contract]:
    """Load an ODCS v3.0–v3.2 document: one Contract per ``schema[]`` object (``Contract.from_odcs``).

    Raises :class:`~dqx_gx.errors.ContractValidationError` naming the field when
    the document is invalid; emits :class:`~dqx_gx.errors.ContractWarning` for
    every rule that cannot run and every deprecated form normalised.
    """
    document = read_document(source)
    found = Problems(document)
    normalised, lifted = _normalise(document.data, found)
    # a contract is never refused for its servers (docs/semantics.md, 'Contracts in'): parsed apart
    normalised.pop("servers", None)
    _validate(normalised, found)
    servers = parse_servers(document.data.get("servers"), document.origin)
    schema_objects = normalised.get("schema")
    schema_objects = schema_objects if isinstance(schema_objects, list) else []
    names = [_names(obj) for obj in schema_objects]
    # a dataset the document declares is read from the contract's own server, if dqx-gx reads its type: no
    # note asks for it
    supplied = frozenset().union(*names) if any(readable_type(s.type) for s in servers) else frozenset()
    contracts = []
    for index, obj in enumerate(schema_objects):
        if not isinstance(obj, dict):
            continue  # the schema check reported it
        with found.collecting(f"schema[{index}]"):
            contracts.append(
                _contract(
                    normalised,
                    index,
                    names=names,
                    supplied=supplied,
                    lifted=lifted,
                    origin=document.origin,
                    found=found,
                )
            )
    found.raise_if_any()
    return [replace(contract, servers=servers) for contract in contracts]


def _names(obj: Any) -> frozenset[str]:
    """The names a schema object is known by: its ``name`` and ``physicalName``."""
    if not isinstance(obj, dict):
        return frozenset()
    return frozenset(n for n in (obj.get("name"), obj.get("physicalName")) if isinstance(n, str) and n)


# --- normalisation ---------------------------------------------------------------------------------


def _normalise(data: dict[str, Any], found: Problems) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Rewrite deprecated forms; lift operators written beside an ``engine: dqx`` implementation.

    Returns the normalised copy and the lifted operators by rule path (each one a lint note,
    see :func:`_lifted_note`).
    """
    doc = copy.deepcopy(data)
    lifted: dict[str, dict[str, Any]] = {}
    for path, rule in _quality_rules(doc):
        label = _rule_label(path, rule)
        if "rule" in rule:
            old = rule["rule"]
            new = ODCS30_RULES.get(old) if isinstance(old, str) else None
            if new is None:
                found.add(f"{path}.rule", f"{old!r} is not an ODCS library rule (known: {', '.join(ODCS30_RULES)})")
                continue
            if "metric" in rule and rule["metric"] != new:
                found.add(path, f"'rule: {old}' and 'metric: {rule['metric']}' disagree; keep only 'metric'")
                continue
            rule["metric"] = new
            del rule["rule"]
            warn_contract(f"{label}: 'rule: {old}' is the ODCS 3.0 form; read as 'metric: {new}'", stacklevel=3)
        if "validValues" in rule:
            arguments = rule.setdefault("arguments", {})
            if not isinstance(arguments, dict) or "validValues" in arguments:
                found.add(path, "validValues given both beside the rule and in arguments; keep arguments.validValues")
                continue
            arguments["validValues"] = rule.pop("validValues")
            warn_contract(
                f"{label}: top-level 'validValues' is deprecated; read as 'arguments.validValues'", stacklevel=3
            )
        if rule.get("type") == "custom" and str(rule.get("engine", "")).lower() == DQX_ENGINE:
            beside = {k: rule.pop(k) for k in OPERATOR_NAMES if k in rule}
            if beside:
                lifted[path] = beside
    return doc, lifted


def _rule_label(path: str, rule: Mapping[str, Any]) -> str:
    return f"{path} (rule '{rule.get('name', path)}')"


def _lifted_note(path: str, rule: Mapping[str, Any], operators: Mapping[str, Any]) -> str:
    """The lint note for operators lifted from beside a rule's implementation."""
    return (
        f"{_rule_label(path, rule)}: operator {', '.join(operators)} sits beside 'implementation' (DQX's form); "
        "other ODCS tools reject it — move it inside the implementation for a portable contract"
    )


def _no_severity_note(path: str, rule: Mapping[str, Any]) -> str:
    """The lint note for a rule without a severity (docs/semantics.md, 'Severities': P1)."""
    return (
        f"{_rule_label(path, rule)}: no severity, so DQX reads it as P1 (warning); other ODCS tools treat a rule "
        "without severity as an error — write 'severity: error' or 'severity: warning'"
    )


def _quality_rules(doc: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every quality rule mapping in the document with its JSON path."""
    schema = doc.get("schema")
    if not isinstance(schema, list):
        return
    for i, obj in enumerate(schema):
        if isinstance(obj, dict):
            yield from _rules_of(obj, f"schema[{i}]")


def _rules_of(element: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    quality = element.get("quality")
    if isinstance(quality, list):
        for j, rule in enumerate(quality):
            if isinstance(rule, dict):
                yield f"{path}.quality[{j}]", rule
    properties = element.get("properties")
    if isinstance(properties, list):
        for k, prop in enumerate(properties):
            if isinstance(prop, dict):
                yield from _rules_of(prop, f"{path}.properties[{k}]")
    if isinstance(element.get("items"), dict):
        yield from _rules_of(element["items"], f"{path}.items")


# --- validation --------------------------------------------------------------------------------------


def _validate(doc: dict[str, Any], found: Problems) -> None:
    """Add the official schema's problems and DQX's own requirements (``status``, the apiVersion)."""
    for problem in odcs_problems(doc):
        message = _odcs_message(doc, problem)
        found.add(problem.location, message if message != problem.text else problem.message + _fix(problem))
    if "status" not in doc:
        found.add("status", "'status' is a required property (DQX requires it): add e.g. 'status: active'")
    api_version = doc.get("apiVersion")
    if isinstance(api_version, str) and api_version not in SUPPORTED_API_VERSIONS:
        found.add(
            "apiVersion",
            f"apiVersion {api_version!r} is not supported; dqx-gx reads ODCS "
            f"{SUPPORTED_API_VERSIONS[0]}–{SUPPORTED_API_VERSIONS[-1]}",
        )


def _fix(problem: Problem) -> str:
    """What to do about a schema problem, where the validator's message does not say it."""
    error = problem.error
    if error.validator == "required":
        return ": add it"
    if error.validator == "enum":
        return ": use one of the listed values"
    return ""


def _odcs_message(doc: Mapping[str, Any], problem: Problem) -> str:
    """A schema problem in DQX's words where DQX has words for it."""
    path = problem.path
    error = problem.error
    if path and path[-1] == "logicalType" and error.validator == "enum":
        prop = _at(doc, path[:-1])
        name = prop.get("name") if isinstance(prop, Mapping) else None
        return f"Property '{name or json_path(path[:-1])}': unknown logicalType {error.instance!r}"
    rule_path = _enclosing_quality_rule(path)
    if rule_path is not None:
        rule = _at(doc, rule_path)
        if isinstance(rule, Mapping):
            label = f"Quality rule '{rule.get('name') or json_path(rule_path)}'"
            try:
                parse_threshold(label, rule)
            except ContractValidationError as exc:
                return str(exc)
            if error.validator == "oneOf" and not any(k in rule for k in OPERATOR_NAMES):
                return f"{label}: needs exactly one operator ({', '.join(OPERATOR_NAMES)})"
    return problem.text


def _enclosing_quality_rule(path: tuple[str | int, ...]) -> tuple[str | int, ...] | None:
    for end in range(len(path) - 1, 0, -1):
        if path[end - 1] == "quality" and isinstance(path[end], int):
            return path[: end + 1]
    return None


def _at(doc: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        try:
            doc = doc[part]
        except (KeyError, IndexError, TypeError):
            return None
    return doc


# --- building --------------------------------------------------------------------------------------


def _contract(
    doc: dict[str, Any],
    index: int,
    *,
    names: list[frozenset[str]],
    supplied: frozenset[str],
    lifted: dict[str, dict[str, Any]],
    origin: str,
    found: Problems,
) -> Contract:
    """One schema object's Contract; each part's problems go to ``found`` (the Contract is then discarded).
    ``supplied``: the datasets the contract's own server gives its foreign keys (no lint note asks for them)."""
    obj = doc["schema"][index]
    path = f"schema[{index}]"
    dataset = obj.get("physicalName") or obj["name"]
    if not dataset.strip():
        found.add(path, "needs a non-blank 'name' or 'physicalName' (the dataset's name)")
    properties = _properties(obj, path, found)
    columns = dict(_named_columns(properties))
    rules: list[Rule] = list(schema_rules(properties, f"{path}.properties", found))
    text_rules: list[TextRule] = []
    notes: list[str] = []
    refused = found.paths()
    sensitive = sensitive_columns(properties)
    for rule_path, raw, prop, element in _rules_with_owner(obj, path, properties):
        if any(p == rule_path or p.startswith((f"{rule_path}.", f"{rule_path}[")) for p in refused):
            continue  # the schema check already said what is wrong with it
        if rule_path in lifted:
            notes.append(_lifted_note(rule_path, raw, lifted[rule_path]))
        ctx = RuleContext(
            path=rule_path,
            prop=prop,
            columns=columns,
            schema_label=f"{path} {obj.get('name')!r}",
            element=element,
            lifted_operators=MappingProxyType(lifted.get(rule_path, {})),
            sensitive=sensitive,
        )
        with found.collecting(rule_path):
            parsed = parse_quality_rule(raw, ctx)
            (text_rules if isinstance(parsed, TextRule) else rules).append(parsed)  # type: ignore[arg-type]
            if not isinstance(parsed, TextRule) and raw.get("severity") is None:
                notes.append(_no_severity_note(rule_path, raw))
    others = frozenset().union(*(n for i, n in enumerate(names) if i != index)) - names[index]
    other_columns = frozenset(
        name
        for i, other in enumerate(doc["schema"])
        if i != index and isinstance(other, dict)
        for prop in other.get("properties") or []
        if isinstance(prop, dict)
        for name in (prop.get("name"), prop.get("physicalName"))
        if isinstance(name, str)
    )
    latency, sla_rules, sla_metadata = _sla(doc, (names[index], others, other_columns), columns, properties, found)
    rules.extend(sla_rules)
    objects = [o if isinstance(o, Mapping) else {} for o in doc["schema"]]
    owners = [(path, obj, None), *_owners(obj, path, properties)]
    rules.extend(relationship_rules(SchemaObjects(objects), index, owners, list(_in_collections(obj, path))))
    rules = [located(rule) for rule in unique_names(rules)]
    notes.extend(
        _reference_note(r)
        for r in rules
        if isinstance(r, MetricRule) and r.metric.reference is not None and r.metric.reference not in supplied
    )
    description = doc.get("description")
    return Contract(
        name=doc.get("name"),
        version=doc["version"],
        dataset=dataset,
        format="odcs",
        schema_name=obj["name"],
        api_version=doc["apiVersion"],
        contract_id=doc["id"],
        status=doc.get("status"),
        description=description.get("purpose") if isinstance(description, Mapping) else description,
        tags=tuple(doc.get("tags") or ()),
        properties=properties,
        rules=tuple(rules),
        text_rules=tuple(text_rules),
        sla_latency=latency,
        sla_metadata=MappingProxyType(sla_metadata),
        metadata=MappingProxyType({k: doc[k] for k in ("domain", "dataProduct", "tenant") if k in doc}),
        lint_notes=tuple(notes),
        origin=origin,
    )


def _properties(obj: Mapping[str, Any], path: str, found: Problems) -> tuple[Property, ...]:
    parsed: list[Property] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(obj.get("properties") or []):
        where = f"{path}.properties[{i}]"
        try:
            prop = parse_property(raw, where)
        except ContractValidationError as exc:
            found.record(where, exc)
            continue  # the schema object is now only read for its other problems
        except INCIDENTAL:
            if not found:
                raise
            continue  # the schema check has refused this property
        for key in {prop.name, prop.column}:
            if key in seen and seen[key] != i:
                found.add(
                    f"{where}.name",
                    f"property name {key!r} is already used by {path}.properties[{seen[key]}]; rename one",
                )
            seen[key] = i
        parsed.append(prop)
    return tuple(parsed)


def _named_columns(
    properties: tuple[Property, ...], prefix: tuple[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """Property name → column, struct fields by their path (``address.zip``)."""
    for prop in properties:
        name, column = (
            (f"{prefix[0]}.{prop.name}", f"{prefix[1]}.{prop.column}") if prefix else (prop.name, prop.column)
        )
        yield name, column
        yield from _named_columns(prop.properties, (name, column))


_Owned = tuple[str, Mapping[str, Any], Property | None, tuple[str, ...] | None]
"""A quality rule's path, text and property, and the way to its value from each element of an array column
(None: not inside one; empty: the array's items)."""


def _rules_with_owner(obj: Mapping[str, Any], path: str, properties: tuple[Property, ...]) -> Iterator[_Owned]:
    """Quality rules in contract order: schema level, then each property's. A struct field's rules are
    owned by the field, addressed by its path; those on an array's items and their fields are measured on
    its elements."""
    for j, raw in enumerate(obj.get("quality") or []):
        yield f"{path}.quality[{j}]", raw, None, None
    for k, (raw_prop, prop) in enumerate(zip(obj.get("properties") or [], properties, strict=True)):
        yield from _owned_rules(raw_prop, prop, f"{path}.properties[{k}]")


def _owned_rules(
    raw: Mapping[str, Any], prop: Property, path: str, *, element: tuple[str, ...] | None = None
) -> Iterator[_Owned]:
    for j, rule in enumerate(raw.get("quality") or []):
        if isinstance(rule, dict):
            yield f"{path}.quality[{j}]", rule, prop, element
    children = raw["properties"] if isinstance(raw.get("properties"), list) else []
    for k, (raw_child, child) in enumerate(zip(children, prop.properties, strict=True)):
        inside = None if element is None else (*element, child.column)
        column = prop.column if element is not None else f"{prop.column}.{child.column}"
        field = replace(child, name=f"{prop.name}.{child.name}", column=column)
        yield from _owned_rules(raw_child, field, f"{path}.properties[{k}]", element=inside)
    if isinstance(raw.get("items"), dict) and prop.items is not None:
        items = replace(prop.items, name=f"{prop.name}[*]", column=prop.column)
        inside = () if element is None else (*element, "*")
        yield from _owned_rules(raw["items"], items, f"{path}.items", element=inside)


def _concerns(entry: Mapping[str, Any], table_names: frozenset[str], other_names: frozenset[str]) -> bool:
    """Whether an SLA entry's element is about this schema object: it names this table, or no other."""
    table = str(entry["element"]).strip().rpartition(".")[0]
    return not table or table in table_names or table not in other_names


def _unchecked_sla(where: str, prop_name: str, entry: Mapping[str, Any]) -> SkippedRule:
    value = "".join(f" {entry[k]}" for k in ("value", "unit") if k in entry)
    name = f"SLA: {prop_name}{value} on {entry['element']}"
    reason = UNCHECKED_SLA_PROPERTIES[prop_name.lower()]
    return skipped(
        f"{where} ({name})",
        reason,
        stacklevel=4,
        id=where,
        name=name,
        severity="P1",
        origin=RuleOrigin.SLA,
        dimension="timeliness",
    )


def _owners(
    raw: Mapping[str, Any], path: str, properties: tuple[Property, ...], prefix: str = ""
) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    """Every property (struct fields too, by their column path) with its raw mapping: where relationships sit."""
    raws = [p for p in raw.get("properties") or [] if isinstance(p, Mapping)]
    if len(raws) != len(properties):
        return  # a property was refused: the load fails with its problem
    for k, (raw_prop, prop) in enumerate(zip(raws, properties, strict=True)):
        where, column = f"{path}.properties[{k}]", f"{prefix}{prop.column}"
        yield where, raw_prop, column
        yield from _owners(raw_prop, where, prop.properties, f"{column}.")


def _in_collections(raw: Mapping[str, Any], path: str, inside: bool = False) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every mapping inside an array's elements or a map's keys and values (and what nests in them), with its path."""
    if inside:
        yield path, raw
    for k, prop in enumerate(raw.get("properties") or []):
        if isinstance(prop, Mapping):
            yield from _in_collections(prop, f"{path}.properties[{k}]", inside)
    found = raw.get("map")
    entries: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    for where, element in (
        ("items", raw.get("items")),
        ("map.key", entries.get("key")),
        ("map.value", entries.get("value")),
    ):
        if isinstance(element, Mapping):
            yield from _in_collections(element, f"{path}.{where}", True)


def _reference_note(rule: MetricRule) -> str:
    name = rule.metric.reference
    return (
        f"{rule.id} ({rule.name}): checked only when the run is given the dataset {name!r} "
        f"(--reference {name}=PATH); SKIPPED otherwise"
    )


def _sla(
    doc: Mapping[str, Any],
    names: tuple[frozenset[str], frozenset[str], frozenset[str]],
    columns: Mapping[str, str],
    properties: tuple[Property, ...],
    found: Problems,
) -> tuple[SlaLatency | None, list[Rule], dict[str, Any]]:
    table_names, other_names, other_columns = names  # this object's, the others', the others' columns
    partition = next((p.column for p in properties if p.partitioned and p.partition_key_position == 1), None)
    latency: SlaLatency | None = None
    rules: list[Rule] = []
    metadata: dict[str, Any] = {}
    for i, entry in enumerate(doc.get("slaProperties") or []):
        where = f"slaProperties[{i}]"
        prop_name = str(entry["property"])
        if prop_name.lower() not in LATENCY_PROPERTIES:
            key = prop_name if prop_name not in metadata else f"{prop_name}#{i}"
            metadata[key] = {k: v for k, v in entry.items() if k != "property"}
            if (
                prop_name.lower() in UNCHECKED_SLA_PROPERTIES
                and entry.get("element")
                and _concerns(entry, table_names, other_names)
            ):
                rules.append(_unchecked_sla(where, prop_name, entry))
            continue
        with found.collecting(where):
            resolved = resolve_latency(
                entry,
                where,
                default_element=doc.get("slaDefaultElement"),
                table_names=table_names,
                other_table_names=other_names,
                columns_by_property=columns,
                other_columns=other_columns,
                partition_column=partition,
            )
        if found:
            continue
        if resolved.skip_reason is not None:
            rules.append(skipped_freshness(where, resolved.skip_reason))
        elif resolved.latency is not None:
            latency = latency or resolved.latency
            rules.append(freshness_rule(where, resolved.latency))
        # neither: the entry is another schema object's
    return latency, rules, metadata
