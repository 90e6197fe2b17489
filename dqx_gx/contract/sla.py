"""SLA: how old the newest data may be, from ODCS latency or a native cron schedule.

Both forms end as an :class:`SlaLatency` and one "SLA: Freshness check" rule
(P0). The cron form follows the DQX SLA spec: the schedule's *shape* gives a
period (hourly, every N hours, daily, business days, weekly, monthly) and
``max_age_hours = lag + period + 1`` for partitioned tables, ``lag + 1``
otherwise. croniter checks that the expression is valid cron; the period
rules are ours.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from croniter import croniter
from croniter.croniter import CroniterError

from dqx_gx.contract.model import SlaLatency
from dqx_gx.errors import ContractValidationError, warn_contract
from dqx_gx.kinds import Metric, MetricKind
from dqx_gx.rules.rule import MetricRule, RuleOrigin, SkippedRule
from dqx_gx.rules.threshold import Operator, Threshold

FRESHNESS_CHECK_NAME = "SLA: Freshness check"
BUFFER_HOURS = 1.0
LAG_WARNING_HOURS = 168.0

_UNIT_HOURS = {
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 1.0),
    **dict.fromkeys(("d", "day", "days"), 24.0),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), 8760.0),
}
_UNITS_TEXT = "h/hr/hour/hours, d/day/days, y/yr/year/years"
_VALUE_WITH_UNIT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*$")

SUPPORTED_SCHEDULES = (
    "hourly (0 * * * *), every N hours (0 */N * * *), daily (0 H * * *), "
    "business days (0 H * * 1-5), weekly (0 H * * W), monthly (0 H D * *)"
)


def freshness_rule(rule_id: str, latency: SlaLatency) -> MetricRule:
    """The auto-generated freshness rule: newest value at most ``max_age_hours`` old, P0."""
    return MetricRule(
        id=rule_id,
        name=FRESHNESS_CHECK_NAME,
        severity="P0",
        origin=RuleOrigin.SLA,
        dimension="timeliness",
        column=latency.timestamp_column,
        metric=Metric(MetricKind.FRESHNESS_HOURS, (latency.timestamp_column,)),
        threshold=Threshold(Operator.LESS_OR_EQUAL, latency.max_age_hours),
    )


def skipped_freshness(rule_id: str, reason: str) -> SkippedRule:
    warn_contract(f"{rule_id}: {reason}; no freshness check", stacklevel=3)
    return SkippedRule(
        id=rule_id,
        name=FRESHNESS_CHECK_NAME,
        severity="P0",
        origin=RuleOrigin.SLA,
        dimension="timeliness",
        reason=reason,
    )


# --- ODCS slaProperties -------------------------------------------------------------------------


@dataclass(frozen=True)
class LatencyResolution:
    """What one ODCS latency entry means for one schema object: a latency, the reason
    there is none, or neither when the entry's element names another schema object."""

    latency: SlaLatency | None = None
    skip_reason: str | None = None


def resolve_latency(
    entry: Mapping[str, Any],
    where: str,
    *,
    default_element: str | None,
    table_names: frozenset[str],
    other_table_names: frozenset[str],
    columns_by_property: Mapping[str, str],
    other_columns: frozenset[str] = frozenset(),
    partition_column: str | None,
) -> LatencyResolution:
    """Max age and timestamp column of a latency entry, as DQX resolves them (DQX ODCS spec §8.2).

    ``element`` ("table.column") wins, then ``slaDefaultElement``, then the
    property with ``partitioned: true`` and ``partitionKeyPosition: 1``. A column this schema object
    does not declare is refused, unless another object declares it (``other_columns``): then the entry
    is that object's.
    """
    element = entry.get("element") or default_element
    if element is not None:
        element = str(element).strip()
        table, _, column = element.rpartition(".")
        # Another table's latency is its own business, even when it cannot be read.
        if table and "," not in element and table not in table_names and table in other_table_names:
            return LatencyResolution()
    hours = _latency_hours(entry, where)
    if isinstance(hours, str):
        return LatencyResolution(skip_reason=hours)
    if element is not None:
        if "," in element:
            return LatencyResolution(
                skip_reason=f"latency names several elements ({element!r}); give the one timestamp column"
            )
        if columns_by_property and column not in columns_by_property and column not in columns_by_property.values():
            if column in other_columns:  # another schema object's column: its latency
                return LatencyResolution()
            raise ContractValidationError(
                f"{where}.element: latency names property {column!r} ({element!r}), which the schema object does "
                f"not declare (declared: {', '.join(sorted(columns_by_property))}); declare it or correct the name",
                key="element",
            )
        column = columns_by_property.get(column, column)
    elif partition_column is not None:
        column = partition_column
    else:
        return LatencyResolution(
            skip_reason=(
                "latency has no element and no property has partitioned: true with partitionKeyPosition: 1, "
                "so there is no timestamp column to check"
            )
        )
    return LatencyResolution(SlaLatency(max_age_hours=hours, timestamp_column=column))


def _latency_hours(entry: Mapping[str, Any], where: str) -> float | str:
    """Hours of a latency entry, or the reason it cannot be read as hours."""
    value, unit = entry.get("value"), entry.get("unit")
    if isinstance(value, str):
        match = _VALUE_WITH_UNIT.match(value)
        if match is None:
            return f"latency value {value!r} is not a number with a unit (e.g. 24 with unit: h, or '24h')"
        value, unit = float(match.group(1)), unit or match.group(2)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(_as_float(value)):
        return f"latency value {value!r} is not a number"
    if value <= 0:
        raise ContractValidationError(f"{where}.value: latency must be greater than 0, got: {value}", key="value")
    if unit is None:
        return f"latency {value} has no unit ({_UNITS_TEXT})"
    factor = _UNIT_HOURS.get(str(unit).strip().lower())
    if factor is None:
        return f"latency unit {unit!r} is not supported ({_UNITS_TEXT})"
    hours = float(value) * factor
    if not math.isfinite(hours):
        return f"latency {value} {unit} is too large to be a number of hours"
    return hours


def _as_float(value: int | float) -> float:
    """``value`` as a float; an int too large for one is infinite."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


# --- native cron SLA -----------------------------------------------------------------------------


def cron_latency(
    schedule: str,
    lag_hours: float,
    *,
    partitioned_by: tuple[str, ...],
    timestamp_column: str | None,
) -> SlaLatency:
    """The freshness a native ``sla:`` block promises (DQX SLA spec, "Auto-Generated Checks")."""
    period = schedule_period_hours(schedule)
    if lag_hours > LAG_WARNING_HOURS and _is_hourly_or_daily(schedule):
        warn_contract(
            f"sla.lag_hours: {lag_hours:g} hours exceeds {LAG_WARNING_HOURS:g} hours (7 days) on the "
            f"hourly or daily schedule {schedule!r}; is the SLA misconfigured?",
            stacklevel=3,
        )
    if partitioned_by:
        column = partitioned_by[0]
        max_age = lag_hours + period + BUFFER_HOURS
    elif timestamp_column:
        column = timestamp_column
        max_age = lag_hours + BUFFER_HOURS
    else:
        raise ContractValidationError(
            "sla: a table without metadata.partitioned_by needs metadata.timestamp_column "
            "(the column that carries the freshness timestamp)"
        )
    return SlaLatency(
        max_age_hours=max_age,
        timestamp_column=column,
        schedule=schedule,
        period_hours=period,
        lag_hours=lag_hours,
    )


def schedule_period_hours(schedule: str) -> float:
    """Hours between runs of a cron schedule, read from its shape (SLA spec's period rules).

    Any fixed minute and hour give the same period; sub-hourly, list-based,
    6-field and irregular schedules raise ContractValidationError naming the
    expression.
    """
    fields = schedule.split()
    if len(fields) != 5:
        raise _unsupported(schedule, f"it has {len(fields)} fields; a 5-field cron expression is expected")
    try:
        croniter(schedule)
    except (CroniterError, ValueError, KeyError) as exc:
        raise _unsupported(schedule, f"it is not a valid cron expression ({exc})") from None
    minute, hour, day, month, weekday = fields
    names = ("minute", "hour", "day-of-month", "month", "day-of-week")
    for name, field in zip(names, fields, strict=True):
        if "," in field:
            raise _unsupported(schedule, f"list-based {name} {field!r}; no single period can be inferred")
    if _shape(minute) != "fixed":
        raise _unsupported(schedule, f"sub-hourly minute field {minute!r}")
    if month != "*":
        raise _unsupported(schedule, f"month field {month!r}; no single period can be inferred")
    hour_shape, day_shape, weekday_shape = _shape(hour), _shape(day), _shape(weekday)
    if hour_shape == "any" and day == "*" and weekday == "*":
        return 1.0
    if hour_shape == "step" and day == "*" and weekday == "*":
        return float(int(hour[2:]))
    if hour_shape == "fixed":
        if day == "*" and weekday == "*":
            return 24.0
        if day == "*" and weekday_shape == "range":
            return 24.0
        if day == "*" and weekday_shape == "fixed":
            return 168.0
        if day_shape == "fixed" and weekday == "*":
            return 720.0
    raise _unsupported(schedule, "its shape matches no period rule")


def _shape(field: str) -> str:
    if field == "*":
        return "any"
    if re.fullmatch(r"[0-9A-Za-z]+", field):
        return "fixed"
    if re.fullmatch(r"[0-9A-Za-z]+-[0-9A-Za-z]+", field):
        return "range"
    if re.fullmatch(r"\*/[0-9]+", field):
        return "step"
    return "other"


def _is_hourly_or_daily(schedule: str) -> bool:
    """Hourly, every-N-hours or daily: DQX warns about long lags only on these."""
    minute, _hour, day, month, weekday = schedule.split()
    return minute != "*" and day == "*" and month == "*" and weekday == "*"


def _unsupported(schedule: str, why: str) -> ContractValidationError:
    return ContractValidationError(
        f"sla.schedule {schedule!r} is not supported: {why}. Supported: {SUPPORTED_SCHEDULES}; "
        "otherwise write a manual freshness check"
    )
