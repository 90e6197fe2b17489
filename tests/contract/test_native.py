"""The DQX native format: what each column and check becomes, and its validation errors."""

from __future__ import annotations

from typing import Any

import pytest

from dqx_gx import Contract, ContractValidationError
from dqx_gx.kinds import ConstraintKind, MetricKind, Scale
from dqx_gx.rules.rule import MetricRule, TypeRule
from dqx_gx.rules.threshold import Operator
from tests.conftest import EXAMPLES
from tests.documents import native_document


def check(check_: dict[str, Any], column_type: Any = "int") -> MetricRule:
    contract = Contract.from_yaml(
        native_document([{"name": "a", "type": column_type, "description": "a", "checks": [check_]}])
    )
    rule = contract.rules[-1]
    assert isinstance(rule, MetricRule)
    return rule


def test_daily_orders_example_checks() -> None:
    contract = Contract.from_yaml(EXAMPLES / "sla" / "daily_orders.dqx.yaml")
    by_name = {r.name: r for r in contract.rules}
    assert by_name["Order ID is unique"].expression() == "duplicate_count(order_id) ≤ 0"
    assert by_name["Order ID is unique"].severity == "P0"
    assert by_name["Amount is non-negative"].expression() == "min(total_amount) ≥ 0"
    assert by_name["Status is valid"].expression().startswith("num_rows() - count_values(status, ['pending'")
    assert contract.tags == ("revenue", "core", "pii")
    assert dict(contract.metadata)["owner_team"] == "finance"
    line_items = by_name["line_items has type array<object<item_id: integer, quantity: integer, unit_price: number>>"]
    assert isinstance(line_items, TypeRule)


@pytest.mark.parametrize(
    ("validator", "operator", "value"),
    [
        ({"min": 1}, Operator.GREATER_OR_EQUAL, 1.0),
        ({"max": 2}, Operator.LESS_OR_EQUAL, 2.0),
        ({"equals": 0}, Operator.MUST_BE, 0.0),
        ({"between": [1, 3]}, Operator.BETWEEN, (1.0, 3.0)),
        ({"not_between": [1, 3]}, Operator.NOT_BETWEEN, (1.0, 3.0)),
    ],
)
def test_validators_are_odcs_operators(validator: dict[str, Any], operator: Operator, value: Any) -> None:
    rule = check({"type": "mean", "name": "m", **validator})
    assert rule.threshold is not None
    assert (rule.threshold.operator, rule.threshold.value) == (operator, value)


def test_custom_tolerance() -> None:
    rule = check({"type": "mean", "name": "m", "equals": 5, "tolerance": 0.5})
    assert rule.threshold is not None and rule.threshold.passes(5.4) and not rule.threshold.passes(5.5)


def test_two_validators_are_an_error() -> None:
    with pytest.raises(ContractValidationError, match=r"Check 'm': specifies more than one validator \(min, max\)"):
        check({"type": "mean", "name": "m", "min": 1, "max": 2})


def test_inverted_between_uses_the_native_word() -> None:
    with pytest.raises(
        ContractValidationError, match=r"Check 'm': between lower bound 3 is greater than upper bound 1"
    ):
        check({"type": "mean", "name": "m", "between": [3, 1]})


def test_length_check_takes_its_type_from_the_column() -> None:
    rule = check({"type": "max_length", "name": "l", "max": 3}, column_type={"kind": "list", "value_type": "string"})
    assert rule.metric.kind is MetricKind.MAX_LENGTH and rule.metric.column_type == "list"
    with pytest.raises(
        ContractValidationError, match=r"length checks need a string, list or map column; 'a' is integer"
    ):
        check({"type": "max_length", "name": "l"})


def test_pattern_check_counts_non_matching_values() -> None:
    rule = check({"type": "pattern", "name": "p", "pattern": "^a", "flags": ["IGNORECASE"], "return": "pct"}, "string")
    assert rule.metric.kind is MetricKind.VIOLATION_COUNT and rule.metric.scale is Scale.FRACTION
    assert rule.metric.constraint is not None
    assert (rule.metric.constraint.kind, rule.metric.constraint.value) == (ConstraintKind.PATTERN, "(?i)^a")
    email = check({"type": "pattern", "name": "p", "format": "email"}, "string")
    assert email.metric.constraint is not None and email.metric.constraint.kind is ConstraintKind.FORMAT


def test_table_checks() -> None:
    columns = [
        {"name": "a", "type": "int", "description": "a"},
        {"name": "ts", "type": "timestamp", "description": "t"},
    ]
    checks = [
        {"type": "num_rows", "name": "rows", "min": 1},
        {"type": "duplicates", "name": "dups", "columns": ["a", "ts"], "return": "pct", "max": 0.01},
        {"type": "freshness", "name": "fresh", "max_age_hours": 6, "timestamp_column": "ts"},
    ]
    contract = Contract.from_yaml(
        native_document(
            columns,
            checks=[
                *checks,
                {"type": "completeness", "name": "gaps", "partition_column": "ts", "granularity": "daily"},
            ],
        )
    )
    by_name = {r.name: r for r in contract.rules}
    assert by_name["rows"].expression() == "num_rows() ≥ 1"
    assert by_name["dups"].expression() == "duplicate_count(a, ts) / num_rows() ≤ 0.01"
    assert by_name["fresh"].expression() == "freshness_hours(ts) ≤ 6"
    assert by_name["gaps"].expression() == "missing_partitions(ts, daily, 30d) ≤ 0"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 1.0}, 'version: version must be a non-empty string (quote numbers: "1.0"), got: 1.0'),
        ({"dataset": "my table"}, "dataset: dataset must be a non-empty name without whitespace"),
        ({"columns": []}, "columns: columns must be a non-empty list"),
        ({"colums": []}, "unknown top-level key 'colums'"),
        ({"tags": ["ok", "not ok"]}, "tags[1]: tags contain only letters, digits"),
        ({"checks": [{"type": "dupes", "name": "x"}]}, "checks[0].type: unknown table check type 'dupes'"),
        (
            {"checks": [{"type": "duplicates", "name": "x", "columns": ["zzz"]}]},
            "checks[0].columns[0]: column 'zzz' is not declared",
        ),
        (
            {"checks": [{"type": "freshness", "name": "f", "max_age_hours": 0, "timestamp_column": "a"}]},
            "max_age_hours must be a number > 0",
        ),
        ({"metadata": {"partitioned_by": ["nope"]}}, "metadata.partitioned_by[0]: column 'nope' is not declared"),
    ],
)
def test_native_errors_name_the_field(change: dict[str, Any], message: str) -> None:
    data = native_document()
    data.update(change)
    if "colums" in change:
        del data["columns"]
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_yaml(data)
    assert message in str(caught.value)


def test_unknown_column_check_type() -> None:
    with pytest.raises(
        ContractValidationError, match=r"columns\[0\]\.checks\[0\]\.type: unknown column check type 'median'"
    ):
        check({"type": "median", "name": "m"})


def test_duplicate_column_names() -> None:
    columns = [{"name": "a", "type": "int", "description": "x"}, {"name": "a", "type": "int", "description": "y"}]
    with pytest.raises(ContractValidationError, match=r"columns\[1\]\.name: column 'a' is declared twice"):
        Contract.from_yaml(native_document(columns))


def test_nullable_false_and_timezone_types() -> None:
    columns = [{"name": "ts", "type": {"kind": "timestamp", "tz": "UTC"}, "description": "t", "nullable": False}]
    contract = Contract.from_yaml(native_document(columns))
    type_rule, required = contract.rules
    assert isinstance(type_rule, TypeRule) and type_rule.data_type is not None
    assert type_rule.data_type.describe() == "timestamp with time zone"
    assert required.expression() == "null_count(ts) = 0" and required.severity == "P0"
