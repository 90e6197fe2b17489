"""SLA: the four examples of the DQX SLA spec, every cron pattern of its tables, and ODCS latency."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dqx_gx import Contract, ContractValidationError, ContractWarning
from dqx_gx.contract.sla import schedule_period_hours
from dqx_gx.rules.rule import MetricRule, SkippedRule
from tests.conftest import EXAMPLES
from tests.documents import native_document, odcs_document

SLA_EXAMPLES = EXAMPLES / "sla"


@pytest.mark.parametrize(
    ("example", "max_age", "column", "period"),
    [
        ("daily_orders", 49.0, "order_date", 24.0),  # 24 lag + 24 daily + 1
        ("hourly_events", 4.0, "event_hour", 1.0),  # 2 lag + 1 hourly + 1
        ("business_day_reports", 49.0, "report_date", 24.0),  # 24 lag + 24 business days + 1
        ("customer_aggregates", 1.0, "last_updated", 24.0),  # not partitioned: 0 lag + 1
    ],
)
def test_sla_spec_examples(example: str, max_age: float, column: str, period: float) -> None:
    contract = Contract.from_yaml(SLA_EXAMPLES / f"{example}.dqx.yaml")
    latency = contract.sla_latency
    assert latency is not None
    assert (latency.max_age_hours, latency.timestamp_column, latency.period_hours) == (max_age, column, period)
    freshness = contract.rules[-1]
    assert isinstance(freshness, MetricRule)
    assert (freshness.name, freshness.severity, freshness.id) == ("SLA: Freshness check", "P0", "sla")
    assert freshness.expression() == f"freshness_hours({column}) ≤ {max_age:g}"


SUPPORTED = [
    ("0 0 * * *", 24.0),  # daily at midnight
    ("0 9 * * *", 24.0),  # daily at 9 AM
    ("0 * * * *", 1.0),  # every hour
    ("0 */6 * * *", 6.0),  # every 6 hours
    ("0 0 * * 1-5", 24.0),  # business days
    ("0 6 * * 1-5", 24.0),  # business days at 6 AM
    ("0 0 * * 1", 168.0),  # Monday only
    ("0 0 1 * *", 720.0),  # first of month
    ("30 2 * * *", 24.0),  # any fixed minute and hour: same period
    ("15 0 1 * *", 720.0),
    ("45 * * * *", 1.0),
    ("0 */2 * * *", 2.0),
    ("0 6 * * MON-FRI", 24.0),
    ("0 0 * * SUN", 168.0),
]


@pytest.mark.parametrize(("schedule", "period"), SUPPORTED)
def test_supported_schedules(schedule: str, period: float) -> None:
    assert schedule_period_hours(schedule) == period


UNSUPPORTED = [
    ("0 0 * * 2,4", "list-based day-of-week '2,4'"),  # Tuesday and Thursday
    ("0 0 1,15 * *", "list-based day-of-month '1,15'"),  # first and 15th
    ("0 0 * * 1,3,5", "list-based day-of-week '1,3,5'"),  # Mon/Wed/Fri
    ("*/15 * * * *", "sub-hourly minute field '*/15'"),
    ("* * * * *", "sub-hourly minute field '*'"),
    ("0 0 0 * * *", "it has 6 fields"),
    ("@daily", "it has 1 fields"),
    ("0 0 1 1 *", "month field '1'"),
    ("0 9-17 * * *", "its shape matches no period rule"),
    ("0 0 1 * 1", "its shape matches no period rule"),
    ("61 0 * * *", "not a valid cron expression"),
    ("0,30 * * * *", "list-based minute '0,30'"),
]


@pytest.mark.parametrize(("schedule", "why"), UNSUPPORTED)
def test_unsupported_schedules_name_the_expression(schedule: str, why: str) -> None:
    with pytest.raises(ContractValidationError) as caught:
        schedule_period_hours(schedule)
    message = str(caught.value)
    assert f"sla.schedule {schedule!r} is not supported" in message
    assert why in message


def native(**changes: Any) -> dict[str, Any]:
    """A daily-partitioned native document with a daily SLA; ``changes`` replace top-level fields."""
    top: dict[str, Any] = {
        "sla": {"schedule": "0 0 * * *", "lag_hours": 24},
        "metadata": {"partitioned_by": ["day"]},
        **changes,
    }
    return native_document([{"name": "day", "type": "date", "description": "partition"}], **top)


def test_non_partitioned_sla_needs_a_timestamp_column() -> None:
    with pytest.raises(ContractValidationError, match=r"needs metadata.timestamp_column"):
        Contract.from_yaml(native(metadata={}))


def test_unsupported_schedule_in_a_contract() -> None:
    with pytest.raises(ContractValidationError, match=r"sla.schedule '0 0 \* \* 2,4' is not supported"):
        Contract.from_yaml(native(sla={"schedule": "0 0 * * 2,4", "lag_hours": 1}))


@pytest.mark.parametrize("sla", [{"schedule": "0 0 * * *"}, {"lag_hours": 2}])
def test_sla_needs_both_fields(sla: dict[str, Any]) -> None:
    with pytest.raises(ContractValidationError, match=r"sla needs both 'schedule'"):
        Contract.from_yaml(native(sla=sla))


def test_negative_lag_is_an_error() -> None:
    with pytest.raises(ContractValidationError, match=r"sla.lag_hours must be a number >= 0, got: -1"):
        Contract.from_yaml(native(sla={"schedule": "0 0 * * *", "lag_hours": -1}))


@pytest.mark.parametrize(("schedule", "warns"), [("0 0 * * *", True), ("0 * * * *", True), ("0 0 * * 1", False)])
def test_long_lag_warns_on_hourly_and_daily_only(schedule: str, warns: bool) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        contract = Contract.from_yaml(native(sla={"schedule": schedule, "lag_hours": 200}))
    messages = [str(w.message) for w in caught if issubclass(w.category, ContractWarning)]
    assert bool(messages) is warns
    if warns:
        assert "sla.lag_hours: 200 hours exceeds 168 hours (7 days)" in messages[0]
    assert contract.sla_latency is not None


# --- ODCS slaProperties latency -----------------------------------------------------------------------------


def odcs(sla: list[dict[str, Any]], partitioned: bool = False) -> dict[str, Any]:
    prop: dict[str, Any] = {"name": "day", "logicalType": "date"}
    if partitioned:
        prop.update(partitioned=True, partitionKeyPosition=1)
    schema = [{"name": "t", "physicalName": "t_tbl", "properties": [prop, {"name": "ts", "logicalType": "timestamp"}]}]
    return odcs_document(schema, slaProperties=sla)


@pytest.mark.parametrize(
    ("value", "unit", "hours"),
    [
        (24, "h", 24.0),
        (3, "hours", 3.0),
        (2, "d", 48.0),
        (2, "Days", 48.0),
        (1, "y", 8760.0),
        (1, "yr", 8760.0),
        ("36h", None, 36.0),
    ],
)
def test_latency_units(value: Any, unit: str | None, hours: float) -> None:
    entry = {"property": "latency", "value": value, "element": "t_tbl.ts"}
    if unit:
        entry["unit"] = unit
    (contract,) = Contract.from_odcs(odcs([entry]))
    assert contract.sla_latency is not None
    assert (contract.sla_latency.max_age_hours, contract.sla_latency.timestamp_column) == (hours, "ts")


def test_latency_falls_back_to_partition_key_position_one() -> None:
    (contract,) = Contract.from_odcs(odcs([{"property": "ly", "value": 4, "unit": "d"}], partitioned=True))
    assert contract.sla_latency is not None and contract.sla_latency.timestamp_column == "day"


def test_latency_without_column_is_skipped_with_warning() -> None:
    with pytest.warns(ContractWarning, match=r"slaProperties\[0\]: latency has no element and no property"):
        (contract,) = Contract.from_odcs(odcs([{"property": "latency", "value": 4, "unit": "d"}]))
    assert contract.sla_latency is None
    freshness = contract.rules[-1]
    assert (
        isinstance(freshness, SkippedRule) and freshness.name == "SLA: Freshness check" and freshness.severity == "P0"
    )


def test_latency_in_unknown_unit_is_skipped_with_warning() -> None:
    with pytest.warns(ContractWarning, match=r"latency unit 'ms' is not supported"):
        (contract,) = Contract.from_odcs(odcs([{"property": "latency", "value": "500ms", "element": "t.ts"}]))
    assert isinstance(contract.rules[-1], SkippedRule)


def test_latency_for_another_table_does_not_apply() -> None:
    doc = odcs([{"property": "latency", "value": 4, "unit": "h", "element": "u.ts"}])
    doc["schema"].append({"name": "u", "properties": [{"name": "ts", "logicalType": "timestamp"}]})
    first, second = Contract.from_odcs(doc)
    assert first.sla_latency is None and not any(r.name == "SLA: Freshness check" for r in first.rules)
    assert second.sla_latency is not None and second.sla_latency.max_age_hours == 4.0


def test_unreadable_latency_for_another_table_is_that_table_s_skip_only() -> None:
    doc = odcs([{"property": "latency", "value": "500ms", "element": "u.ts"}])
    doc["schema"].append({"name": "u", "properties": [{"name": "ts", "logicalType": "timestamp"}]})
    with pytest.warns(ContractWarning, match=r"latency unit 'ms' is not supported") as caught:
        first, second = Contract.from_odcs(doc)
    assert len(caught) == 1
    assert not any(r.name == "SLA: Freshness check" for r in first.rules)
    freshness = second.rules[-1]
    assert isinstance(freshness, SkippedRule) and freshness.name == "SLA: Freshness check"


def test_other_sla_properties_are_metadata() -> None:
    entries = [
        {"property": "retention", "value": 3, "unit": "y"},
        {"property": "availability", "value": 99.9, "unit": "percent"},
        {"property": "frequency", "value": 1, "unit": "d", "description": "daily"},
    ]
    (contract,) = Contract.from_odcs(odcs(entries))
    assert dict(contract.sla_metadata) == {
        "retention": {"value": 3, "unit": "y"},
        "availability": {"value": 99.9, "unit": "percent"},
        "frequency": {"value": 1, "unit": "d", "description": "daily"},
    }
    assert contract.sla_latency is None
