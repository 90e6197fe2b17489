"""ODCS constructs that state rules without ``quality:`` are rules, or SKIPPED with the reason (issue 15 point 8)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, ContractWarning, run_contract
from dqx_gx.cli import main
from dqx_gx.rows.gate import ERRORS, WARNINGS, annotate_rows
from dqx_gx.rules.rule import RuleOrigin
from dqx_gx.run.results import RuleResult
from tests.documents import odcs_document

NOW = "2024-06-01T00:00:00Z"


def load(schema: list[dict[str, Any]], **top: Any) -> tuple[Contract, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (contract,) = Contract.from_odcs(odcs_document(schema, **top))
    return contract, [str(w.message) for w in caught if issubclass(w.category, ContractWarning)]


def result(results: tuple[RuleResult, ...], rule_id: str) -> RuleResult:
    return next(r for r in results if r.rule.id == rule_id)


# --- enum-like valid-value lists -----------------------------------------------------------------------


def test_enum_lists_are_valid_value_rules_that_mark_rows(spark: SparkSession) -> None:
    contract, messages = load(
        [
            {
                "name": "orders",
                "properties": [
                    {"name": "status", "logicalType": "string", "enum": [{"value": "open"}, {"value": "shipped"}]},
                    {
                        "name": "channel",
                        "logicalType": "string",
                        "customProperties": [{"property": "enum", "value": ["web", "shop"]}],
                    },
                ],
            }
        ]
    )
    assert messages == []
    status = next(r for r in contract.rules if r.id == "schema[0].properties[0].enum")
    assert status.expression() == "count_if(status is not NULL and not in ['open', 'shipped']) = 0"
    frame = spark.createDataFrame(
        [("open", "web"), ("lost", "web"), ("shipped", "phone"), ("open", "fax"), (None, None)],
        "status string, channel string",
    )
    run = run_contract(contract, frame, now=NOW)
    # NULL is no violation (docs/semantics.md, 'Enum NULLs')
    assert result(run.rule_results, "schema[0].properties[0].enum").observed == 1
    channel = result(run.rule_results, "schema[0].properties[1].enum")
    assert (channel.assertion.status, channel.observed, channel.assertion.severity) == ("FAILED", 2, "P1")
    warned = annotate_rows(contract, frame, now=NOW).orderBy("status", "channel").collect()
    assert [len(row[WARNINGS] or []) for row in warned] == [0, 1, 1, 0, 1]


def test_an_enum_of_null_alone_is_skipped_saying_so() -> None:
    """datacontract-cli writes ``enum: [null]``: NULLs are left out of a value list, so nothing would be checked."""
    contract, messages = load(
        [{"name": "t", "properties": [{"name": "c", "logicalType": "string", "enum": [{"value": None}]}]}]
    )
    (rule,) = [r for r in contract.skipped_rules if r.id == "schema[0].properties[0].enum"]
    assert rule.reason == (
        "its enum lists only null: there is no value to compare with (NULLs are what 'required' is about)"
    )
    assert messages == [f"schema[0].properties[0] (property 'c'): {rule.reason}; skipping"]


# --- array items ---------------------------------------------------------------------------------------

TAGS = {
    "name": "tags",
    "logicalType": "array",
    "items": {
        "logicalType": "string",
        "required": True,
        "logicalTypeOptions": {"maxLength": 3},
        "customProperties": [{"property": "enum", "value": ["a", "bb", "ccc"]}],
        "quality": [
            {
                "name": "no empty tag",
                "metric": "invalidValues",
                "arguments": {"validValues": ["a", "bb"]},
                "mustBeLessThan": 3,
            }
        ],
    },
}


def test_array_items_are_checked_on_every_element(spark: SparkSession) -> None:
    """docs/semantics.md, 'Nested and array items': a row breaks an items rule when any element does; NULL elements are NULL values."""
    contract, messages = load([{"name": "t", "properties": [TAGS]}])
    assert messages == []
    rules = {r.id: r for r in contract.rules}
    assert rules["schema[0].properties[0].items.required"].expression() == "null_count(tags[*]) = 0"
    assert rules["schema[0].properties[0].items.logicalTypeOptions.maxLength"].expression() == (
        "count_if(length(tags[*]) > 3) = 0"
    )
    frame = spark.createDataFrame(
        [(["a", "bb"],), (["a", None],), (["dddd"],), (["zz", "zz"],), (None,), ([],)], "tags array<string>"
    )
    run = run_contract(contract, frame, now=NOW)
    observed = {
        r.rule.id.removeprefix("schema[0].properties[0].items."): (r.assertion.status, r.observed)
        for r in run.rule_results
    }
    assert observed == {
        "schema[0].properties[0].logicalType": ("PASSED", "array<string>"),
        "required": ("FAILED", 1),  # ['a', None]
        "logicalTypeOptions.maxLength": ("FAILED", 1),  # ['dddd']
        "enum": ("FAILED", 2),  # ['dddd'], ['zz', 'zz']; the NULL element is no enum violation
        "quality[0]": ("FAILED", 3),  # invalidValues: NULL is invalid too: ['a', None], ['dddd'], ['zz', 'zz']
    }
    marked = {
        tuple(row["tags"] or ()): sorted(w["rule"] for w in (row[ERRORS] or []) + (row[WARNINGS] or []))
        for row in annotate_rows(contract, frame, now=NOW).collect()
        if row["tags"]
    }
    assert marked == {
        ("a", "bb"): [],
        ("a", None): ["no empty tag", "tags[*] has no nulls (required)"],
        ("dddd",): ["no empty tag", "tags[*] is one of its enum values", "tags[*] maxLength 3"],
        ("zz", "zz"): ["no empty tag", "tags[*] is one of its enum values"],
    }


LINES = {
    "name": "lines",
    "logicalType": "array",
    "items": {
        "logicalType": "object",
        "properties": [
            {"name": "sku", "logicalType": "string", "required": True, "logicalTypeOptions": {"maxLength": 3}},
            {
                "name": "box",
                "logicalType": "object",
                "properties": [{"name": "size", "logicalType": "integer", "required": True, "unique": True}],
            },
            {
                "name": "codes",
                "logicalType": "array",
                "items": {"logicalType": "string", "unique": True, "enum": [{"value": "x"}, {"value": "y"}]},
                "quality": [{"name": "few codes", "metric": "nullValues", "mustBe": 0}],
            },
        ],
    },
}


def test_fields_of_array_elements_are_checked_on_every_element_that_is_there(spark: SparkSession) -> None:
    """docs/semantics.md, 'Nested and array items': a row breaks a rule on a field of the elements when any element does; a NULL element (or a NULL
    struct inside one) holds no field, as a NULL struct column holds none: its own required rule's business."""
    contract, messages = load([{"name": "orders", "properties": [{"name": "id", "logicalType": "integer"}, LINES]}])
    at = "schema[0].properties[1].items."
    assert messages == [
        "schema[0].properties[1].items.properties[1].properties[0] (property 'lines[*].box.size'): unique of "
        "'lines[*].box.size': a field inside array elements is not checked for uniqueness (within one array, or "
        "across rows?); skipping"
    ]
    rules = {r.id.removeprefix(at): r for r in contract.rules}
    assert rules["properties[0].required"].expression() == "null_count(lines[*].sku) = 0"
    assert rules["properties[1].properties[0].required"].expression() == "null_count(lines[*].box.size) = 0"
    assert rules["properties[2].items.enum"].expression() == (
        "count_if(lines[*].codes[*] is not NULL and not in ['x', 'y']) = 0"
    )
    assert rules["properties[2].items.unique"].expression() == "count_if(lines[*].codes has repeated items) = 0"
    frame = spark.createDataFrame(
        [
            (1, [("a", (1,), ["x"]), ("bb", (2,), ["y", "x"])]),  # every element keeps every rule
            (2, [("a", (1,), ["x"]), (None, (2,), ["x"])]),  # a line without its sku
            (3, [("abcd", None, None), None]),  # sku too long; no box (no size to miss); a NULL line
            (4, [("a", (None,), ["x", "x", "z"])]),  # a box without its size; a code twice; a code not listed
            (5, None),  # no lines
            (6, [("a", (1,), ["x", None])]),  # a NULL code: no enum violation, but a NULL value
        ],
        "id int, lines array<struct<sku: string, box: struct<size: int>, codes: array<string>>>",
    )
    run = run_contract(contract, frame, now=NOW)
    observed = {r.rule.id.removeprefix(at): (r.assertion.status, r.observed) for r in run.rule_results}
    assert observed == {
        "schema[0].properties[0].logicalType": ("PASSED", "int"),
        "schema[0].properties[1].logicalType": (
            "PASSED",
            "array<struct<sku:string,box:struct<size:int>,codes:array<string>>>",
        ),
        "properties[0].required": ("FAILED", 1),  # id 2
        "properties[0].logicalTypeOptions.maxLength": ("FAILED", 1),  # id 3
        "properties[1].properties[0].required": ("FAILED", 1),  # id 4 (id 3's NULL box holds no size)
        "properties[1].properties[0].unique": ("SKIPPED", None),
        "properties[2].items.unique": ("FAILED", 1),  # id 4
        "properties[2].items.enum": ("FAILED", 1),  # id 4's 'z'
        "properties[2].quality[0]": ("FAILED", 1),  # nullValues of lines[*].codes: id 3's NULL codes
    }
    marked = {
        row["id"]: sorted(e["rule"] for e in (row[ERRORS] or []) + (row[WARNINGS] or []))
        for row in annotate_rows(contract, frame, now=NOW).collect()
    }
    assert marked == {
        1: [],
        2: ["lines[*].sku has no nulls (required)"],
        3: ["few codes", "lines[*].sku maxLength 3"],
        4: [
            "lines[*].box.size has no nulls (required)",
            "lines[*].codes[*] is one of its enum values",
            "lines[*].codes[*] is unique within its array",
        ],
        5: [],
        6: [],
    }


def test_a_field_of_the_elements_is_found_as_spark_finds_it(spark: SparkSession) -> None:
    lines = {
        "name": "lines",
        "logicalType": "array",
        "items": {
            "logicalType": "object",
            "properties": [
                {"name": "sku", "logicalType": "string", "required": True},
                {"name": "unit price", "logicalType": "integer", "required": True},
            ],
        },
    }
    contract, _ = load([{"name": "orders", "properties": [{"name": "id", "logicalType": "integer"}, lines]}])
    frame = spark.createDataFrame(
        [(1, [("a", "A", 1)]), (2, [("b", "B", None)])],
        "id int, lines array<struct<sku: string, SKU: string, `unit price`: int>>",
    )
    run = run_contract(contract, frame, now=NOW)
    observed = {r.rule.name: (r.assertion.status, r.observed, r.reason) for r in run.rule_results}
    assert observed["lines[*].unit price has no nulls (required)"] == ("FAILED", 1, None)  # any name but '$'
    # 'sku' and 'SKU' are one name to Spark by default: the rule says so, the gate still marks the other rules
    status, _, reason = observed["lines[*].sku has no nulls (required)"]
    assert status == "FAILED"
    assert reason is not None and "'lines[*]' has fields 'sku', 'SKU': Spark matches names ignoring case" in reason
    marked = annotate_rows(contract, frame, now=NOW).orderBy("id").collect()
    assert [[e["rule"] for e in row[ERRORS] or []] for row in marked] == [
        [],
        ["lines[*].unit price has no nulls (required)"],
    ]


def test_a_value_of_the_elements_of_another_type_is_named_by_its_path(spark: SparkSession) -> None:
    quantity = {"name": "q", "logicalType": "string", "logicalTypeOptions": {"maxLength": 2}}
    lines = {"name": "lines", "logicalType": "array", "items": {"logicalType": "object", "properties": [quantity]}}
    contract, _ = load([{"name": "orders", "properties": [lines]}])
    frame = spark.createDataFrame([([(5,)],)], "lines array<struct<q: int>>")
    (length,) = [
        r for r in run_contract(contract, frame, now=NOW).rule_results if r.rule.name == "lines[*].q maxLength 2"
    ]
    assert (length.assertion.status, length.reason) == ("FAILED", "maxLength applies to text; 'lines[*].q' is int")


def test_inside_array_elements_only_library_metrics_run(spark: SparkSession) -> None:
    sku = {
        "name": "sku",
        "logicalType": "string",
        "quality": [
            {"name": "no missing sku", "metric": "nullValues", "mustBe": 0},
            {
                "name": "dqx missing",
                "type": "custom",
                "engine": "dqx",
                "dimension": "completeness",
                "description": "every line names its sku",
                "implementation": {"check": "missing", "column": "sku", "mustBe": 0},
            },
            {"name": "sql", "type": "sql", "query": "SELECT COUNT(*) FROM ${table}", "mustBe": 0},
        ],
    }
    lines = {"name": "lines", "logicalType": "array", "items": {"logicalType": "object", "properties": [sku]}}
    contract, messages = load([{"name": "orders", "properties": [lines]}])
    skipped = {r.name: r.reason for r in contract.skipped_rules}
    reason = "a {} rule reads columns; inside array elements only library metrics run, on every element"
    assert skipped == {"dqx missing": reason.format("custom"), "sql": reason.format("sql")}
    # skipped, they say what they are as the rules they would have been: origin and dimension tag the result
    described = {r.name: (r.origin, r.dimension, r.description) for r in contract.skipped_rules}
    assert described == {
        "dqx missing": (RuleOrigin.DQX, "completeness", "every line names its sku"),
        "sql": (RuleOrigin.SQL, None, None),
    }
    assert len(messages) == 2
    frame = spark.createDataFrame([([("a",), (None,)],), ([("b",)],)], "lines array<struct<sku: string>>")
    (ran,) = [r for r in run_contract(contract, frame, now=NOW).rule_results if r.rule.name == "no missing sku"]
    assert (ran.assertion.status, ran.observed) == ("FAILED", 1)


# --- struct fields by path -----------------------------------------------------------------------------

ADDRESS = {
    "name": "address",
    "logicalType": "object",
    "required": True,
    "properties": [
        {
            "name": "zip",
            "logicalType": "string",
            "required": True,
            "logicalTypeOptions": {"pattern": "^[0-9]{5}$"},
            "quality": [{"name": "zip nulls", "metric": "nullValues", "mustBeLessThan": 5}],
        },
        {"name": "city", "logicalType": "string"},
    ],
}
DELIVERY = {
    "name": "delivery",
    "logicalType": "object",
    "properties": [{"name": "note", "logicalType": "string", "required": True}],
}


def test_struct_fields_are_checked_by_path(spark: SparkSession) -> None:
    contract, messages = load([{"name": "customers", "properties": [ADDRESS, DELIVERY]}])
    assert messages == []
    rules = {r.id: r for r in contract.rules}
    assert rules["schema[0].properties[0].properties[0].required"].expression() == (
        "null_count(address.zip where address is not NULL) = 0"
    )
    pattern_rule = rules["schema[0].properties[0].properties[0].logicalTypeOptions.pattern"]
    assert pattern_rule.expression() == "num_rows() - count_matching(address.zip, /^[0-9]{5}$/) = 0"
    frame = spark.createDataFrame(
        [(("12345", "a"), ("x",)), ((None, "b"), None), (("1234", "c"), (None,)), (None, None)],
        "address struct<zip: string, city: string>, delivery struct<note: string>",
    )
    run = run_contract(contract, frame, now=NOW)
    observed = {r.rule.id: (r.assertion.status, r.observed) for r in run.rule_results}
    assert observed["schema[0].properties[0].required"] == ("FAILED", 1)  # the last row has no address
    # a NULL address is its own rule's business: zip is NULL in one address that is there
    assert observed["schema[0].properties[0].properties[0].required"] == ("FAILED", 1)
    # a value must match: "1234", and the NULL zips (of the second row, and of the absent address)
    assert observed["schema[0].properties[0].properties[0].logicalTypeOptions.pattern"] == ("FAILED", 3)
    assert observed["schema[0].properties[0].properties[0].quality[0]"] == ("PASSED", 2)  # nullValues: like a column
    # delivery is optional: only the delivery that is there without a note breaks note's required
    assert observed["schema[0].properties[1].properties[0].required"] == ("FAILED", 1)
    marked = annotate_rows(contract, frame).where(
        F.exists(ERRORS, lambda e: e["rule"] == "delivery.note has no nulls (required)")
    )
    assert [row["delivery"] for row in marked.collect()] == [(None,)]  # the row marked is the one counted


def test_a_struct_field_of_the_wrong_type_fails_the_parents_type_rule(spark: SparkSession) -> None:
    contract, _ = load([{"name": "customers", "properties": [ADDRESS]}])
    frame = spark.createDataFrame([((12345, "a"),)], "address struct<zip: int, city: string>")
    run = run_contract(contract, frame, now=NOW)
    typed = result(run.rule_results, "schema[0].properties[0].logicalType")
    assert typed.assertion.status == "FAILED"
    assert "zip" in (typed.reason or str(typed.observed))


# --- what cannot run yet: SKIPPED, warned, linted --------------------------------------------------------


def test_datacontract_sla_properties_are_skipped_and_a_foreign_key_without_its_dataset_at_run_time(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = [
        {
            "name": "orders",
            "properties": [
                {"name": "id", "logicalType": "integer"},
                {"name": "user_id", "logicalType": "integer", "relationships": [{"to": "users.id"}]},
                {"name": "ts", "logicalType": "timestamp"},
            ],
            "quality": [{"name": "ids", "metric": "nullValues", "mustBe": 0}],
        }
    ]
    sla = [
        {"property": "retention", "value": 3, "unit": "y", "element": "orders.ts"},
        {"property": "frequency", "value": 1, "unit": "d", "element": "orders.ts"},
        {"property": "freshness", "value": 1, "unit": "h", "element": "orders.ts"},
        {"property": "availability", "value": "99.9%"},
    ]
    contract, messages = load(schema, slaProperties=sla)
    skipped = {r.id: r.reason for r in contract.skipped_rules}
    assert skipped == {
        "schema[0].quality[0]": "metric 'nullValues' measures a column but sits at schema level with no property; "
        "put the rule in that property's quality list",
        "slaProperties[0]": "how long data is kept (the oldest value's age) is not checked yet",
        "slaProperties[1]": "how often data arrives is not checked (one run sees one batch)",
        "slaProperties[2]": "datacontract-cli's freshness is not checked; write it as ODCS 'latency' for a freshness "
        "check",
    }
    assert [r.name for r in contract.skipped_rules][1:] == [
        "SLA: retention 3 y on orders.ts",
        "SLA: frequency 1 d on orders.ts",
        "SLA: freshness 1 h on orders.ts",
    ]
    assert len(messages) == len(skipped)
    assert "availability" in contract.sla_metadata
    frame = spark.createDataFrame([(1, 2, None)], "id bigint, user_id bigint, ts timestamp")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = run_contract(contract, frame, now=NOW)
    foreign_key = (
        "the foreign key is not checked: it needs the referenced dataset 'users', which this run was not given "
        "(run_contract(..., references={'users': dataframe}) or dqx-gx validate --reference users=PATH)"
    )
    skipped_at_run = {**skipped, "schema[0].properties[1].relationships[0]": foreign_key}
    assert {r.rule.id: r.reason for r in run.rule_results if r.assertion.status == "SKIPPED"} == skipped_at_run
    assert any(foreign_key in str(w.message) and issubclass(w.category, ContractWarning) for w in caught)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(odcs_document(schema, slaProperties=sla)))
    assert main(["lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "  note     schema[0].properties[1].relationships[0] (foreign key user_id → users.id): checked only when "
        "the run is given the dataset 'users' (--reference users=PATH); SKIPPED otherwise"
    ) in out
    assert "  skipped  SLA: retention 3 y on orders.ts: how long data is kept" in out
