"""ODCS quality rules → rules: library metrics, DQX custom rules, GX expectations, and the rest.

Each rule of a ``quality:`` list becomes exactly one :class:`Rule` (or a
:class:`TextRule` for documentation). What cannot run here becomes a
:class:`SkippedRule` with its reason and a ContractWarning; nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from dqx_gx.contract.checks import check_metric, check_params, own_bound, refused_operators
from dqx_gx.contract.jsonschemas import own_validator, problems
from dqx_gx.contract.model import Property, TextRule, skipped
from dqx_gx.contract.source import parse_yaml_fragment
from dqx_gx.errors import ContractValidationError
from dqx_gx.kinds import CHECKS, LIBRARY, Kind, Metric, Scale, Value, kind_of
from dqx_gx.kinds.kind import Arity
from dqx_gx.kinds.words import Check, Format, Library
from dqx_gx.rules.rule import ExpectationRule, MetricRule, Rule, RuleOrigin, SkippedRule, SqlRule
from dqx_gx.rules.severity import parse_severity
from dqx_gx.rules.threshold import OPERATOR_NAMES, parse_threshold

DQX_ENGINE = "dqx"
GX_ENGINES = frozenset({"greatexpectations", "great-expectations", "great_expectations", "gx"})


@dataclass(frozen=True)
class RuleContext:
    """Where a quality rule sits in the contract."""

    path: str
    prop: Property | None
    """The property whose ``quality`` list holds the rule; None at schema level."""
    columns: Mapping[str, str]
    """Property name → column name, to resolve names a rule mentions."""
    schema_label: str = "the schema object"
    """How messages name the schema object (``schema[0] 'orders'``)."""
    element: tuple[str, ...] | None = None
    """On the items of an array (``items.quality``: empty) or on a value inside them (``("sku",)``): measured
    on every element, a row counting when any does; None outside arrays."""
    lifted_operators: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Operators written beside ``implementation`` on an ``engine: dqx`` rule."""
    sensitive: frozenset[str] = frozenset()
    """The schema object's sensitive columns (:func:`~dqx_gx.contract.model.sensitive_columns`)."""


def parse_quality_rule(raw: Mapping[str, Any], ctx: RuleContext) -> Rule | TextRule:
    """The rule one ODCS quality entry (already schema-valid) declares."""
    kind = _kind(raw)
    if ctx.element and kind not in (None, "library", "text"):  # inside the elements: a value of each, no column
        name = raw.get("name") or ctx.path
        label = f"Quality rule '{name}'"
        reason = f"a {kind} rule reads columns; inside array elements only library metrics run, on every element"
        return _skip(label, _described(raw, ctx, label), name, _origin(kind, raw), reason)
    parsed = _quality_rule(raw, ctx)
    if ctx.element is None or not isinstance(parsed, MetricRule):
        return parsed  # on an array's items, an SQL or GX rule reads the array column
    on_items = replace(parsed, metric=replace(parsed.metric, items=True, element=ctx.element))
    if ctx.prop is not None and parsed.metric.columns != (ctx.prop.column,):
        reason = (
            f"{parsed.expression()} names other columns than {ctx.prop.name}, so it is not measured on its elements"
        )
    elif kind_of(parsed.metric).on_items:
        return on_items
    else:
        reason = (
            f"{on_items.expression()} is not a count of rows each judged alone, so it cannot be measured on array items"
        )
    described = {
        "id": parsed.id,
        "severity": parsed.severity,
        "dimension": parsed.dimension,
        "description": parsed.description,
    }
    return _skip(
        f"Quality rule '{parsed.name}'",
        described,
        parsed.name,
        parsed.origin,
        reason,
    )


def _kind(raw: Mapping[str, Any]) -> Any:
    """A quality entry's type: ``library`` when it names a metric without one."""
    return raw.get("type") or ("library" if "metric" in raw else None)


def _engine(raw: Mapping[str, Any]) -> str:
    return str(raw.get("engine", ""))


def _origin(kind: Any, raw: Mapping[str, Any]) -> RuleOrigin:
    """Where a rule of this entry comes from, as the rule parsed from it says (a result's tag)."""
    if kind in ("library", "sql"):
        return RuleOrigin(kind)
    engine = _engine(raw).lower()
    if engine == DQX_ENGINE:
        return RuleOrigin.DQX
    return RuleOrigin.GREAT_EXPECTATIONS if engine in GX_ENGINES else RuleOrigin.CUSTOM


def _described(raw: Mapping[str, Any], ctx: RuleContext, label: str) -> dict[str, Any]:
    """What every rule of a quality entry carries, whether it runs or is skipped."""
    return {
        "id": ctx.path,
        "severity": parse_severity(raw.get("severity"), label),
        "dimension": raw.get("dimension"),
        "description": raw.get("description"),
    }


def _quality_rule(raw: Mapping[str, Any], ctx: RuleContext) -> Rule | TextRule:
    kind = _kind(raw)
    name = raw.get("name")
    label = f"Quality rule '{name or ctx.path}'"
    if kind == "text":
        return TextRule(ctx.path, name or ctx.path, raw.get("description"))
    info = _described(raw, ctx, label)
    if kind is None:
        return _skip(
            label, info, name or ctx.path, RuleOrigin.LIBRARY, "has neither a type nor a metric; nothing to run"
        )
    if kind == "library":
        return _library_rule(raw, ctx, label, info)
    if kind == "sql":
        return SqlRule(
            name=name or _derived_name(ctx, "sql"),
            origin=RuleOrigin.SQL,
            column=ctx.prop.column if ctx.prop else None,
            query=raw["query"],
            threshold=parse_threshold(label, raw),
            **info,
        )
    engine = _engine(raw)
    if engine.lower() == DQX_ENGINE:
        return _dqx_rule(raw, ctx, label, info)
    if engine.lower() in GX_ENGINES:
        return _gx_rule(raw, ctx, label, info)
    return _skip(
        label,
        info,
        name or f"{engine} rule",
        RuleOrigin.CUSTOM,
        f"type 'custom' with engine '{engine}' is not executable in DQX",
    )


def _skip(label: str, info: dict[str, Any], name: str, origin: RuleOrigin, reason: str) -> SkippedRule:
    return skipped(label, reason, stacklevel=4, name=name, origin=origin, **info)


# --- library metrics ------------------------------------------------------------------------------


def _library_rule(raw: Mapping[str, Any], ctx: RuleContext, label: str, info: dict[str, Any]) -> Rule:
    metric_name: str = raw["metric"]
    words = LIBRARY[metric_name]
    arguments = raw.get("arguments") or {}
    known_arguments = {word.argument for _, word in words if word.argument}
    unknown = sorted(set(arguments) - known_arguments)
    if unknown:
        known = ", ".join(sorted(known_arguments)) or "none"
        raise ContractValidationError(
            f"{label}: unknown argument(s) {', '.join(unknown)} for metric '{metric_name}' (known: {known})"
        )
    scale = _unit_scale(raw.get("unit"), label, metric_name, words[0][0])
    column = ctx.prop.column if ctx.prop else None
    kind, word = _library_kind(metric_name, words, arguments, label, column)
    if kind.arity is Arity.NONE:
        metric = Metric(kind.metric)
        column = None
    elif kind.arity is Arity.MANY and word.argument in arguments:
        columns = _property_columns(arguments[word.argument], ctx, label)
        metric = Metric(kind.metric, columns, scale=scale)
        column = columns[0] if len(columns) == 1 else None
    elif column is None:
        given = "".join(f" or give arguments.{w.argument}" for k, w in words if k.arity is Arity.MANY and w.argument)
        return _skip(
            label,
            info,
            raw.get("name") or metric_name,
            RuleOrigin.LIBRARY,
            f"metric '{metric_name}' measures a column but sits at schema level with no property; "
            f"put the rule in that property's quality list{given}",
        )
    else:
        metric = _column_library_metric(kind, word, words, column, arguments, scale=scale, label=label)
    return MetricRule(
        name=raw.get("name") or _derived_name(ctx, metric_name),
        origin=RuleOrigin.LIBRARY,
        column=column,
        metric=metric,
        threshold=parse_threshold(label, raw),
        **info,
    )


def _library_kind(
    metric_name: str,
    words: tuple[tuple[Kind, Library], ...],
    arguments: Mapping[str, Any],
    label: str,
    column: str | None,
) -> tuple[Kind, Library]:
    """The kind a library metric computes: the one whose argument is given, else the one that takes
    none (or, when the metric names one kind, that kind); several kinds that each need their argument
    need exactly one given."""
    given = [(kind, word) for kind, word in words if word.argument in arguments]
    plain = [(kind, word) for kind, word in words if word.argument is None]
    if len(given) == 1:
        return given[0]
    if not given and (plain or len(words) == 1):
        return (plain or list(words))[0]
    if column is None:  # at schema level the rule is skipped before its arguments are read
        return words[0]
    either = " or ".join(f"arguments.{word.argument}" for _, word in words if word.argument)
    raise ContractValidationError(f"{label}: metric '{metric_name}' needs exactly one of {either}")


def _column_library_metric(
    kind: Kind,
    word: Library,
    words: tuple[tuple[Kind, Library], ...],
    column: str,
    arguments: Mapping[str, Any],
    *,
    scale: Scale,
    label: str,
) -> Metric:
    """A library metric of one column; its argument (if any) gives the kind's one parameter (values, a
    pattern). Values that leave nothing to compare with (only NULLs) mean the metric's kind that takes no
    argument."""
    if word.argument is None or word.argument not in arguments:
        return Metric(kind.metric, (column,), scale=scale)
    (param,) = kind.params
    value = param.given(arguments[word.argument], f"{label}: arguments.{word.argument}")
    plain = next((k for k, w in words if w.argument is None), None)
    if not value and plain is not None:
        return Metric(plain.metric, (column,), scale=scale)
    return Metric(kind.metric, (column,), scale=scale, params={param.name: value})


def _unit_scale(unit: Any, label: str, metric_name: str, kind: Kind) -> Scale:
    if unit is None or str(unit).strip().lower() == "rows":
        return Scale.COUNT
    if str(unit).strip().lower() in ("percent", "%"):
        if kind.value is not Value.ROWS:
            raise ContractValidationError(f"{label}: unit 'percent' does not apply to metric '{metric_name}'")
        return Scale.PERCENT
    raise ContractValidationError(f"{label}: unit must be 'rows' or 'percent', got: {unit!r}")


def _property_columns(raw: Any, ctx: RuleContext, label: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw):
        raise ContractValidationError(
            f"{label}: arguments.properties must be a non-empty list of property names, got: {raw!r}"
        )
    return tuple(declared_column(ctx, p, label, "arguments.properties") for p in raw)


def declared_column(ctx: RuleContext, name: str, label: str, field: str) -> str:
    """The column of the property a rule names (by name or physical name); a name the schema object
    does not declare is refused at load, not found missing at run time. A schema object that
    declares no properties states no columns to hold the name against."""
    if name in ctx.columns:
        return ctx.columns[name]
    if name in ctx.columns.values() or not ctx.columns:
        return name
    declared = ", ".join(sorted(ctx.columns))
    raise ContractValidationError(
        f"{label}: {field} names property {name!r}, which {ctx.schema_label} does not declare "
        f"(declared: {declared}); declare it or correct the name",
        key=field,
    )


def return_scale(check: Mapping[str, Any]) -> Scale:
    """The scale a DQX check's ``return:`` asks for: ``pct`` is a fraction of the rows, else a count."""
    return Scale.FRACTION if check.get("return") == "pct" else Scale.COUNT


def _derived_name(ctx: RuleContext, what: str) -> str:
    return f"{ctx.prop.name} {what}" if ctx.prop else what


# --- type: custom, engine: dqx ---------------------------------------------------------------------


def _dqx_rule(raw: Mapping[str, Any], ctx: RuleContext, label: str, info: dict[str, Any]) -> Rule:
    implementation = _implementation(raw["implementation"], label)
    if _is_databricks_dqx(implementation):
        databricks_check = implementation.get("check")
        function = databricks_check.get("function") if isinstance(databricks_check, Mapping) else None
        return _skip(
            label,
            info,
            raw.get("name") or _derived_name(ctx, f"dqx {function or 'check'}"),
            RuleOrigin.CUSTOM,
            f"implementation is in the Databricks Labs DQX format (check: {{function: {function}}}), a different "
            "product that also uses engine 'dqx'; dqx-gx runs DQX (dqlib) checks such as "
            "'check: missing' or 'check: min'",
        )
    found = problems(own_validator("dqx-implementation"), implementation)
    if found:
        raise ContractValidationError(f"{label}: {found[0].message}")
    inside = {k: implementation[k] for k in OPERATOR_NAMES if k in implementation}
    if inside and ctx.lifted_operators:
        raise ContractValidationError(
            f"{label}: operator given both beside the implementation ({', '.join(ctx.lifted_operators)}) "
            f"and inside it ({', '.join(inside)}); keep one"
        )
    name: str = implementation["check"]
    kind, check = CHECKS[Format.DQX][name]
    given = inside or ctx.lifted_operators
    if check.at_most is None:
        threshold = parse_threshold(label, given)
    elif given:
        raise refused_operators(check, given, label)
    else:
        threshold = own_bound(check, implementation, label)
    column = _dqx_column(check, implementation, ctx, label)
    fields = check_params(kind, check, implementation, label)
    metric = check_metric(kind, (column,) if column else (), return_scale(implementation), fields, label)
    return MetricRule(
        name=raw.get("name") or _derived_name(ctx, name),
        origin=RuleOrigin.DQX,
        column=column,
        metric=metric,
        threshold=threshold,
        **info,
    )


def _dqx_column(check: Check, implementation: Mapping[str, Any], ctx: RuleContext, label: str) -> str | None:
    """The column a DQX check measures: the one its column options name (``column``; completeness's
    ``partition_column`` too), or, for a check that may say none, the property the rule sits in."""
    named = {key: implementation[key] for key in check.column_options if key in implementation}
    if len(set(named.values())) > 1:
        raise ContractValidationError(f"{label}: {' and '.join(named)} name different columns; give one")
    if named:
        key, column = next(iter(named.items()))
        return declared_column(ctx, column, label, f"implementation.{key}")
    if not check.on_property:
        return None
    if ctx.prop is None:
        raise ContractValidationError(
            f"{label}: check '{check.name}' needs '{check.column_options[0]}:' in its implementation "
            "(or put the rule in that property's quality list)"
        )
    return ctx.prop.column


def _implementation(raw: Any, label: str) -> Any:
    if isinstance(raw, str):
        return parse_yaml_fragment(raw, f"{label}: implementation")
    return raw


def _is_databricks_dqx(implementation: Any) -> bool:
    if not isinstance(implementation, Mapping):
        return False
    check = implementation.get("check")
    return isinstance(check, Mapping) or "criticality" in implementation or "function" in implementation


# --- type: custom, engine: greatExpectations -----------------------------------------------------------

_COLUMN_KWARGS = ("column", "column_a", "column_b")
"""GX expectation arguments that name one column."""
_EXPECTATION_KEYS = ("type", "expectation_type", "expectationType", "expectation")
_NOT_KWARGS = frozenset({*_EXPECTATION_KEYS, "kwargs", "meta", "notes", "description", "rendered_content", "id"})


def _gx_rule(
    raw: Mapping[str, Any], ctx: RuleContext, label: str, info: dict[str, Any]
) -> ExpectationRule | SkippedRule:
    implementation = _implementation(raw["implementation"], label)
    if not isinstance(implementation, Mapping):
        raise ContractValidationError(
            f"{label}: a greatExpectations implementation must be a mapping with 'type' and 'kwargs', "
            f"got: {implementation!r}"
        )
    declared = next((implementation[k] for k in _EXPECTATION_KEYS if k in implementation), None)
    if not isinstance(declared, str) or not declared:
        raise ContractValidationError(
            f"{label}: a greatExpectations implementation needs 'type' naming the expectation "
            "(e.g. expect_column_values_to_not_be_null)"
        )
    expectation_type = snake_case(declared)
    if not expectation_type.startswith("expect_"):
        raise ContractValidationError(f"{label}: {declared!r} is not a GX expectation type (expect_…)")
    kwargs_raw = implementation.get("kwargs")
    if kwargs_raw is None:
        kwargs_raw = {k: v for k, v in implementation.items() if k not in _NOT_KWARGS}
    if not isinstance(kwargs_raw, Mapping):
        raise ContractValidationError(f"{label}: kwargs must be a mapping, got: {kwargs_raw!r}")
    kwargs = {snake_case(str(k)): v for k, v in kwargs_raw.items()}
    if ctx.prop and "column" not in kwargs and _is_single_column(expectation_type):
        kwargs["column"] = ctx.prop.column
    for key in _COLUMN_KWARGS:  # snake_case has lower-cased column_A
        if isinstance(kwargs.get(key), str):
            kwargs[key] = declared_column(ctx, kwargs[key], label, f"implementation.kwargs.{key}")
    if isinstance(kwargs.get("column_list"), list):
        kwargs["column_list"] = [
            declared_column(ctx, c, label, "implementation.kwargs.column_list") if isinstance(c, str) else c
            for c in kwargs["column_list"]
        ]
    name = raw.get("name") or _derived_name(ctx, expectation_type)
    listed = kwargs.get("column_list")
    named = [kwargs.get(key) for key in _COLUMN_KWARGS] + (listed if isinstance(listed, list) else [])
    secret = sorted({c for c in named if isinstance(c, str) and c in ctx.sensitive})
    if secret:  # GX writes its own results: observed values, unexpected values; none of them can be hidden
        return _skip(
            label,
            info,
            name,
            RuleOrigin.GREAT_EXPECTATIONS,
            f"it reads the sensitive column(s) {', '.join(secret)}, and GX's own result (its observed and unexpected "
            "values) would show them; write it as a library metric or an engine: dqx rule, whose values are "
            "shown as ***",
        )
    meta = implementation.get("meta") or {}
    return ExpectationRule(
        name=name,
        origin=RuleOrigin.GREAT_EXPECTATIONS,
        column=kwargs.get("column") if isinstance(kwargs.get("column"), str) else None,
        expectation_type=expectation_type,
        kwargs=MappingProxyType(kwargs),
        meta=MappingProxyType(dict(meta) if isinstance(meta, Mapping) else {"notes": meta}),
        **info,
    )


def _is_single_column(expectation_type: str) -> bool:
    return expectation_type.startswith("expect_column_") and not expectation_type.startswith(
        ("expect_column_pair_", "expect_compound_columns_", "expect_multicolumn_")
    )


def snake_case(name: str) -> str:
    """``expectColumnValuesToBeBetween`` → ``expect_column_values_to_be_between``; snake stays snake."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
