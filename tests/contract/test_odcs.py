"""ODCS loading: the DQX spec's complete example, its error surface, and the normalisations of docs/semantics.md, 'Contracts in'."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
import yaml

from dqx_gx import Contract, ContractValidationError, ContractWarning, load_contracts
from dqx_gx.kinds import MetricKind, Scale
from dqx_gx.rules.rule import ExpectationRule, MetricRule, RuleOrigin, SkippedRule, SqlRule, TypeRule
from dqx_gx.rules.threshold import Operator
from tests.conftest import EXAMPLES, dedent
from tests.documents import odcs_document
from tests.kinds.test_words import COUNTING_ROWS

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

ORDERS = EXAMPLES / "orders" / "orders.odcs.yaml"


def base(**extra: Any) -> dict[str, Any]:
    """A minimal valid ODCS document with one schema object."""
    return odcs_document([{"name": "t", "properties": [{"name": "a", "logicalType": "integer"}]}], **extra)


def with_rule(rule: dict[str, Any], *, on_property: bool = True) -> dict[str, Any]:
    doc = base()
    target = doc["schema"][0]["properties"][0] if on_property else doc["schema"][0]
    target["quality"] = [rule]
    return doc


def load_one(doc: Any) -> Contract:
    (contract,) = Contract.from_odcs(doc)
    return contract


def rule_named(contract: Contract, name: str) -> Any:
    return next(r for r in contract.rules if r.name == name)


# --- the complete contract of DQX ODCS spec §6.7 -------------------------------------------------------


@pytest.fixture(scope="module")
def orders() -> tuple[Contract, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (contract,) = Contract.from_odcs(ORDERS)
    return contract, [str(w.message) for w in caught if issubclass(w.category, ContractWarning)]


def test_complete_example_identity(orders: tuple[Contract, list[str]]) -> None:
    contract, _ = orders
    assert contract.name == "orders_contract"
    assert contract.dataset == "orders_tbl"  # physicalName wins over name
    assert contract.version == "2.0.0"
    assert contract.api_version == "v3.1.0"
    assert contract.contract_id == "f7a3b2c1-d4e5-6789-abcd-0123456789ef"
    assert contract.status == "active"
    assert contract.check_name == "Contract: orders_contract"
    assert [p.name for p in contract.properties] == ["order_id", "status", "total_amount", "product_name", "order_date"]
    order_date = contract.property("order_date")
    assert order_date is not None and order_date.partitioned and order_date.partition_key_position == 1


def test_complete_example_rules_in_dqx_words(orders: tuple[Contract, list[str]]) -> None:
    contract, _ = orders
    quality = {r.name: (r.severity, r.expression()) for r in contract.rules if r.origin is not RuleOrigin.SCHEMA}
    assert quality == {
        "daily_row_count": ("P1", "num_rows() ≥ 100"),
        "composite_key_unique": ("P0", "duplicate_count(order_id, order_date) = 0"),
        "volume_floor": ("P1", "num_rows() ≥ 100"),
        "fraud_sql_check": ("P1", "sql(SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 99999) = 0"),
        "order_id_no_nulls": ("P0", "null_count(order_id) = 0"),
        "order_id_positive": ("P0", "min(order_id) ≥ 1"),
        "status_valid_values": (
            "P0",
            "num_rows() - count_values(status, ['pending', 'processing', 'shipped', 'delivered', 'cancelled']) = 0",
        ),
        "status_low_cardinality": ("P1", "cardinality(status) ≤ 10"),
        "average_order_value_reasonable": ("P1", "mean(total_amount) in [10, 500]"),
        "total_amount_complete": ("P0", "null_count(total_amount) / num_rows() = 0"),
        "product_name_length_sanity": ("P1", "avg_length(product_name) in [3, 120]"),
        "SLA: Freshness check": ("P0", "freshness_hours(order_date) ≤ 24"),
    }


def test_complete_example_schema_rules(orders: tuple[Contract, list[str]]) -> None:
    contract, _ = orders
    schema = [(r.id, r.name) for r in contract.rules if r.origin is RuleOrigin.SCHEMA]
    assert schema == [
        ("schema[0].properties[0].logicalType", "order_id has type integer"),
        ("schema[0].properties[0].required", "order_id has no nulls (required)"),
        ("schema[0].properties[1].logicalType", "status has type string"),
        ("schema[0].properties[1].required", "status has no nulls (required)"),
        ("schema[0].properties[2].logicalType", "total_amount has type number"),
        ("schema[0].properties[2].required", "total_amount has no nulls (required)"),
        ("schema[0].properties[3].logicalType", "product_name has type string"),
        ("schema[0].properties[4].logicalType", "order_date has type date"),
        ("schema[0].properties[4].required", "order_date has no nulls (required)"),
    ]
    assert all(r.severity == "P0" for r in contract.rules if r.origin is RuleOrigin.SCHEMA)


def test_complete_example_text_sql_and_sla(orders: tuple[Contract, list[str]]) -> None:
    contract, messages = orders
    assert [(t.name, t.description) for t in contract.text_rules] == [
        ("order_id_description", "order_id is the primary key; generated by the order-service integer ID generator")
    ]
    sql = rule_named(contract, "fraud_sql_check")
    assert isinstance(sql, SqlRule) and sql.origin is RuleOrigin.SQL
    assert sql.query == "SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 99999"
    assert not any("fraud_sql_check" in m for m in messages)  # whether it runs is decided at translation
    assert contract.sla_latency is not None
    assert (contract.sla_latency.max_age_hours, contract.sla_latency.timestamp_column) == (24.0, "order_date")
    assert dict(contract.sla_metadata) == {"retention": {"value": 3, "unit": "y"}}


def test_complete_example_operator_beside_implementation_is_accepted_and_linted(
    orders: tuple[Contract, list[str]],
) -> None:
    contract, messages = orders
    positive = rule_named(contract, "order_id_positive")
    assert positive.threshold.operator is Operator.GREATER_OR_EQUAL and positive.threshold.value == 1.0
    assert not any("beside" in m for m in messages)  # DQX's documented form: no warning
    assert len(contract.lint_notes) == 6
    assert (
        "order_id_positive" in contract.lint_notes[1] and "move it inside the implementation" in contract.lint_notes[1]
    )


def test_deprecated_valid_values_is_moved_with_a_warning() -> None:
    """The example now uses the current form; datacontract-cli's older contracts still write it at the top."""
    doc = with_rule({"name": "v", "metric": "invalidValues", "mustBe": 0, "validValues": ["pending", "shipped"]})
    with pytest.warns(ContractWarning, match=r"top-level 'validValues' is deprecated; read as 'arguments.validValues'"):
        contract = load_one(doc)
    rule = rule_named(contract, "v")
    assert rule.metric.kind is MetricKind.INVALID_COUNT
    assert rule.metric.values == ("pending", "shipped")


# --- required fields and DQX's error messages ----------------------------------------------------------


@pytest.mark.parametrize("field", ["version", "apiVersion", "kind", "id", "status"])
def test_missing_required_field(field: str) -> None:
    doc = base()
    del doc[field]
    with pytest.raises(ContractValidationError, match=f"'{field}' is a required property"):
        Contract.from_odcs(doc)


def test_unknown_logical_type_in_dqx_words() -> None:
    doc = base()
    doc["schema"][0]["properties"][0]["logicalType"] = "uuid"
    with pytest.raises(ContractValidationError, match=r"Property 'a': unknown logicalType 'uuid'"):
        Contract.from_odcs(doc)


@pytest.mark.parametrize(
    ("operator", "message"),
    [
        (100, "Quality rule 'amount_range': mustBeBetween must be a list of [lower, upper], got: 100"),
        ([500, 10], "Quality rule 'amount_range': mustBeBetween lower bound 500 is greater than upper bound 10"),
        ([1, "x"], "Quality rule 'amount_range': mustBeBetween bound must be a number, got: 'x'"),
        ([1, 2, 3], "Quality rule 'amount_range': mustBeBetween must be a list of [lower, upper], got: [1, 2, 3]"),
    ],
)
def test_malformed_between(operator: Any, message: str) -> None:
    doc = with_rule({"name": "amount_range", "metric": "nullValues", "mustBeBetween": operator})
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(doc)
    assert message in str(caught.value)


def test_non_numeric_scalar_operator() -> None:
    doc = with_rule({"name": "n", "metric": "nullValues", "mustBe": "zero"})
    with pytest.raises(ContractValidationError, match=r"Quality rule 'n': mustBe must be a number, got: 'zero'"):
        Contract.from_odcs(doc)


def test_two_operators() -> None:
    doc = with_rule({"name": "n", "metric": "nullValues", "mustBe": 0, "mustBeLessThan": 3})
    with pytest.raises(ContractValidationError, match=r"Quality rule 'n': has more than one operator"):
        Contract.from_odcs(doc)


def test_non_finite_threshold_is_refused() -> None:
    doc = with_rule({"name": "n", "metric": "nullValues", "mustBeLessThan": float("inf")})
    with pytest.raises(ContractValidationError, match=r"mustBeLessThan must be a finite number"):
        Contract.from_odcs(doc)


def test_unsupported_api_version() -> None:
    with pytest.raises(ContractValidationError, match=r"apiVersion 'v2.2.2' is not supported"):
        Contract.from_odcs(base(apiVersion="v2.2.2"))


@pytest.mark.parametrize("version", ["v3.0.0", "v3.0.1", "v3.0.2", "v3.1.0", "v3.2.0"])
def test_supported_api_versions(version: str) -> None:
    assert load_one(base(apiVersion=version)).api_version == version


def test_property_without_logical_type_loads_despite_the_322_schema_bug() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [{"name": "c", "physicalType": "varchar"}]
    contract = load_one(doc)
    (rule,) = contract.rules
    assert isinstance(rule, TypeRule) and rule.data_type is None and rule.name == "c exists"


def test_schema_errors_name_the_field() -> None:
    doc = base()
    doc["schema"][0]["properties"][0]["required"] = "yes"
    with pytest.raises(
        ContractValidationError,
        match=r"schema\[0\]\.properties\[0\]\.required: 'required' must be a boolean \(true/false\), got: string \('yes'\)$",
    ):
        Contract.from_odcs(doc)


# --- library metrics -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "kind", "values", "expression"),
    [
        ({"metric": "nullValues", "mustBe": 0}, MetricKind.NULL_COUNT, (), "null_count(a) = 0"),
        ({"metric": "missingValues", "mustBe": 0}, MetricKind.NULL_COUNT, (), "null_count(a) = 0"),
        (
            {"metric": "missingValues", "mustBe": 0, "arguments": {"missingValues": [None, "", "N/A"]}},
            MetricKind.MISSING_COUNT,
            ("", "N/A"),
            "null_count(a) + count_values(a, ['', 'N/A']) = 0",
        ),
        (
            {"metric": "invalidValues", "mustBe": 0, "arguments": {"validValues": [1, 2]}},
            MetricKind.INVALID_COUNT,
            (1, 2),
            "num_rows() - count_values(a, [1, 2]) = 0",
        ),
        ({"metric": "duplicateValues", "mustBe": 0}, MetricKind.DUPLICATE_COUNT, (), "duplicate_count(a) = 0"),
        ({"metric": "rowCount", "mustBeGreaterThan": 5}, MetricKind.NUM_ROWS, (), "num_rows() > 5"),
    ],
)
def test_library_metrics(rule: dict[str, Any], kind: MetricKind, values: tuple[Any, ...], expression: str) -> None:
    contract = load_one(with_rule({"name": "r", **rule}))
    parsed = rule_named(contract, "r")
    assert isinstance(parsed, MetricRule)
    assert parsed.metric.kind is kind and parsed.metric.values == values
    assert parsed.expression() == expression


def test_invalid_values_with_pattern_is_executable() -> None:
    rule = {"name": "iban", "metric": "invalidValues", "mustBe": 0, "arguments": {"pattern": "^[A-Z]{2}[0-9]{2}"}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)
        parsed = rule_named(load_one(with_rule(rule)), "iban")
    assert parsed.metric.kind is MetricKind.PATTERN_INVALID_COUNT and parsed.metric.pattern == "^[A-Z]{2}[0-9]{2}"


def test_percent_unit_is_a_percentage_of_all_rows() -> None:
    rule = {"name": "p", "metric": "nullValues", "mustBeLessThan": 1, "unit": "percent"}
    parsed = rule_named(load_one(with_rule(rule)), "p")
    assert parsed.metric.scale is Scale.PERCENT
    assert parsed.expression() == "100 * null_count(a) / num_rows() < 1"


def test_schema_level_duplicates_over_properties() -> None:
    rule = {"name": "pk", "metric": "duplicateValues", "mustBe": 0, "arguments": {"properties": ["a", "b"]}}
    doc = with_rule(rule, on_property=False)
    doc["schema"][0]["properties"].append({"name": "b", "logicalType": "string"})
    parsed = rule_named(load_one(doc), "pk")
    assert parsed.metric.columns == ("a", "b") and parsed.column is None


def test_percent_row_count_is_an_error() -> None:
    doc = with_rule({"name": "n", "metric": "rowCount", "mustBe": 0, "unit": "percent"}, on_property=False)
    with pytest.raises(ContractValidationError, match=r"unit 'percent' does not apply to metric 'rowCount'"):
        Contract.from_odcs(doc)


def test_unknown_argument_is_an_error() -> None:
    doc = with_rule({"name": "n", "metric": "nullValues", "mustBe": 0, "arguments": {"validValues": [1]}})
    with pytest.raises(ContractValidationError, match=r"unknown argument\(s\) validValues for metric 'nullValues'"):
        Contract.from_odcs(doc)


def test_odcs30_rule_is_read_as_metric_with_a_warning() -> None:
    doc = with_rule({"name": "d", "rule": "duplicateCount", "mustBeLessThan": 10})
    with pytest.warns(
        ContractWarning, match=r"'rule: duplicateCount' is the ODCS 3.0 form; read as 'metric: duplicateValues'"
    ):
        parsed = rule_named(load_one(doc), "d")
    assert parsed.metric.kind is MetricKind.DUPLICATE_COUNT


def test_unknown_odcs30_rule_is_an_error() -> None:
    with pytest.raises(ContractValidationError, match=r"quality\[0\]\.rule: 'freshness' is not an ODCS library rule"):
        Contract.from_odcs(with_rule({"name": "d", "rule": "freshness", "mustBe": 1}))


def test_bad_regex_is_refused_at_load() -> None:
    rule = {"name": "re", "metric": "invalidValues", "mustBe": 0, "arguments": {"pattern": "[a-"}}
    with pytest.raises(ContractValidationError, match=r"invalid regular expression '\[a-'"):
        Contract.from_odcs(with_rule(rule))


# --- type: custom, engine: dqx ------------------------------------------------------------------------------


def dqx_rule(implementation: Any, **extra: Any) -> dict[str, Any]:
    return with_rule({"name": "x", "type": "custom", "engine": "dqx", "implementation": implementation, **extra})


@pytest.mark.parametrize(
    ("implementation", "kind", "expression"),
    [
        ("check: missing\ncolumn: a\nreturn: pct\n", MetricKind.NULL_COUNT, "null_count(a) / num_rows() ≤ 0.1"),
        ("check: duplicates\ncolumn: a\n", MetricKind.DUPLICATE_COUNT, "duplicate_count(a) ≤ 0.1"),
        (
            "check: whitelist\ncolumn: a\nvalues: [1, 2]\n",
            MetricKind.INVALID_COUNT,
            "num_rows() - count_values(a, [1, 2]) ≤ 0.1",
        ),
        (
            "check: blacklist\ncolumn: a\nvalues: [x]\nreturn: count\n",
            MetricKind.COUNT_VALUES,
            "count_values(a, ['x']) ≤ 0.1",
        ),
        ("check: cardinality\ncolumn: a\n", MetricKind.CARDINALITY, "cardinality(a) ≤ 0.1"),
        ("check: variance\ncolumn: a\n", MetricKind.VARIANCE, "variance(a) ≤ 0.1"),
        ("check: stddev\ncolumn: a\n", MetricKind.STDDEV, "stddev(a) ≤ 0.1"),
        ("check: count\ncolumn: a\n", MetricKind.COUNT, "count(a) ≤ 0.1"),
        ("check: percentile\ncolumn: a\npercentile: 0.95\n", MetricKind.PERCENTILE, "percentile(a, 0.95) ≤ 0.1"),
        ("check: max_length\ncolumn: a\ncolumn_type: list\n", MetricKind.MAX_LENGTH, "max_length(a) ≤ 0.1"),
        ("check: num_rows\n", MetricKind.NUM_ROWS, "num_rows() ≤ 0.1"),
        ({"check": "sum", "column": "a"}, MetricKind.SUM, "sum(a) ≤ 0.1"),
    ],
)
def test_dqx_check_vocabulary(implementation: Any, kind: MetricKind, expression: str) -> None:
    parsed = rule_named(load_one(dqx_rule(implementation, mustBeLessOrEqualTo=0.1)), "x")
    assert parsed.origin is RuleOrigin.DQX and parsed.metric.kind is kind
    assert parsed.expression() == expression


def test_dqx_operator_inside_implementation_is_portable() -> None:
    contract = load_one(dqx_rule("check: min\ncolumn: a\nmustBeGreaterThan: 0\n"))
    assert rule_named(contract, "x").expression() == "min(a) > 0"
    assert not any("beside" in note for note in contract.lint_notes)


def test_dqx_rule_without_operator_only_records() -> None:
    parsed = rule_named(load_one(dqx_rule("check: mean\ncolumn: a\n")), "x")
    assert parsed.threshold is None and parsed.expression() == "mean(a)"


@pytest.mark.parametrize(
    ("implementation", "message"),
    [
        ("check: [unclosed\n", "Quality rule 'x': implementation: invalid YAML"),
        ("check: median\ncolumn: a\n", "Quality rule 'x': unknown check 'median'; expected one of: missing"),
        ("check: min\n", "Quality rule 'x': check 'min' needs 'column:' in its implementation"),
        (
            "check: missing\ncolumn: a\nreturn: percent\n",
            "Quality rule 'x': return must be 'count' or 'pct', got: 'percent'",
        ),
        (
            "check: percentile\ncolumn: a\npercentile: 95\n",
            "Quality rule 'x': percentile must be a number between 0.0 and 1.0, got: 95",
        ),
        ("check: percentile\ncolumn: a\n", "Quality rule 'x': check 'percentile' needs 'percentile:'"),
        (
            "check: avg_length\ncolumn: a\ncolumn_type: text\n",
            "Quality rule 'x': column_type must be one of string, list, map, got: 'text'",
        ),
        ("check: avg_length\ncolumn: a\n", "Quality rule 'x': check 'avg_length' needs 'column_type:'"),
        (
            "check: min\ncolumn: a\nreturn: pct\n",
            f"Quality rule 'x': return applies only to {COUNTING_ROWS}, not to 'min'",
        ),
        ("check: whitelist\ncolumn: a\n", "Quality rule 'x': check 'whitelist' needs 'values:'"),
        ("check: num_rows\ncolumn: a\n", "Quality rule 'x': check 'num_rows' is table-level"),
        ("check: min\ncolumn: a\ncolum: b\n", "Quality rule 'x': unknown key 'colum' in the implementation"),
        ("- check: min\n", "Quality rule 'x': the implementation must be a mapping with a 'check:' key"),
    ],
)
def test_dqx_implementation_errors(implementation: str, message: str) -> None:
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(dqx_rule(implementation))
    assert message in str(caught.value)


def test_dqx_operator_in_both_places_is_an_error() -> None:
    doc = dqx_rule("check: min\ncolumn: a\nmustBe: 1\n", mustBe=2)
    with pytest.raises(ContractValidationError, match=r"operator given both beside the implementation"):
        Contract.from_odcs(doc)


def test_dqx_column_refers_to_property_physical_name() -> None:
    doc = dqx_rule("check: min\ncolumn: a\n")
    doc["schema"][0]["properties"][0]["physicalName"] = "col_a"
    parsed = rule_named(load_one(doc), "x")
    assert parsed.metric.columns == ("col_a",)


# --- skipped rules: recorded, warned, never dropped ---------------------------------------------------------


def test_other_engine_is_skipped_with_dqx_message() -> None:
    doc = with_rule(
        {"name": "soda_check", "type": "custom", "engine": "soda", "implementation": "missing_count(a) = 0"}
    )
    with pytest.warns(ContractWarning) as caught:
        parsed = rule_named(load_one(doc), "soda_check")
    assert isinstance(parsed, SkippedRule)
    assert "Quality rule 'soda_check': type 'custom' with engine 'soda' is not executable in DQX; skipping" in [
        str(w.message) for w in caught
    ]


def test_databricks_dqx_format_is_skipped_saying_so() -> None:
    implementation = {"criticality": "error", "check": {"function": "is_not_null", "arguments": {"column": "a"}}}
    doc = with_rule({"type": "custom", "engine": "dqx", "implementation": implementation})
    with pytest.warns(ContractWarning, match=r"Databricks Labs DQX format \(check: \{function: is_not_null\}\)"):
        contract = load_one(doc)
    (skipped,) = contract.skipped_rules
    assert "different product" in skipped.reason and skipped.id == "schema[0].properties[0].quality[0]"


def test_rule_without_type_or_metric_is_skipped() -> None:
    with pytest.warns(ContractWarning, match=r"has neither a type nor a metric; nothing to run; skipping"):
        contract = load_one(with_rule({"name": "vague", "description": "should be good"}))
    assert [r.name for r in contract.skipped_rules] == ["vague"]


def test_struct_field_rule_runs_by_path_array_items_rule_on_every_element() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [
        {
            "name": "address",
            "logicalType": "object",
            "properties": [
                {
                    "name": "city",
                    "logicalType": "string",
                    "quality": [{"name": "c", "metric": "nullValues", "mustBe": 0}],
                }
            ],
        },
        {
            "name": "tags",
            "logicalType": "array",
            "items": {
                "logicalType": "string",
                "quality": [
                    {"name": "t", "metric": "nullValues", "mustBe": 0},
                    {"name": "d", "metric": "duplicateValues", "mustBe": 0},
                ],
            },
        },
        {
            "name": "lines",
            "logicalType": "array",
            "items": {
                "logicalType": "object",
                "properties": [
                    {
                        "name": "sku",
                        "logicalType": "string",
                        "quality": [{"name": "s", "metric": "nullValues", "mustBe": 0}],
                    }
                ],
            },
        },
    ]
    with pytest.warns(ContractWarning) as caught:
        contract = load_one(doc)
    assert rule_named(contract, "c").expression() == "null_count(address.city) = 0"
    assert rule_named(contract, "t").expression() == "null_count(tags[*]) = 0"
    assert rule_named(contract, "s").expression() == "null_count(lines[*].sku) = 0"
    skipped = {r.id: r.reason for r in contract.skipped_rules}
    assert skipped == {
        "schema[0].properties[1].items.quality[1]": (
            "duplicate_count(tags[*]) = 0 is not a count of rows each judged alone, so it cannot be measured on array "
            "items"
        ),
    }
    assert len(caught) == 1


# --- type: custom, engine: greatExpectations ----------------------------------------------------------------


@pytest.mark.parametrize(
    "implementation",
    [
        {"type": "expect_column_value_lengths_to_equal", "kwargs": {"value": 1}},
        {"expectation_type": "expect_column_value_lengths_to_equal", "kwargs": {"value": 1}},
        "type: expectColumnValueLengthsToEqual\nkwargs:\n  value: 1\n",
        {"expectationType": "expectColumnValueLengthsToEqual", "value": 1},
    ],
)
def test_great_expectations_rule_forms(implementation: Any) -> None:
    doc = with_rule({"name": "g", "type": "custom", "engine": "greatExpectations", "implementation": implementation})
    parsed = rule_named(load_one(doc), "g")
    assert isinstance(parsed, ExpectationRule)
    assert parsed.expectation_type == "expect_column_value_lengths_to_equal"
    assert dict(parsed.kwargs) == {"value": 1, "column": "a"}


def test_great_expectations_camel_case_kwargs() -> None:
    implementation = "type: expect_table_row_count_to_be_between\nkwargs:\n  minValue: 10000\n  maxValue: 50000\n"
    doc = with_rule(
        {"name": "g", "type": "custom", "engine": "greatExpectations", "implementation": implementation},
        on_property=False,
    )
    parsed = rule_named(load_one(doc), "g")
    assert dict(parsed.kwargs) == {"min_value": 10000, "max_value": 50000}


def test_great_expectations_rule_needs_a_type() -> None:
    doc = with_rule({"name": "g", "type": "custom", "engine": "greatExpectations", "implementation": {"kwargs": {}}})
    with pytest.raises(
        ContractValidationError, match=r"Quality rule 'g': a greatExpectations implementation needs 'type'"
    ):
        Contract.from_odcs(doc)


# --- schema-derived rules ------------------------------------------------------------------------------------


def test_composite_primary_key_by_position() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [
        {"name": "b", "logicalType": "string", "primaryKey": True, "primaryKeyPosition": 2},
        {"name": "a", "logicalType": "integer", "primaryKey": True, "primaryKeyPosition": 1, "required": True},
        {"name": "c", "logicalType": "string", "unique": True},
    ]
    rules = {r.id: r for r in load_one(doc).rules}
    assert rules["schema[0].properties[0].required"].name == "b has no nulls (part of the primary key)"
    assert rules["schema[0].properties[1].required"].name == "a has no nulls (required)"
    assert rules["schema[0].properties[2].unique"].expression() == "duplicate_count(c) = 0"
    pk = rules["schema[0].properties[1].primaryKey"]
    assert pk.name == "primary key (a, b) is unique" and pk.expression() == "duplicate_count(a, b) = 0"


def test_logical_type_options_become_rules() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [
        {
            "name": "s",
            "logicalType": "string",
            "logicalTypeOptions": {"minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$", "format": "email"},
        },
        {
            "name": "n",
            "logicalType": "integer",
            "logicalTypeOptions": {"minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
        },
        {"name": "d", "logicalType": "date", "logicalTypeOptions": {"minimum": "2024-01-01"}},
        {
            "name": "l",
            "logicalType": "array",
            "items": {"logicalType": "string"},
            "logicalTypeOptions": {"maxItems": 3, "uniqueItems": True},
        },
    ]
    expressions = [r.expression() for r in load_one(doc).rules if ".logicalTypeOptions." in r.id]
    assert expressions == [
        "count_if(length(s) < 2) = 0",
        "count_if(length(s) > 5) = 0",
        "num_rows() - count_matching(s, /^[a-z]+$/) = 0",
        "count_if(s is not a valid email) = 0",
        "count_if(n < 0) = 0",
        "count_if(n >= 10) = 0",
        "count_if(n % 2 != 0) = 0",
        "count_if(d < '2024-01-01') = 0",
        "count_if(size(l) > 3) = 0",
        "count_if(l has repeated items) = 0",
    ]


def test_uncheckable_option_is_skipped_with_reason() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [
        {"name": "s", "logicalType": "string", "logicalTypeOptions": {"format": "password"}}
    ]
    (skipped,) = load_one(doc).skipped_rules
    assert "has no checkable shape" in skipped.reason


def test_bad_date_bound_is_an_error() -> None:
    doc = base()
    doc["schema"][0]["properties"] = [
        {"name": "d", "logicalType": "date", "logicalTypeOptions": {"minimum": "yesterday"}}
    ]
    with pytest.raises(ContractValidationError, match=r"minimum 'yesterday' is not an ISO date"):
        Contract.from_odcs(doc)


def test_duplicate_property_names_are_an_error() -> None:
    doc = base()
    doc["schema"][0]["properties"].append({"name": "a", "logicalType": "string"})
    with pytest.raises(ContractValidationError, match=r"property name 'a' is already used"):
        Contract.from_odcs(doc)


def test_unnamed_rules_get_unique_names() -> None:
    doc = base()
    doc["schema"][0]["properties"][0]["quality"] = [
        {"metric": "nullValues", "mustBe": 0},
        {"metric": "nullValues", "mustBeLessThan": 5},
    ]
    names = [r.name for r in load_one(doc).rules if r.origin is RuleOrigin.LIBRARY]
    assert names == ["a nullValues", "a nullValues #2"]


# --- one Contract per schema object, and the sources a contract may come from ----------------------------------------


def test_one_contract_per_schema_object() -> None:
    doc = base()
    doc["schema"].append({"name": "u", "physicalName": "u_tbl", "properties": [{"name": "b", "logicalType": "string"}]})
    first, second = Contract.from_odcs(doc)
    assert (first.dataset, second.dataset) == ("t", "u_tbl")
    assert [r.column for r in second.rules] == ["b"]


def test_text_path_and_mapping_sources_agree(tmp_path: Any) -> None:
    doc = base()
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(doc))
    from_path, from_text, from_map = (load_one(s) for s in (path, path.read_text(), copy.deepcopy(doc)))
    assert from_path.rules == from_text.rules == from_map.rules
    assert from_path.origin == str(path) and from_text.origin == "<text>"


def test_load_contracts_detects_the_format() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)  # the example is in current form: nothing to warn about
        assert load_contracts(ORDERS)[0].format == "odcs"
    assert load_contracts(EXAMPLES / "sla" / "hourly_events.dqx.yaml")[0].format == "native"
    with pytest.raises(ContractValidationError, match=r"cannot tell the contract format"):
        load_contracts({"hello": "world"})


def test_yaml_dates_stay_text_so_the_schema_accepts_them() -> None:
    text = dedent(
        """
        apiVersion: v3.0.2
        kind: DataContract
        id: x
        version: 1.0.0
        status: active
        schema:
          - name: t
            properties:
              - name: d
                logicalType: date
                examples: [2022-10-03]
        """
    )
    assert load_one(text).properties[0].logical_type == "date"  # type: ignore[arg-type]
