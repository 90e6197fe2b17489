"""Mutation testing: valid contracts, randomly broken, are either loaded and translated or refused cleanly.

Each case starts from a valid contract (the examples, plus small ODCS and native documents that reach
the less common branches), applies one to four random mutations at random places, loads the result and,
when it loads, translates every contract into a GX suite. The only exception allowed is
``ContractValidationError`` with a message; every ``ContractWarning`` must say where it comes from; a
loaded contract must hold only finite thresholds and translate every rule (an expectation or a reason).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dqx_gx import Contract, ContractValidationError, ContractWarning, load_contracts
from dqx_gx.contract.source import read_document
from dqx_gx.expectations import build_suite
from dqx_gx.rules.rule import MetricRule
from dqx_gx.rules.threshold import OPERATOR_NAMES, Threshold
from tests.conftest import EXAMPLES
from tests.documents import odcs_document

Path_ = tuple[str | int, ...]

# --- the valid starting points -------------------------------------------------------------------------


LIBRARY_RULES = odcs_document(
    [
        {
            "name": "t",
            "physicalName": "t_tbl",
            "quality": [
                {"name": "rows", "metric": "rowCount", "mustBeBetween": [1, 1000], "severity": "error"},
                {"type": "library", "metric": "duplicateValues", "arguments": {"properties": ["a", "b"]}, "mustBe": 0},
            ],
            "properties": [
                {
                    "name": "a",
                    "logicalType": "integer",
                    "required": True,
                    "primaryKey": True,
                    "primaryKeyPosition": 1,
                    "logicalTypeOptions": {"minimum": 0, "maximum": 100, "multipleOf": 5},
                    "quality": [
                        {"metric": "nullValues", "mustBeLessThan": 5, "unit": "percent", "severity": "warning"},
                        {"metric": "missingValues", "arguments": {"missingValues": [-1, None]}, "mustBe": 0},
                    ],
                },
                {
                    "name": "b",
                    "physicalName": "b_col",
                    "logicalType": "string",
                    "unique": True,
                    "logicalTypeOptions": {"minLength": 1, "maxLength": 10, "pattern": "^[a-z]+$", "format": "email"},
                    "quality": [
                        {"metric": "invalidValues", "arguments": {"validValues": ["x", "y"]}, "mustBe": 0},
                        {"metric": "invalidValues", "arguments": {"pattern": "^[a-z]$"}, "mustNotBeBetween": [1, 2]},
                    ],
                },
                {
                    "name": "d",
                    "logicalType": "date",
                    "partitioned": True,
                    "partitionKeyPosition": 1,
                    "logicalTypeOptions": {"minimum": "2020-01-01", "exclusiveMaximum": "2030-01-01"},
                },
            ],
        }
    ],
    slaDefaultElement="t.d",
    slaProperties=[
        {"property": "latency", "value": 2, "unit": "d"},
        {"property": "retention", "value": 3, "unit": "y"},
    ],
)

CUSTOM_RULES = odcs_document(
    [
        {
            "name": "t",
            "quality": [
                {
                    "name": "gx rows",
                    "type": "custom",
                    "engine": "greatExpectations",
                    "implementation": {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1}},
                },
                {
                    "name": "dqx rows",
                    "type": "custom",
                    "engine": "dqx",
                    "mustBeGreaterThan": 0,
                    "implementation": "check: num_rows\n",
                },
                {"name": "soda", "type": "custom", "engine": "soda", "implementation": "checks: []"},
                {"name": "sql", "type": "sql", "query": "SELECT COUNT(*) FROM t", "mustBeLessOrEqualTo": 10},
                {"name": "doc", "type": "text", "description": "documentation only"},
            ],
            "properties": [
                {
                    "name": "x",
                    "logicalType": "number",
                    "quality": [
                        {
                            "name": "x p90",
                            "type": "custom",
                            "engine": "dqx",
                            "implementation": {
                                "check": "percentile",
                                "column": "x",
                                "percentile": 0.9,
                                "mustBeLessThan": 1e6,
                            },
                        },
                        {
                            "name": "x not null",
                            "type": "custom",
                            "engine": "great-expectations",
                            "implementation": "type: expectColumnValuesToNotBeNull\nmostly: 0.9\n",
                        },
                        {
                            "name": "databricks",
                            "type": "custom",
                            "engine": "dqx",
                            "implementation": {"criticality": "error", "check": {"function": "is_not_null"}},
                        },
                    ],
                },
                {
                    "name": "s",
                    "logicalType": "string",
                    "quality": [
                        {
                            "name": "s whitelist",
                            "type": "custom",
                            "engine": "dqx",
                            "mustBe": 0,
                            "implementation": "check: whitelist\ncolumn: s\nvalues: [a, b, null]\nreturn: pct\n",
                        },
                        {
                            "name": "s length",
                            "type": "custom",
                            "engine": "dqx",
                            "implementation": {
                                "check": "max_length",
                                "column": "s",
                                "column_type": "string",
                                "mustBeBetween": [1, 9],
                            },
                        },
                    ],
                },
            ],
        }
    ]
)

NESTED_AND_DEPRECATED = odcs_document(
    [
        {
            "name": "a",
            "properties": [
                {
                    "name": "o",
                    "logicalType": "object",
                    "properties": [
                        {"name": "f", "logicalType": "integer", "quality": [{"metric": "nullValues", "mustBe": 0}]}
                    ],
                },
                {
                    "name": "arr",
                    "logicalType": "array",
                    "items": {"logicalType": "string", "logicalTypeOptions": {"maxLength": 3}},
                    "logicalTypeOptions": {"minItems": 1, "uniqueItems": True},
                },
                {
                    "name": "ts",
                    "logicalType": "timestamp",
                    "logicalTypeOptions": {"timezone": True, "defaultTimezone": "UTC"},
                    "quality": [
                        {"rule": "nullValues", "mustBe": 0},
                        {"rule": "validValues", "validValues": ["2024-01-01"], "mustBe": 0, "severity": "blocker"},
                    ],
                },
            ],
        },
        {"name": "b", "physicalName": "b_tbl", "properties": [{"name": "when", "logicalType": "date"}]},
    ],
    apiVersion="v3.0.2",
    slaProperties=[
        {"property": "ly", "value": "36h", "element": "b_tbl.when"},
        {"property": "latency", "value": 1, "unit": "fortnight", "element": "a.ts"},
    ],
)

NATIVE_CHECKS: dict[str, Any] = {
    "name": "n",
    "version": "1.0",
    "description": "native contract with every kind of check",
    "owner": "team",
    "dataset": "events",
    "tags": ["a", "b"],
    "sla": {"schedule": "0 */2 * * *", "lag_hours": 3},
    "metadata": {"timestamp_column": "ts"},
    "checks": [
        {"name": "rows", "type": "num_rows", "between": [1, 100], "tolerance": 0.5},
        {"name": "dups", "type": "duplicates", "columns": ["id", "s"], "max": 0, "return": "pct"},
        {"name": "fresh", "type": "freshness", "timestamp_column": "ts", "max_age_hours": 5, "aggregation": "min"},
        {"name": "gaps", "type": "completeness", "partition_column": "ts", "granularity": "daily"},
    ],
    "columns": [
        {"name": "id", "type": "int", "description": "id", "nullable": False},
        {"name": "ts", "type": {"kind": "timestamp", "tz": "UTC"}, "description": "ts"},
        {
            "name": "s",
            "type": "string",
            "description": "s",
            "checks": [
                {"name": "s pattern", "type": "pattern", "pattern": "^[a-z]+$", "flags": ["IGNORECASE"], "max": 0},
                {"name": "s email", "type": "pattern", "format": "email", "return": "pct", "max": 0.1},
                {"name": "s listed", "type": "whitelist", "values": ["a", "b"], "equals": 0},
                {"name": "s banned", "type": "blacklist", "values": ["z"], "case_sensitive": False},
                {"name": "s length", "type": "avg_length", "not_between": [0, 1]},
            ],
        },
        {
            "name": "x",
            "type": "float",
            "description": "x",
            "checks": [
                {"name": "x p50", "type": "percentile", "percentile": 0.5, "min": -1},
                {"name": "x spread", "type": "stddev", "max": 10, "severity": "P1"},
            ],
        },
        {"name": "l", "type": {"kind": "list", "value_type": "string"}, "description": "l"},
        {"name": "m", "type": {"kind": "map", "key_type": "string", "value_type": "int"}, "description": "m"},
        {
            "name": "st",
            "type": {
                "kind": "struct",
                "fields": [{"name": "f", "type": "bytes", "nullable": True, "description": "f"}],
            },
            "description": "st",
        },
    ],
}


def _bases() -> list[tuple[str, dict[str, Any]]]:
    files = [EXAMPLES / "orders" / "orders.odcs.yaml", *sorted((EXAMPLES / "sla").glob("*.yaml"))]
    # The loader's own reader keeps dates as text, as the loader sees them (yaml.safe_load would not).
    bases = [(path.name, read_document(path).data) for path in files]
    bases += [
        ("library_rules", LIBRARY_RULES),
        ("custom_rules", CUSTOM_RULES),
        ("nested_and_deprecated", NESTED_AND_DEPRECATED),
        ("native_checks", NATIVE_CHECKS),
    ]
    return bases


BASES = _bases()
ODCS_BASES = [(name, doc) for name, doc in BASES if "apiVersion" in doc]
NATIVE_BASES = [(name, doc) for name, doc in BASES if "apiVersion" not in doc]

# --- what mutations put in --------------------------------------------------------------------------------

EXTREME_NUMBERS: tuple[Any, ...] = (
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    -1,
    0,
    0.0,
    -0.0,
    10**40,
    -(10**40),
    10**400,
    5e-324,
    True,
    False,
)

WEIRD_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "📦🚀",
    "e\u0301\u0301\u0301",
    "\u202eemanlaer\u202c",
    "שלום עולם",
    "\u200b",
    "\ufeffname",
    "a\nb",
    "'quoted' \"name\"",
    "{curly} %s {0}",
    "\ud800",
    "x" * 100_000,
)

VOCABULARY: tuple[str, ...] = (
    *OPERATOR_NAMES,
    *("min", "max", "equals", "between", "not_between", "tolerance"),
    *("library", "sql", "custom", "text", "dqx", "DQX", "greatExpectations", "gx", "soda"),
    *("nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount", "validValues", "duplicateCount"),
    *("missing", "duplicates", "whitelist", "blacklist", "cardinality", "mean", "sum", "count", "variance"),
    *("stddev", "percentile", "min_length", "max_length", "avg_length", "num_rows", "pattern", "freshness"),
    *("completeness", "pct", "percent", "rows", "%", "h", "d", "y", "hours", "fortnight", "latency", "ly"),
    *("string", "integer", "number", "boolean", "date", "timestamp", "time", "array", "object", "map", "vector"),
    *("int", "float", "decimal", "bool", "bytes", "list", "struct", "email", "uuid", "ipv4", "phone", "url"),
    *("P0", "P3", "error", "warning", "info", "blocker", "v3.0.0", "v3.2.0", "v2.2.0", "DataContract"),
    *("0 * * * *", "*/5 * * * *", "0 */0 * * *", "0 */25 * * *", "0 0 * * 1-5", "0 0 * * MON", "0 0 L * *"),
    *("0 0 1,15 * *", "0 0 * 2 *", "@daily", "0 0 0 * * *", "61 0 * * *", "24h", "1e308h", "0.5 d", "-3h"),
    *("2024-02-30", "2024-01-01T00:00:00", "12:00:00", "not a date", "(?P<x>a)", "(?<x>a)", "\\p{L}+", "[", "a{2"),
    *("expect_column_values_to_be_between", "expectTableRowCountToEqual", "expect_nothing", "not_expect"),
)

KEYS: tuple[str, ...] = (
    *OPERATOR_NAMES,
    *("mustbe", "must_be", "mustBeGreaterThen", "mustBeBetween ", "min", "max", "equals", "between", "not_between"),
    *("rule", "metric", "type", "engine", "implementation", "query", "arguments", "validValues", "unit", "severity"),
    *("name", "physicalName", "logicalType", "logicalTypeOptions", "required", "unique", "primaryKey", "items"),
    *("properties", "quality", "partitioned", "partitionKeyPosition", "primaryKeyPosition", "element", "value"),
    *("property", "slaProperties", "slaDefaultElement", "schema", "status", "apiVersion", "kind", "id", "version"),
    *("columns", "checks", "values", "percentile", "pattern", "format", "flags", "return", "tolerance", "column"),
    *("column_type", "check", "case_sensitive", "timestamp_column", "partitioned_by", "max_age_hours", "sla"),
    *("schedule", "lag_hours", "metadata", "nullable", "description", "map", "kwargs", "dataset", "aggregation"),
)

YAML_SNIPPETS: tuple[str, ...] = (
    "check: [",
    "check: min\ncolumn: x\n---\ncheck: max\n",
    "check: min\ncheck: max\n",
    "&a [*a]",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
    "!!python/object/apply:os.getcwd []",
    "check: !custom min",
    "check: min\ncolumn: x\nmustBe: .nan\n",
    "check: min\nmustBeBetween: [.inf, -.inf]\n",
    "check: percentile\npercentile: .nan\n",
    "check: {function: is_not_null, arguments: {column: x}}\ncriticality: warn\n",
    "type: expect_column_values_to_be_between\nkwargs: {min_value: 1, max_value: 0}\n",
    "type: expect_column_values_to_be_in_set\nkwargs: [1, 2]\n",
    "type: expect_table_row_count_to_equal\nvalue: .nan\n",
    "type: expect_column_max_to_be_between\nkwargs: {column: {a: 1}}\n",
    "[" * 200 + "]" * 200,
    "\t- tabs",
    "check: '\x00'",
    "",
    "null",
    "42",
    "- a\n- b\n",
    "check: num_rows\nmustBe: 1e400\n",
)

GX_TYPES: tuple[str, ...] = (
    "expect_column_values_to_be_between",
    "expect_column_values_to_be_in_set",
    "expect_column_values_to_match_regex",
    "expect_column_values_to_not_be_null",
    "expect_column_pair_values_to_be_equal",
    "expect_compound_columns_to_be_unique",
    "expect_table_row_count_to_equal",
    "expect_table_columns_to_match_ordered_list",
    "expect_column_mean_to_be_between",
    "expectColumnValuesToBeUnique",
    "expect_column_to_exist",
    "expect_dqx_null_count",
    "expect_nothing_at_all",
)
GX_KWARGS: tuple[str, ...] = (
    *("column", "column_A", "column_B", "column_list", "min_value", "max_value", "strict_min", "strict_max"),
    *("value", "value_set", "regex", "mostly", "row_condition", "condition_parser", "result_format", "meta"),
    *("minValue", "maxValue", "catch_exceptions", "parse_strings_as_datetimes", "ignore_row_if", "windows"),
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(VOCABULARY),
)
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=3),
)
RANDOM_YAML = st.one_of(
    st.sampled_from(YAML_SNIPPETS),
    st.text(max_size=40),
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4).map(lambda d: yaml.safe_dump(d, allow_unicode=True)),
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4).map(lambda d: "check: min\n" + yaml.safe_dump(d)),
)

# --- walking and changing documents ---------------------------------------------------------------------


def _nodes(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every node with its path, the root included."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _nodes(child, (*path, index))


def _get(doc: Any, path: Path_) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _put(doc: dict[str, Any], path: Path_, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: float) -> bool:
    """Finite and representable as a float (an int too large for one is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


Draw = Callable[[st.SearchStrategy[Any]], Any]
Mutation = Callable[[Draw, dict[str, Any]], str]


def _pick(draw: Draw, doc: dict[str, Any], want: Callable[[Path_, Any], bool]) -> Path_ | None:
    """A random non-root path whose node satisfies ``want``, or None."""
    candidates = [path for path, value in _nodes(doc) if path and want(path, value)]
    return draw(st.sampled_from(candidates)) if candidates else None


def _any_node(path: Path_, value: Any) -> bool:
    return True


def drop(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, _any_node)
    if path is None:
        return "drop: nothing"
    del _get(doc, path[:-1])[path[-1]]
    return f"drop {path}"


def duplicate_item(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: isinstance(v, list) and bool(v))
    if path is None:
        return "duplicate: no list"
    items = _get(doc, path)
    index = draw(st.integers(0, len(items) - 1))
    items.insert(index, copy.deepcopy(items[index]))
    return f"duplicate {(*path, index)}"


def retype(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, _any_node)
    if path is None:
        return "retype: nothing"
    value = draw(VALUES)
    _put(doc, path, value)
    return f"retype {path} = {value!r:.60}"


def swap_bounds(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: isinstance(v, list) and len(v) == 2)
    if path is not None:
        _get(doc, path).reverse()
        return f"swap {path}"
    target = _pick(draw, doc, lambda _, v: isinstance(v, dict) and ("type" in v or "metric" in v))
    if target is None:
        return "swap: no rule"
    key = draw(st.sampled_from(["mustBeBetween", "mustNotBeBetween", "between", "not_between"]))
    _get(doc, target)[key] = [10, 1]
    return f"swap {target}.{key} = [10, 1]"


def extreme_number(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: _is_number(v)) or _pick(draw, doc, _any_node)
    if path is None:
        return "number: nothing"
    value = draw(st.sampled_from(EXTREME_NUMBERS))
    _put(doc, path, value)
    return f"number {path} = {value!r:.60}"


def wrap(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, _any_node)
    if path is None:
        return "wrap: nothing"
    value = _get(doc, path)
    wrapped = draw(st.sampled_from(["list", "dict", "key"]))
    if wrapped == "list":
        _put(doc, path, [value])
    elif wrapped == "dict":
        _put(doc, path, {"value": value})
    else:
        _put(doc, path, {str(path[-1]): value})
    return f"wrap {path} in a {wrapped}"


def unwrap(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: isinstance(v, list | dict))
    if path is None:
        return "unwrap: nothing"
    value = _get(doc, path)
    inner = list(value.values()) if isinstance(value, dict) else value
    _put(doc, path, inner[0] if inner else None)
    return f"unwrap {path}"


def weird_string(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: isinstance(v, str)) or _pick(draw, doc, _any_node)
    if path is None:
        return "string: nothing"
    value = draw(st.sampled_from(WEIRD_STRINGS))
    if draw(st.booleans()) and isinstance(_get(doc, path), str):
        value = _get(doc, path) + value  # keeps the word recognisable: 'order_id📦🚀'
    _put(doc, path, value)
    return f"string {path} = {value!r:.60}"


def vocabulary(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda _, v: isinstance(v, str)) or _pick(draw, doc, _any_node)
    if path is None:
        return "word: nothing"
    word = draw(st.sampled_from(VOCABULARY))
    _put(doc, path, word)
    return f"word {path} = {word!r}"


def rename_key(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda p, _: isinstance(p[-1], str))
    if path is None:
        return "rename: nothing"
    parent = _get(doc, path[:-1])
    new = draw(st.one_of(st.sampled_from(KEYS), st.sampled_from(WEIRD_STRINGS)))
    parent[new] = parent.pop(path[-1])
    return f"rename {path} -> {new!r:.60}"


def add_key(draw: Draw, doc: dict[str, Any]) -> str:
    path = draw(st.sampled_from([p for p, v in _nodes(doc) if isinstance(v, dict)]))
    key = draw(st.sampled_from(KEYS))
    value = draw(st.one_of(VALUES, st.sampled_from(EXTREME_NUMBERS), st.just([1, 2])))
    _get(doc, path)[key] = value
    return f"add {path}.{key} = {value!r:.60}"


def change_operator(draw: Draw, doc: dict[str, Any]) -> str:
    operators = {*OPERATOR_NAMES, "min", "max", "equals", "between", "not_between"}
    path = _pick(draw, doc, lambda p, _: p[-1] in operators)
    new = draw(st.sampled_from([*sorted(operators), "mustBeGreaterThen", "MustBe", "must_be", "mustBeEqualTo"]))
    if path is None:
        target = _pick(draw, doc, lambda _, v: isinstance(v, dict) and ("type" in v or "metric" in v))
        if target is None:
            return "operator: no rule"
        _get(doc, target)[new] = draw(st.one_of(st.sampled_from(EXTREME_NUMBERS), st.just([1, 2])))
        return f"operator {target}.{new} added"
    parent = _get(doc, path[:-1])
    parent[new] = parent.pop(path[-1])
    return f"operator {path} -> {new}"


def replace_implementation(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda p, _: p[-1] == "implementation")
    if path is None:
        return vocabulary(draw, doc)
    text = draw(RANDOM_YAML)
    _put(doc, path, text)
    return f"implementation {path} = {text!r:.60}"


def gx_implementation(draw: Draw, doc: dict[str, Any]) -> str:
    path = _pick(draw, doc, lambda p, _: p[-1] == "implementation")
    if path is None:
        return vocabulary(draw, doc)
    kwargs = draw(st.dictionaries(st.sampled_from(GX_KWARGS), st.one_of(VALUES, st.sampled_from(EXTREME_NUMBERS))))
    implementation = {"type": draw(st.sampled_from(GX_TYPES)), "kwargs": kwargs}
    if draw(st.booleans()):
        _put(doc, (*path[:-1], "engine"), "greatExpectations")
    _put(doc, path, implementation)
    return f"gx {path} = {implementation!r:.80}"


MUTATIONS: tuple[Mutation, ...] = (
    drop,
    duplicate_item,
    retype,
    swap_bounds,
    extreme_number,
    wrap,
    unwrap,
    weird_string,
    vocabulary,
    rename_key,
    add_key,
    change_operator,
    replace_implementation,
    gx_implementation,
)


@st.composite
def mutated_documents(draw: Draw, bases: list[tuple[str, dict[str, Any]]]) -> tuple[str, list[str], dict[str, Any]]:
    """(base name, the mutations applied, the mutated document)."""
    name, base = draw(st.sampled_from(bases))
    doc = copy.deepcopy(base)
    applied = []
    for _ in range(draw(st.integers(1, 4))):
        mutation = draw(st.sampled_from(MUTATIONS))
        applied.append(mutation(draw, doc))
    return name, applied, doc


# --- what must hold for any document ------------------------------------------------------------------------

LOCATION_MARKERS = ("Quality rule '", "Check '", "Rule '", "schema[", "slaProperties[", "columns[", "checks[", "sla.")


def exercise(doc: dict[str, Any]) -> str:
    """Load and translate ``doc``; ``'loaded'`` or ``'refused'``. Fails on anything else."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            contracts = load_contracts(doc)
            for contract in contracts:
                check_contract(contract)
        except ContractValidationError as exc:
            outcome, message = "refused", str(exc)
        else:
            outcome, message = "loaded", ""
    if outcome == "refused":
        assert message.strip(), "ContractValidationError without a message"
    for warning in caught:
        if issubclass(warning.category, ContractWarning):
            message = str(warning.message)
            assert message.strip(), "ContractWarning without a message"
            assert any(marker in message for marker in LOCATION_MARKERS), f"warning names no location: {message!r}"
    return outcome


def check_contract(contract: Contract) -> None:
    """A loaded contract holds finite thresholds and translates every rule (an expectation or a reason)."""
    for rule in contract.rules:
        threshold: Threshold | None = getattr(rule, "threshold", None)  # metric and SQL rules
        if threshold is not None:
            value = threshold.value
            bounds = value if isinstance(value, tuple) else (value,)
            assert all(_finite(v) for v in bounds), f"{rule.id}: non-finite threshold {value}"
            assert bounds[0] <= bounds[-1], f"{rule.id}: reversed range {value}"
        constraint = rule.metric.constraint if isinstance(rule, MetricRule) else None
        if constraint is not None and isinstance(constraint.value, int | float):
            assert _finite(constraint.value), f"{rule.id}: non-finite {constraint.kind} {constraint.value!r:.40}"
        if isinstance(rule, MetricRule) and rule.metric.percentile is not None:
            assert 0 <= rule.metric.percentile <= 1, f"{rule.id}: percentile {rule.metric.percentile}"
    if contract.sla_latency is not None:
        hours = contract.sla_latency.max_age_hours
        assert math.isfinite(hours) and hours > 0, f"max_age_hours {hours}"
    build = build_suite(contract)
    ids = [(e.meta or {})["dqx"]["rule_id"] for e in build.suite.expectations]
    assert sorted([*ids, *build.skipped]) == sorted(rule.id for rule in contract.rules), "a rule was dropped"


# --- the tests ------------------------------------------------------------------------------------------------

SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def _run(bases: list[tuple[str, dict[str, Any]]], max_examples: int) -> Counter[str]:
    outcomes: Counter[str] = Counter()

    @settings(SETTINGS, max_examples=max_examples)
    @given(mutated_documents(bases))
    def check(case: tuple[str, list[str], dict[str, Any]]) -> None:
        _name, _applied, doc = case
        outcomes[exercise(doc)] += 1

    check()
    return outcomes


def test_the_starting_documents_are_valid() -> None:
    """Every base document loads and translates; the mutations start from valid ground."""
    for name, doc in BASES:
        assert exercise(copy.deepcopy(doc)) == "loaded", name


@pytest.mark.slow  # thousands of generated documents
def test_mutated_odcs_contracts_load_or_are_refused_cleanly() -> None:
    """1400 mutated ODCS documents: loaded and translated, or refused with a message; never anything else."""
    outcomes = _run(ODCS_BASES, 1400)
    assert sum(outcomes.values()) >= 1400
    assert outcomes["loaded"] >= 100, outcomes
    assert outcomes["refused"] >= 100, outcomes


@pytest.mark.slow  # thousands of generated documents
def test_mutated_native_contracts_load_or_are_refused_cleanly() -> None:
    """1500 mutated native documents, the same way (its strict schema refuses more, so more cases)."""
    outcomes = _run(NATIVE_BASES, 1500)
    assert sum(outcomes.values()) >= 1500
    assert outcomes["loaded"] >= 100, outcomes
    assert outcomes["refused"] >= 100, outcomes


# --- what the search found (each failed before the loader was fixed) ----------------------------------------

BY_NAME = dict(BASES)
DROP = object()
"""An edit value: delete the key."""

FOUND: dict[str, tuple[str, list[tuple[Path_, Any]], str]] = {
    "NaN lag": ("native_checks", [(("sla", "lag_hours"), math.nan)], "sla.lag_hours must be a finite number, got: nan"),
    "infinite lag": (
        "native_checks",
        [(("sla", "lag_hours"), math.inf)],
        "sla.lag_hours must be a finite number, got: inf",
    ),
    "huge lag": (
        "native_checks",
        [(("sla", "lag_hours"), 10**400)],
        "sla.lag_hours is too large for a float (401 digits)",
    ),
    "huge tolerance": (
        "native_checks",
        [(("checks", 0, "tolerance"), 10**400)],
        "Check 'rows': tolerance is too large for a float (401 digits)",
    ),
    "NaN native percentile": (
        "native_checks",
        [(("columns", 3, "checks", 0, "percentile"), math.nan)],
        "Check 'x p50': percentile must be a number between 0.0 and 1.0, got: nan",
    ),
    "NaN dqx percentile": (
        "custom_rules",
        [(("schema", 0, "properties", 0, "quality", 0, "implementation", "percentile"), math.nan)],
        "Quality rule 'x p90': percentile must be a number between 0.0 and 1.0, got: nan",
    ),
    "control character in an implementation": (
        "custom_rules",
        [(("schema", 0, "quality", 1, "implementation"), "check: num_rows\x07\n")],
        "Quality rule 'dqx rows': implementation: invalid YAML: character #x0007 is not allowed (line 1, column 16)",
    ),
    "empty dataset name": (
        "customer_aggregates.odcs.yaml",
        [(("schema", 0, "name"), ""), (("name",), DROP)],  # the empty name became GX's suite name
        "schema[0]: needs a non-blank 'name' or 'physicalName' (the dataset's name)",
    ),
    "NaN minimum": (
        "library_rules",
        [(("schema", 0, "properties", 0, "logicalTypeOptions", "minimum"), math.nan)],
        "schema[0].properties[0].logicalTypeOptions.minimum: minimum must be a finite number, got: nan",
    ),
    "huge multipleOf": (
        "library_rules",
        [(("schema", 0, "properties", 0, "logicalTypeOptions", "multipleOf"), 10**400)],
        "schema[0].properties[0].logicalTypeOptions.multipleOf: multipleOf is too large for a float (401 digits)",
    ),
}


def _edited(base: str, edits: list[tuple[Path_, Any]]) -> dict[str, Any]:
    doc = copy.deepcopy(BY_NAME[base])
    for path, value in edits:
        if value is DROP:
            del _get(doc, path[:-1])[path[-1]]
        else:
            _put(doc, path, value)
    return doc


@pytest.mark.parametrize(("base", "edits", "message"), FOUND.values(), ids=FOUND.keys())
def test_found_by_mutation_is_refused(base: str, edits: list[tuple[Path_, Any]], message: str) -> None:
    """Each was a NaN, infinite or huge value loaded as a rule, an OverflowError, a YAML reader error or a GX error."""
    doc = _edited(base, edits)
    assert exercise(doc) == "refused"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        with pytest.raises(ContractValidationError) as caught:
            load_contracts(doc)
    assert str(caught.value).endswith(message)


@pytest.mark.parametrize(
    ("value", "unit", "reason"),
    [
        (10**400, "h", "slaProperties[0]: latency value 1000"),
        (1e308, "y", "slaProperties[0]: latency 1e+308 y is too large to be a number of hours; no freshness check"),
    ],
    ids=["huge int", "overflowing product"],
)
def test_found_by_mutation_huge_latency_is_skipped(value: float, unit: str, reason: str) -> None:
    """Once an OverflowError and an infinite freshness threshold: now a skipped freshness check, with a warning."""
    doc = _edited(
        "customer_aggregates.odcs.yaml", [(("slaProperties", 0, "value"), value), (("slaProperties", 0, "unit"), unit)]
    )
    assert exercise(doc) == "loaded"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (contract,) = load_contracts(doc)
    assert contract.sla_latency is None
    assert [r.name for r in contract.skipped_rules] == ["SLA: Freshness check"]
    assert any(str(w.message).startswith(reason) for w in caught), [str(w.message)[:120] for w in caught]
