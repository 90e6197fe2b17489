"""ODCS properties: parsed into :class:`Property` and turned into schema rules.

A property's declarations are checks too: the column exists with a compatible
type, ``required`` means no NULLs, ``unique`` and ``primaryKey`` mean no
duplicates, and ``logicalTypeOptions`` bound the values. Structural checks are
P0 (DQX raises SchemaValidationError for them); value bounds are P1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import nullcontext, suppress
from dataclasses import replace
from datetime import date, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from dqx_gx.contract.model import SENSITIVE_CLASSES, Property, skipped
from dqx_gx.contract.pointer import pointer, under
from dqx_gx.contract.problems import Problems
from dqx_gx.errors import ContractValidationError
from dqx_gx.kinds import Constraint, ConstraintKind, Metric, MetricKind
from dqx_gx.kinds.params import checked_regex, checked_values
from dqx_gx.rules.rule import DataType, MetricRule, Rule, RuleOrigin, SchemaCheck, SkippedRule, TypeRule
from dqx_gx.rules.threshold import Operator, Threshold, finite_number

if TYPE_CHECKING:
    from dqx.common import SeverityLevel

CHECKABLE_STRING_FORMATS = frozenset({"email", "uuid", "ipv4", "ipv6", "hostname", "uri", "url"})

_NO_VIOLATIONS = Threshold(Operator.MUST_BE, 0.0)

_TYPE_OPTIONS = ("timezone", "defaultTimezone")
"""logicalTypeOptions that are part of the type (checked by the type rule), not bounds on the values."""


def parse_property(raw: Mapping[str, Any], path: str) -> Property:
    """A Property from its (schema-valid) ODCS mapping."""
    logical = raw.get("logicalType")
    options = raw.get("logicalTypeOptions") or {}
    items = raw.get("items")
    map_block = raw.get("map") or {}
    return Property(
        name=raw["name"],
        column=raw.get("physicalName") or raw["name"],
        logical_type=logical,
        physical_type=raw.get("physicalType"),
        required=bool(raw.get("required", False)),
        unique=bool(raw.get("unique", False)),
        primary_key=bool(raw.get("primaryKey", False)),
        primary_key_position=_position(raw.get("primaryKeyPosition")),
        partitioned=bool(raw.get("partitioned", False)),
        partition_key_position=_position(raw.get("partitionKeyPosition")),
        logical_type_options=MappingProxyType(dict(options)),
        items=_nested(items, f"{path}.items") if isinstance(items, Mapping) else None,
        properties=tuple(
            parse_property(child, f"{path}.properties[{i}]") for i, child in enumerate(raw.get("properties") or [])
        ),
        map_key=_nested(map_block.get("key"), f"{path}.map.key"),
        map_value=_nested(map_block.get("value"), f"{path}.map.value"),
        description=raw.get("description"),
        sensitive=is_sensitive(raw),
        **_enum_values(raw, path),
    )


def _enum_values(raw: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A property's valid-value list and where it is: ODCS 3.2 ``enum: [{value: …}]`` (RFC 0033) or
    datacontract-cli's ``customProperties: [{property: enum, value: […]}]``."""
    if isinstance(raw.get("enum"), list):
        values = [entry.get("value") for entry in raw["enum"] if isinstance(entry, Mapping)]
        return {"valid_values": checked_values(values, f"{path}.enum")}
    custom = raw.get("customProperties")
    for i, entry in enumerate(custom if isinstance(custom, list) else []):
        if isinstance(entry, Mapping) and entry.get("property") == "enum":
            value = entry.get("value")
            if isinstance(value, str) and value.lstrip().startswith("["):  # datacontract-cli writes JSON text too
                with suppress(json.JSONDecodeError):  # else refused below, quoting it
                    value = json.loads(value)
            valid = checked_values(value, f"{path}.customProperties[{i}].value (enum)")
            return {"valid_values": valid, "valid_values_at": f"customProperties/{i}"}
    return {}


def is_sensitive(raw: Mapping[str, Any]) -> bool:
    """docs/semantics.md, 'Samples and sensitive columns': ``classification`` restricted/confidential/sensitive/pii (any
    case), a ``pii: true`` custom property (ODCS ``customProperties``, native ``metadata``) or a ``pii`` tag."""
    classification = raw.get("classification")
    if isinstance(classification, str) and classification.strip().lower() in SENSITIVE_CLASSES:
        return True
    tags = raw.get("tags")
    if isinstance(tags, list) and any(isinstance(t, str) and t.strip().lower() == "pii" for t in tags):
        return True
    custom = raw.get("customProperties")
    pairs = (
        [(c.get("property"), c.get("value")) for c in custom if isinstance(c, Mapping)]
        if isinstance(custom, list)
        else []
    )
    metadata = raw.get("metadata")
    if isinstance(metadata, Mapping):
        pairs += list(metadata.items())
    return any(str(key).lower() == "pii" and _truthy(value) for key, value in pairs) or any(
        str(key).lower() == "classification" and str(value).strip().lower() in SENSITIVE_CLASSES for key, value in pairs
    )


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"))


def _nested(raw: Any, path: str) -> Property | None:
    """Array items and map keys/values have no name of their own in ODCS."""
    if not isinstance(raw, Mapping):
        return None
    return parse_property({"name": raw.get("name", path.rsplit(".", 1)[-1]), **raw}, path)


def _position(raw: Any) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1 else None


def data_type(prop: Property) -> DataType | None:
    """The declared type of a property, nested types included; None when undeclared."""
    if prop.logical_type is None:
        return None
    return DataType(
        logical_type=prop.logical_type,
        items=data_type(prop.items) if prop.items else None,
        fields=tuple((child.column, data_type(child)) for child in prop.properties),
        key=data_type(prop.map_key) if prop.map_key else None,
        value=data_type(prop.map_value) if prop.map_value else None,
        options=MappingProxyType({k: v for k, v in prop.logical_type_options.items() if k in _TYPE_OPTIONS}),
    )


def schema_rules(properties: tuple[Property, ...], collection: str, found: Problems | None = None) -> list[Rule]:
    """The rules a schema object's properties declare, in property order.

    ``collection`` is the JSON path of the property list (``schema[0].properties``
    or ``columns``); rule ids extend it. With ``found``, a property's problem is recorded
    there and the other properties are still read.
    """
    rules: list[Rule] = []
    primary_key = _primary_key(properties)
    for index, prop in enumerate(properties):
        where = f"{collection}[{index}]"
        rules.append(_type_rule(prop, where))
        if prop.required or prop in primary_key:
            rules.append(_required_rule(prop, where, "required" if prop.required else "primaryKey"))
        if prop.unique and primary_key != (prop,):
            rules.append(_uniqueness_rule(SchemaCheck.UNIQUE, where, f"{prop.name} is unique", (prop,)))
        with found.collecting(where) if found is not None else nullcontext():
            rules.extend(_option_rules(prop, where))
            rules.extend(_enum_rule(prop, where))
        rules.extend(_nested_rules(prop, where))
    if primary_key:
        first = properties.index(primary_key[0])
        names = ", ".join(p.name for p in primary_key)
        rule = _uniqueness_rule(
            SchemaCheck.PRIMARY_KEY, f"{collection}[{first}]", f"primary key ({names}) is unique", primary_key
        )
        keys = [pointer(f"{collection}[{properties.index(p)}]") for p in primary_key]
        also_unique = [f"{keys[0]}/unique"] if len(primary_key) == 1 and primary_key[0].unique else []
        rules.append(replace(rule, sources=(*(f"{key}/primaryKey" for key in keys), *also_unique)))
    return rules


def _nested_rules(parent: Property, where: str, *, element: tuple[str, ...] | None = None) -> Iterator[Rule]:
    """The declarations of a struct's fields, checked by path (``address.zip``), and of an array's items and
    of their fields, checked on every element (``lines[*].sku``; ``element``: the way from each element of the
    array column, None outside one). Their types are part of the parent's type rule."""
    children = [(f"{where}.properties[{k}]", child) for k, child in enumerate(parent.properties)]
    if parent.items is not None:
        children.append((f"{where}.items", parent.items))
    for child_where, child in children:
        inside: tuple[str, ...] | None
        if child is parent.items:
            inside = () if element is None else (*element, "*")
            prop = replace(child, name=f"{parent.name}[*]", column=parent.column)
            yield from _item_rules(prop, child_where, inside)
        else:
            inside = None if element is None else (*element, child.column)
            column = parent.column if element is not None else f"{parent.column}.{child.column}"
            prop = replace(child, name=f"{parent.name}.{child.name}", column=column)
            yield from _nested_declarations(prop, child_where, inside)
        yield from _nested_rules(prop, child_where, element=inside)


def _item_rules(prop: Property, where: str, element: tuple[str, ...]) -> Iterator[Rule]:
    """An array's ``items`` declarations, each checked on every element: a row breaks one when any element
    does (docs/semantics.md, 'Nested and array items'). ``unique`` items are the array's ``uniqueItems``: no element
    repeats within a row."""
    if prop.required:
        yield _on_items(_required_rule(prop, where, "required"), element)
    if prop.unique:  # the array holding the items (at the way's end but one) has no element twice
        (unique,) = _option_rules(replace(prop, logical_type_options=MappingProxyType({"uniqueItems": True})), where)
        assert isinstance(unique, MetricRule)
        unique = replace(
            unique,
            id=f"{where}.unique",
            name=f"{prop.name} is unique within its array",
            sources=(under(pointer(where), "unique"),),
        )
        yield _on_items(unique, element[:-1]) if element else unique
    for rule in (*_option_rules(prop, where), *_enum_rule(prop, where)):
        yield _on_items(rule, element) if isinstance(rule, MetricRule) else rule


def _on_items(rule: MetricRule, element: tuple[str, ...]) -> MetricRule:
    return replace(rule, metric=replace(rule.metric, items=True, element=element))


def _nested_declarations(prop: Property, where: str, element: tuple[str, ...] | None) -> Iterator[Rule]:
    """A field's declarations: of a struct column's field by its path; of a field inside array elements on
    every element that is there (a NULL element or struct is its own ``required`` rule's business)."""
    if element is not None:
        if prop.required:
            yield _on_items(_required_rule(prop, where, "required"), element)
        if prop.unique:
            why = "a field inside array elements is not checked for uniqueness (within one array, or across rows?)"
            yield _skipped_unique(prop, where, why)
        for rule in (*_option_rules(prop, where), *_enum_rule(prop, where)):
            yield _on_items(rule, element) if isinstance(rule, MetricRule) else rule
        return
    if prop.required:  # NULL in a struct that is there; a NULL struct is its own required rule's business
        yield _required_rule(prop, where, "required", MetricKind.FIELD_NULL_COUNT)
    if prop.unique:
        yield _uniqueness_rule(SchemaCheck.UNIQUE, where, f"{prop.name} is unique", (prop,))
    yield from _option_rules(prop, where)
    yield from _enum_rule(prop, where)


def _skipped_unique(prop: Property, where: str, why: str) -> SkippedRule:
    return skipped(
        f"{where} (property '{prop.name}')",
        f"unique of {prop.name!r}: {why}",
        stacklevel=3,
        id=f"{where}.unique",
        name=f"{prop.name} is unique",
        severity="P0",
        origin=RuleOrigin.SCHEMA,
        schema_check=SchemaCheck.UNIQUE,
        dimension="uniqueness",
        column=prop.column,
        sources=(under(pointer(where), "unique"),),
    )


def _declared(
    prop: Property, rule_id: str, name: str, check: SchemaCheck, *, severity: SeverityLevel, dimension: str
) -> dict[str, Any]:
    """What every rule from one declaration of a property is, besides what it checks."""
    return {
        "id": rule_id,
        "name": name,
        "severity": severity,
        "origin": RuleOrigin.SCHEMA,
        "schema_check": check,
        "dimension": dimension,
        "column": prop.column,
    }


def _required_rule(
    prop: Property, where: str, declared_by: str, kind: MetricKind = MetricKind.NULL_COUNT
) -> MetricRule:
    """No NULLs, declared by ``required`` or by being part of the ``primaryKey``."""
    reason = "required" if declared_by == "required" else "part of the primary key"
    name = f"{prop.name} has no nulls ({reason})"
    return MetricRule(
        **_declared(prop, f"{where}.required", name, SchemaCheck.REQUIRED, severity="P0", dimension="completeness"),
        metric=Metric(kind, (prop.column,)),
        threshold=_NO_VIOLATIONS,
        sources=(under(pointer(where), declared_by),),
    )


def _enum_rule(prop: Property, where: str) -> Iterator[MetricRule | SkippedRule]:
    """The valid-value list as a rule: every non-NULL value is one of them. A schema constraint like
    ``minimum``: NULLs are what ``required`` is about, unlike the ``invalidValues`` metric (docs/semantics.md, 'Enum
    NULLs'). P1, like the other value constraints."""
    if prop.valid_values is None:
        return
    name = f"{prop.name} is one of its enum values"
    if not prop.valid_values:
        yield skipped(
            f"{where} (property '{prop.name}')",
            "its enum lists only null: there is no value to compare with (NULLs are what 'required' is about)",
            stacklevel=2,
            **_declared(prop, f"{where}.enum", name, SchemaCheck.ENUM, severity="P1", dimension="conformity"),
            sources=(f"{pointer(where)}/{prop.valid_values_at}",),
        )
        return
    yield MetricRule(
        **_declared(prop, f"{where}.enum", name, SchemaCheck.ENUM, severity="P1", dimension="conformity"),
        metric=Metric(MetricKind.UNLISTED_COUNT, (prop.column,), values=prop.valid_values),
        threshold=_NO_VIOLATIONS,
        sources=(f"{pointer(where)}/{prop.valid_values_at}",),
    )


def _type_rule(prop: Property, where: str) -> TypeRule:
    declared = data_type(prop)
    name = f"{prop.name} has type {declared.describe()}" if declared else f"{prop.name} exists"
    return TypeRule(
        **_declared(prop, f"{where}.logicalType", name, SchemaCheck.TYPE, severity="P0", dimension="conformity"),
        property_name=prop.name,
        data_type=declared,
        sources=tuple(_type_pointers(prop, pointer(where))),
    )


def _type_pointers(prop: Property, at: str) -> Iterator[str]:
    """What a type rule checks: the property's existence, and with a declared type the type, its time zone
    options and, as :func:`data_type` nests them, its fields', elements', keys' and values' existence and types."""
    yield at
    if prop.logical_type is None:
        return
    yield f"{at}/logicalType"
    yield from (under(at, "logicalTypeOptions", key) for key in _TYPE_OPTIONS if key in prop.logical_type_options)
    nested = [(under(at, "properties", k), field) for k, field in enumerate(prop.properties)]
    nested += [
        (f"{at}/{where}", inner)
        for where, inner in (("items", prop.items), ("map/key", prop.map_key), ("map/value", prop.map_value))
        if inner
    ]
    for inner_at, inner in nested:
        yield from _type_pointers(inner, inner_at)


def _uniqueness_rule(check: SchemaCheck, where: str, name: str, props: tuple[Property, ...]) -> MetricRule:
    columns = tuple(p.column for p in props)
    return MetricRule(
        id=f"{where}.{check.value}",
        name=name,
        severity="P0",
        origin=RuleOrigin.SCHEMA,
        schema_check=check,
        dimension="uniqueness",
        column=columns[0] if len(columns) == 1 else None,
        metric=Metric(MetricKind.DUPLICATE_COUNT, columns),
        threshold=_NO_VIOLATIONS,
    )


def _primary_key(properties: tuple[Property, ...]) -> tuple[Property, ...]:
    """Primary-key properties in key order (primaryKeyPosition, then declaration order)."""
    keyed = [p for p in properties if p.primary_key]
    return tuple(sorted(keyed, key=lambda p: (p.primary_key_position is None, p.primary_key_position or 0)))


def _option_rules(prop: Property, where: str) -> Iterator[Rule]:
    options = dict(prop.logical_type_options)
    declared_as: dict[str, tuple[str, ...]] = {key: (key,) for key in options}
    # ODCS 3.0 wrote exclusiveMinimum/Maximum as booleans that make minimum/maximum strict.
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(options.get(exclusive), bool):
            strict = options.pop(exclusive)
            if bound in options:
                declared_as[exclusive if strict else bound] = (bound, exclusive)
            if strict and bound in options:
                options[exclusive] = options.pop(bound)
    for key, value in options.items():
        if key in _TYPE_OPTIONS:
            continue  # part of the type rule
        rule_id = f"{where}.logicalTypeOptions.{key}"
        declared = _declared(
            prop, rule_id, f"{prop.name} {key} {value}", SchemaCheck.OPTION, severity="P1", dimension="conformity"
        )
        declared["sources"] = tuple(under(pointer(where), "logicalTypeOptions", k) for k in declared_as[key])
        problem = _unsupported_option(prop, key, value)
        if problem is not None:
            yield SkippedRule(**declared, reason=problem)
            continue
        checked = _option_value(prop, key, value, rule_id)
        # a value must match the pattern: NULL does not, as for invalidValues' pattern (docs/semantics.md, 'Counts')
        if key == "pattern":
            metric = Metric(MetricKind.PATTERN_INVALID_COUNT, (prop.column,), pattern=str(checked))
        else:
            metric = Metric(
                MetricKind.VIOLATION_COUNT, (prop.column,), constraint=Constraint(ConstraintKind(key), checked)
            )
        yield MetricRule(**declared, metric=metric, threshold=_NO_VIOLATIONS)


def _unsupported_option(prop: Property, key: str, value: Any) -> str | None:
    """Why an option cannot be checked on Spark, or None when it can."""
    lt = prop.logical_type
    if key == "format":
        if lt == "string" and str(value).lower() in CHECKABLE_STRING_FORMATS:
            return None
        if lt == "string":
            checkable = ", ".join(sorted(CHECKABLE_STRING_FORMATS))
            return f"logicalTypeOptions.format {value!r} has no checkable shape (checkable: {checkable})"
        return (
            f"logicalTypeOptions.format on a {lt} property describes its storage or text form; "
            "there is nothing to check on a typed Spark column"
        )
    if key == "multipleOf" and lt != "integer":
        return "multipleOf is only checked on integer properties (floating-point remainders are inexact)"
    if key in (
        "minProperties",
        "maxProperties",
        "required",
        "elementType",
        "distanceMetric",
        "embeddingModel",
        "embeddingModelVersion",
        "normalized",
    ):
        return f"logicalTypeOptions.{key} is recorded but not checked"
    if key == "uniqueItems" and value is not True:
        return "uniqueItems: false allows anything; nothing to check"
    try:
        ConstraintKind(key)
    except ValueError:
        return f"logicalTypeOptions.{key} is not a known option for logicalType {lt}"
    return None


def _option_value(prop: Property, key: str, value: Any, rule_id: str) -> str | int | float | bool:
    if key == "pattern":
        return checked_regex(value, rule_id)
    if key == "format":
        return str(value).lower()
    if key == "uniqueItems":
        return True
    if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") and prop.logical_type in (
        "date",
        "timestamp",
        "time",
    ):
        return _temporal_bound(prop, key, value, rule_id)
    finite_number(f"{rule_id}: {key}", value)
    return value  # type: ignore[no-any-return]


def _temporal_bound(prop: Property, key: str, value: Any, rule_id: str) -> str:
    text = str(value)
    parse = date.fromisoformat if prop.logical_type == "date" else datetime.fromisoformat
    if prop.logical_type == "time":
        return text
    try:
        parse(text)
    except ValueError:
        raise ContractValidationError(
            f"{rule_id}: {key} {text!r} is not an ISO {prop.logical_type} (e.g. 2024-01-31"
            f"{'' if prop.logical_type == 'date' else 'T12:00:00'})"
        ) from None
    return text
