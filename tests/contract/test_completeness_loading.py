"""Completeness checks load with dqlib's fields, defaults and refusals (docs/semantics.md, 'Completeness'), native and ODCS."""

from __future__ import annotations

from typing import Any

import pytest
from dqx.contract import CompletenessCheck
from dqx.contract import ContractValidationError as DqlibError

from dqx_gx import Contract, ContractValidationError
from dqx_gx.kinds import MetricKind
from dqx_gx.rules.rule import MetricRule
from dqx_gx.rules.threshold import Operator
from tests.conftest import EXAMPLES
from tests.documents import native_document, one_table

COLUMNS = [{"name": "ts", "type": "date", "description": "partition"}]


def native(**fields: Any) -> MetricRule:
    check = {"type": "completeness", "name": "gaps", "partition_column": "ts", **fields}
    (rule,) = [r for r in Contract.from_yaml(native_document(COLUMNS, checks=[check])).rules if r.name == "gaps"]
    assert isinstance(rule, MetricRule)
    return rule


def odcs(implementation: dict[str, Any], **rule: Any) -> MetricRule:
    quality = [{"type": "custom", "engine": "dqx", "implementation": implementation, **rule}]
    contract = one_table([{"name": "ts", "logicalType": "date", "quality": quality}])
    (found,) = [
        r for r in contract.rules if isinstance(r, MetricRule) and r.metric.kind is MetricKind.MISSING_PARTITIONS
    ]
    return found


def test_native_defaults_are_dqlibs() -> None:
    reference = CompletenessCheck(name="gaps", partition_column="ts", granularity="daily")
    rule = native(granularity="daily")
    assert rule.metric.granularity == reference.granularity
    assert rule.metric.lookback_days == reference.lookback_days == 30
    assert rule.metric.allow_future_gaps is reference.allow_future_gaps is True
    assert rule.threshold is not None
    assert (rule.threshold.operator, rule.threshold.value) == (Operator.LESS_OR_EQUAL, reference.max_gap_count)
    assert rule.severity == reference.severity == "P1"
    assert rule.dimension == "completeness" and rule.column == "ts"


def test_native_fields() -> None:
    rule = native(granularity="hourly", lookback_days=2, allow_future_gaps=False, max_gap_count=3, severity="P0")
    assert rule.expression() == "missing_partitions(ts, hourly, 2d, trailing gaps count) ≤ 3"
    assert rule.severity == "P0"


def test_seed_example_1_gap_check_runs_instead_of_being_skipped() -> None:
    contract = Contract.from_yaml(EXAMPLES / "sla" / "daily_orders.dqx.yaml")
    (rule,) = [r for r in contract.rules if r.name == "No missing partitions in last 7 days"]
    assert isinstance(rule, MetricRule)
    assert rule.expression() == "missing_partitions(order_date, daily, 7d) ≤ 0"


def test_odcs_rule_in_a_property_or_naming_its_column() -> None:
    assert (
        odcs({"check": "completeness", "granularity": "weekly"}).expression()
        == "missing_partitions(ts, weekly, 30d) ≤ 0"
    )
    named = odcs({"check": "completeness", "granularity": "monthly", "partition_column": "ts", "max_gap_count": 1})
    assert named.expression() == "missing_partitions(ts, monthly, 30d) ≤ 1"
    assert named.name == "ts completeness" and named.severity == "P1"


@pytest.mark.parametrize(
    ("fields", "dqlib_fields", "path"),
    [
        ({"granularity": "yearly"}, {"granularity": "yearly"}, "granularity"),
        ({"granularity": "daily", "lookback_days": 0}, {"granularity": "daily", "lookback_days": 0}, "lookback_days"),
        ({"granularity": "daily", "lookback_days": -7}, {"granularity": "daily", "lookback_days": -7}, "lookback_days"),
        ({"granularity": "daily", "max_gap_count": -1}, {"granularity": "daily", "max_gap_count": -1}, "max_gap_count"),
    ],
)
def test_refusals_in_dqlibs_words_naming_the_field(
    fields: dict[str, Any], dqlib_fields: dict[str, Any], path: str
) -> None:
    with pytest.raises(DqlibError) as dqlib:
        CompletenessCheck(name="gaps", partition_column="ts", **dqlib_fields)
    with pytest.raises(ContractValidationError) as ours:
        native(**fields)
    assert str(ours.value).endswith(f"checks[0].{path}: {dqlib.value}")
    with pytest.raises(ContractValidationError) as ours_odcs:
        odcs({"check": "completeness", **fields})
    assert str(ours_odcs.value).endswith(f": {dqlib.value}")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"granularity": "daily", "lookback_days": 1.5}, "lookback_days must be a whole number of days, got 1.5"),
        ({"granularity": "daily", "max": 2}, "min, max, equals, between, not_between and tolerance do not apply"),
        ({}, "check type 'completeness' needs 'partition_column:' and 'granularity:'"),
    ],
)
def test_native_refuses_other_mistakes(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        native(**fields)


@pytest.mark.parametrize(
    ("implementation", "beside", "message"),
    [
        ({"check": "completeness"}, {}, "check 'completeness' needs 'granularity:'"),
        ({"check": "completeness", "granularity": "daily", "mustBe": 0}, {}, "remove mustBe and give max_gap_count"),
        ({"check": "completeness", "granularity": "daily"}, {"mustBeLessThan": 2}, "remove mustBeLessThan"),
        ({"check": "min", "column": "ts", "lookback_days": 3}, {}, "apply only to completeness, not to 'min'"),
        (
            {"check": "completeness", "granularity": "daily", "partition_column": "ts", "column": "other"},
            {},
            "partition_column and column name different columns",
        ),
    ],
)
def test_odcs_refusals(implementation: dict[str, Any], beside: dict[str, Any], message: str) -> None:
    with pytest.raises(ContractValidationError, match=message):
        odcs(implementation, **beside)


def test_a_schema_level_rule_needs_its_column() -> None:
    quality = [{"type": "custom", "engine": "dqx", "implementation": {"check": "completeness", "granularity": "daily"}}]
    with pytest.raises(ContractValidationError, match="needs 'partition_column:' in its implementation"):
        one_table([{"name": "ts", "logicalType": "date"}], quality)
