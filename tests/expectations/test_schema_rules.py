"""Schema rules on Spark (type matrix, nesting, time zones, logicalTypeOptions), GX-declared rules, and suite meta."""

from __future__ import annotations

import datetime as dt
import warnings
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractWarning, RuleResult, run_contract
from dqx_gx.expectations import build_suite
from tests.documents import one_table
from tests.reference import duckdb_value


def results(spark: SparkSession, contract: Contract, rows: list[tuple[Any, ...]], ddl: str) -> dict[str, RuleResult]:
    run = run_contract(contract, spark.createDataFrame(rows, ddl))
    return {r.rule.name: r for r in run.rule_results}


TYPE_CASES = [
    # (declared property, Spark DDL of column c, passes)
    ({"logicalType": "string"}, "string", True),
    ({"logicalType": "string"}, "int", False),
    ({"logicalType": "integer"}, "tinyint", True),
    ({"logicalType": "integer"}, "bigint", True),
    ({"logicalType": "integer"}, "double", False),
    ({"logicalType": "integer"}, "decimal(10,0)", False),
    ({"logicalType": "number"}, "double", True),
    ({"logicalType": "number"}, "float", True),
    ({"logicalType": "number"}, "decimal(38,18)", True),
    ({"logicalType": "number"}, "bigint", False),
    ({"logicalType": "boolean"}, "boolean", True),
    ({"logicalType": "boolean"}, "string", False),
    ({"logicalType": "date"}, "date", True),
    ({"logicalType": "date"}, "timestamp", False),
    ({"logicalType": "timestamp"}, "timestamp", True),
    ({"logicalType": "timestamp"}, "timestamp_ntz", True),
    (
        {"logicalType": "timestamp", "logicalTypeOptions": {"timezone": True, "defaultTimezone": "UTC"}},
        "timestamp",
        True,
    ),
    ({"logicalType": "timestamp", "logicalTypeOptions": {"timezone": True}}, "timestamp_ntz", False),
    ({"logicalType": "timestamp", "logicalTypeOptions": {"timezone": False}}, "timestamp", False),
    ({"logicalType": "array", "items": {"logicalType": "integer"}}, "array<int>", True),
    ({"logicalType": "array", "items": {"logicalType": "integer"}}, "array<string>", False),
    ({"logicalType": "array"}, "array<map<string,int>>", True),
    (
        {"logicalType": "object", "properties": [{"name": "city", "logicalType": "string"}]},
        "struct<city:string,zip:string>",
        True,
    ),
    (
        {"logicalType": "object", "properties": [{"name": "city", "logicalType": "string"}]},
        "struct<city:int>",
        False,
    ),
    (
        {"logicalType": "object", "properties": [{"name": "street", "logicalType": "string"}]},
        "struct<city:string>",
        False,
    ),
    (
        {"logicalType": "map", "map": {"key": {"logicalType": "string"}, "value": {"logicalType": "integer"}}},
        "map<string,bigint>",
        True,
    ),
    (
        {"logicalType": "map", "map": {"key": {"logicalType": "string"}, "value": {"logicalType": "integer"}}},
        "map<string,string>",
        False,
    ),
    ({"logicalType": "vector", "logicalTypeOptions": {"dimensions": 3}}, "array<float>", True),
    ({"physicalType": "varchar"}, "binary", True),  # no logicalType: existence only
]


@pytest.mark.parametrize(("declared", "ddl", "passes"), TYPE_CASES)
def test_type_matrix(spark: SparkSession, declared: dict[str, Any], ddl: str, passes: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)  # vector dimensions: recorded, not checked
        contract = one_table([{"name": "c", **declared}])
    type_rule = next(r for r in contract.rules if r.id.endswith(".logicalType"))
    result = results(spark, contract, [], f"c {ddl}")[type_rule.name]
    assert result.assertion.status == ("PASSED" if passes else "FAILED")
    assert result.observed == ddl
    if not passes:
        assert result.reason is not None and result.reason.startswith("Property 'c'")


def test_type_mismatch_message_in_dqx_format(spark: SparkSession) -> None:
    result = results(spark, one_table([{"name": "order_id", "logicalType": "integer"}]), [], "order_id string")
    assert result["order_id has type integer"].reason == (
        "Property 'order_id' type mismatch: expected logicalType 'integer' (tinyint, smallint, int, bigint), got string"
    )


def test_nested_mismatch_names_the_field(spark: SparkSession) -> None:
    prop = {
        "name": "address",
        "logicalType": "object",
        "properties": [{"name": "geo", "logicalType": "array", "items": {"logicalType": "number"}}],
    }
    result = results(spark, one_table([prop]), [], "address struct<geo:array<string>>")
    assert result["address has type object<geo: array<number>>"].reason == (
        "Property 'address'.geo items type mismatch: expected logicalType 'number' (float, double, decimal), got string"
    )


def test_column_found_with_different_case(spark: SparkSession) -> None:
    result = results(
        spark,
        one_table([{"name": "OrderId", "logicalType": "integer", "required": True}]),
        [(1,), (None,)],
        "orderid int",
    )
    assert result["OrderId has type integer"].assertion.status == "PASSED"
    assert result["OrderId has no nulls (required)"].observed == 1


OPTION_CASES = [
    # (logicalType, option, value, column DDL, rows, DuckDB predicate for a violation)
    ("string", "minLength", 2, "string", ["a", "ab", "abc", None, "é"], "length(c) < 2"),
    ("string", "maxLength", 2, "string", ["a", "ab", "abc", None, "日本語"], "length(c) > 2"),
    ("integer", "minimum", 0, "bigint", [-1, 0, 5, None], "c < 0"),
    ("integer", "exclusiveMinimum", 0, "bigint", [-1, 0, 5, None], "c <= 0"),
    ("number", "maximum", 1.5, "double", [1.5, 1.6, -3.0, None], "c > 1.5"),
    ("number", "exclusiveMaximum", 1.5, "double", [1.5, 1.6, -3.0, None], "c >= 1.5"),
    ("integer", "multipleOf", 5, "bigint", [10, 11, -5, 0, None], "c % 5 != 0"),
    ("date", "minimum", "2024-01-01", "date", ["2023-12-31", "2024-01-01", None], "c < DATE '2024-01-01'"),
]


@pytest.mark.parametrize(("lt", "option", "value", "ddl", "values", "predicate"), OPTION_CASES)
def test_logical_type_option_violations_match_duckdb(
    spark: SparkSession, lt: str, option: str, value: Any, ddl: str, values: list[Any], predicate: str
) -> None:
    typed = [dt.date.fromisoformat(v) if ddl == "date" and v else v for v in values]
    contract = one_table([{"name": "c", "logicalType": lt, "logicalTypeOptions": {option: value}}])
    (rule,) = [r for r in contract.rules if r.id.endswith(f".logicalTypeOptions.{option}")]
    result = results(spark, contract, [(v,) for v in typed], f"c {ddl}")[rule.name]
    arrow = {"string": pa.string(), "bigint": pa.int64(), "double": pa.float64(), "date": pa.date32()}[ddl]
    expected = duckdb_value(pa.table({"c": pa.array(typed, type=arrow)}), f"COUNT_IF(c IS NOT NULL AND {predicate})")
    assert result.observed == expected
    assert result.assertion.status == ("PASSED" if expected == 0 else "FAILED")
    assert result.assertion.severity == "P1"


def test_array_options(spark: SparkSession) -> None:
    contract = one_table(
        [
            {
                "name": "c",
                "logicalType": "array",
                "items": {"logicalType": "string"},
                "logicalTypeOptions": {"maxItems": 2, "uniqueItems": True},
            }
        ]
    )
    rows = [(["a", "b"],), (["a", "a"],), (["a", "b", "c"],), (None,), ([],)]
    by_name = results(spark, contract, rows, "c array<string>")
    assert by_name["c maxItems 2"].observed == 1
    assert by_name["c uniqueItems True"].observed == 1


def test_pattern_option_counts_nulls_as_not_matching(spark: SparkSession) -> None:
    """A value must match a pattern: NULL does not (as for invalidValues' pattern), unlike the other options."""
    values = ["abc", "aBc", "", None, "x1", None]
    contract = one_table([{"name": "c", "logicalType": "string", "logicalTypeOptions": {"pattern": "^[a-z]+$"}}])
    result = results(spark, contract, [(v,) for v in values], "c string")["c pattern ^[a-z]+$"]
    table = pa.table({"c": pa.array(values, type=pa.string())})
    expected = duckdb_value(table, "COUNT_IF(c IS NULL OR NOT regexp_matches(c, '^[a-z]+$'))")
    assert result.observed == expected == 5
    assert result.assertion.status == "FAILED" and result.assertion.severity == "P1"


def test_pattern_on_items_counts_rows_with_a_null_or_unmatched_element(spark: SparkSession) -> None:
    items = {"logicalType": "string", "logicalTypeOptions": {"pattern": "^[a-z]+$"}}
    contract = one_table([{"name": "c", "logicalType": "array", "items": items}])
    rows = [(["abc"],), (["abc", None],), (["X", "y"],), (None,), ([],)]
    result = results(spark, contract, rows, "c array<string>")["c[*] pattern ^[a-z]+$"]
    assert result.observed == 2  # the NULL element, and "X"; a NULL or empty array has no element to break it


def test_string_format_option(spark: SparkSession) -> None:
    contract = one_table([{"name": "c", "logicalType": "string", "logicalTypeOptions": {"format": "email"}}])
    rows = [("a@b.org",), ("not-an-email",), (None,), ("x@y",)]
    assert results(spark, contract, rows, "c string")["c format email"].observed == 2


# --- rules written as GX expectations (engine: greatExpectations) -----------------------------------------


def gx_rule(name: str, implementation: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": "custom", "engine": "greatExpectations", "implementation": implementation, **extra}


def test_declared_gx_expectations_run_as_gx_builtins(spark: SparkSession) -> None:
    contract = one_table(
        [
            {
                "name": "c",
                "quality": [gx_rule("not null", {"type": "expect_column_values_to_not_be_null"}, severity="error")],
            }
        ],
        [gx_rule("rows", {"type": "expect_table_row_count_to_be_between", "kwargs": {"minValue": 1, "maxValue": 2}})],
    )
    by_name = results(spark, contract, [("x",), (None,), ("y",)], "c string")
    not_null, rows = by_name["not null"], by_name["rows"]
    assert (not_null.assertion.status, not_null.assertion.severity, not_null.expectation_type) == (
        "FAILED",
        "P0",
        "expect_column_values_to_not_be_null",
    )
    assert not_null.assertion.metric.unwrap() == 1.0  # unexpected_count
    assert (rows.assertion.status, rows.observed) == ("FAILED", 3)


REGEX_ON_AN_ARRAY = (
    'GX could not evaluate the rule: [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "RLIKE(c, ^a)" '
    'due to data type mismatch: The first parameter requires the "STRING" type, however "c" has the type '
    '"ARRAY<STRING>". SQLSTATE: 42K09'
)
"""The reason of a GX regex rule on an array column ``c``: Spark's analysis error, its first line."""


def test_a_gx_rule_spark_refuses_fails_with_the_first_line_of_sparks_error(spark: SparkSession) -> None:
    """Spark's analysis error goes on with the query's whole plan; the reason keeps its first line."""
    regex = {"type": "expect_column_values_to_match_regex", "kwargs": {"regex": "^a"}}
    contract = one_table([{"name": "c", "quality": [gx_rule("re", regex)]}])
    re_rule = results(spark, contract, [(["a"],), (None,)], "c array<string>")["re"]
    assert re_rule.assertion.status == "FAILED"
    assert re_rule.reason == REGEX_ON_AN_ARRAY


def test_a_gx_rule_whose_python_udf_raises_fails_with_the_python_error(spark: SparkSession) -> None:
    """GX runs this expectation as a Python UDF; PySpark passes its error on after a line saying only that
    an error follows, with the whole traceback: the reason is the line naming the exception."""
    strftime = {"type": "expect_column_values_to_match_strftime_format", "kwargs": {"strftime_format": "%Y"}}
    contract = one_table([{"name": "t", "quality": [gx_rule("fmt", strftime)]}])
    fmt = results(spark, contract, [(dt.datetime(2026, 1, 1),)], "t timestamp")["fmt"]
    assert (fmt.assertion.status, fmt.reason) == (
        "FAILED",
        "GX could not evaluate the rule: TypeError: Values passed to expect_column_values_to_match_strftime_format"
        " must be of type string.",
    )


def test_unknown_or_malformed_gx_expectation_is_skipped_with_reason(spark: SparkSession) -> None:
    contract = one_table(
        [{"name": "c"}],
        [
            gx_rule("nope", {"type": "expect_the_moon"}),
            gx_rule(
                "bad kwargs",
                {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "c", "colour": "red"}},
            ),
        ],
    )
    with pytest.warns(ContractWarning) as caught:
        by_name = results(spark, contract, [("x",)], "c string")
    assert by_name["nope"].assertion.status == "SKIPPED"
    assert by_name["nope"].reason == "GX has no expectation 'expect_the_moon'"
    assert by_name["bad kwargs"].assertion.status == "SKIPPED"
    assert "does not accept" in (by_name["bad kwargs"].reason or "")
    assert len([w for w in caught if "skipping" in str(w.message)]) == 2


# --- the suite itself ------------------------------------------------------------------------------------------


def test_two_rules_on_one_column_stay_two_expectations() -> None:
    null_rule = {"metric": "nullValues", "mustBe": 0}
    same = gx_rule("g", {"type": "expect_column_values_to_not_be_null"})
    contract = one_table(
        [
            {
                "name": "c",
                "quality": [{"name": "a", **null_rule}, {"name": "b", **null_rule}, same, {**same, "name": "g2"}],
            }
        ]
    )
    suite = build_suite(contract).suite
    assert len(suite.expectations) == 5  # type rule + four quality rules
    assert [e.description for e in suite.expectations if e.expectation_type.startswith("expect_column")] == [None, "g2"]


def test_expectation_meta_traces_back_to_the_rule() -> None:
    contract = one_table(
        [
            {
                "name": "c",
                "quality": [
                    {
                        "name": "few nulls",
                        "metric": "nullValues",
                        "mustBeLessThan": 5,
                        "severity": "warning",
                        "dimension": "completeness",
                    }
                ],
            }
        ]
    )
    suite = build_suite(contract).suite
    expectation = suite.expectations[-1]
    assert expectation.severity == "warning"
    assert expectation.meta == {
        "dqx": {
            "contract": "Contract: c",
            "contract_id": "c-1",
            "rule_id": "schema[0].properties[0].quality[0]",
            "rule": "few nulls",
            "severity": "P1",
            "dimension": "completeness",
            "origin": "library",
            "expression": "null_count(c) < 5",
            "metric": "null_count",
            "operator": "mustBeLessThan",
            "threshold": 5.0,
        }
    }
    assert suite.meta["dqx"]["rule_ids"] == [
        "schema[0].properties[0].logicalType",
        "schema[0].properties[0].quality[0]",
    ]


@pytest.mark.parametrize(
    ("label", "gx"), [("error", "critical"), ("warning", "warning"), ("info", "info"), ("low", "info")]
)
def test_severity_reaches_gx(label: str, gx: str) -> None:
    contract = one_table(
        [{"name": "c", "quality": [{"name": "r", "metric": "nullValues", "mustBe": 0, "severity": label}]}]
    )
    assert build_suite(contract).suite.expectations[-1].severity == gx
