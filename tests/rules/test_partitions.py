"""Completeness (docs/semantics.md, 'Completeness') without an engine: the partitions a window expects, and which missing ones count."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dqx_gx.rules.partitions import Granularity, missing_partitions, period_start, window


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


@pytest.mark.parametrize(
    ("instant", "granularity", "start"),
    [
        (utc(2024, 2, 29, 23, 59, 59), Granularity.HOURLY, utc(2024, 2, 29, 23)),
        (utc(2024, 2, 29, 23, 59, 59), Granularity.DAILY, utc(2024, 2, 29)),
        (utc(2024, 2, 29, 23, 59, 59), Granularity.MONTHLY, utc(2024, 2, 1)),
        (utc(2025, 12, 31, 12), Granularity.MONTHLY, utc(2025, 12, 1)),
        (utc(2026, 1, 1, 8), Granularity.WEEKLY, utc(2025, 12, 29)),  # ISO week 2026-W01 starts on Monday 29 Dec
        (utc(2026, 1, 4, 23, 59), Granularity.WEEKLY, utc(2025, 12, 29)),  # Sunday still in it
        (utc(2026, 1, 5), Granularity.WEEKLY, utc(2026, 1, 5)),  # Monday 00:00 opens the next
        (datetime(2026, 3, 29, 2, 30), Granularity.HOURLY, utc(2026, 3, 29, 2)),  # naive is UTC
    ],
)
def test_period_start(instant: datetime, granularity: Granularity, start: datetime) -> None:
    assert period_start(instant, granularity) == start


def test_daily_window_starts_at_now_minus_lookback_and_ends_before_the_period_holding_now() -> None:
    span = window(utc(2026, 2, 10), Granularity.DAILY, 3)  # now at midnight: 9 Feb is complete
    assert span.expected == (utc(2026, 2, 7), utc(2026, 2, 8), utc(2026, 2, 9))  # 7 Feb = now − lookback: in
    assert span.end == utc(2026, 2, 10)
    later = window(utc(2026, 2, 10, 0, 0, 1), Granularity.DAILY, 3)  # a second later 7 Feb starts too early
    assert later.expected == (utc(2026, 2, 8), utc(2026, 2, 9))


@pytest.mark.parametrize(
    ("now", "days"),
    [
        (utc(2024, 3, 1), [utc(2024, 2, 28), utc(2024, 2, 29)]),  # leap year
        (utc(2023, 3, 1), [utc(2023, 2, 27), utc(2023, 2, 28)]),
    ],
)
def test_daily_window_over_february(now: datetime, days: list[datetime]) -> None:
    assert list(window(now, Granularity.DAILY, 2).expected) == days


def test_monthly_window_counts_only_complete_months() -> None:
    assert window(utc(2025, 1, 1), Granularity.MONTHLY, 62).expected == (utc(2024, 11, 1), utc(2024, 12, 1))
    assert window(utc(2024, 3, 31, 23), Granularity.MONTHLY, 60).expected == (utc(2024, 2, 1),)  # 1 Feb ≥ 31 Jan 23:00
    assert window(utc(2024, 3, 15), Granularity.MONTHLY, 20).expected == ()  # 1 Mar is not complete


def test_weekly_window_uses_iso_weeks() -> None:
    span = window(utc(2026, 1, 7, 12), Granularity.WEEKLY, 14)  # a Wednesday; 24 Dec 12:00 is 14 days back
    assert span.expected == (utc(2025, 12, 29),)
    assert span.end == utc(2026, 1, 5)


def test_hourly_window_is_utc_through_a_dst_change() -> None:
    span = window(utc(2026, 3, 29, 3, 30), Granularity.HOURLY, 1)
    assert len(span.expected) == 23 and span.expected[0] == utc(2026, 3, 28, 4) and span.end == utc(2026, 3, 29, 3)


def test_gaps_after_the_latest_present_partition_are_late_data_when_allowed() -> None:
    span = window(utc(2026, 2, 8), Granularity.DAILY, 7)  # 1–7 Feb
    present = [utc(2026, 2, 1), utc(2026, 2, 3), utc(2026, 2, 4)]
    assert missing_partitions(span, present, allow_future_gaps=True) == (utc(2026, 2, 2),)
    counted = missing_partitions(span, present, allow_future_gaps=False)
    assert counted == (utc(2026, 2, 2), *(utc(2026, 2, d) for d in (5, 6, 7)))


def test_data_after_the_window_makes_every_earlier_gap_count() -> None:
    span = window(utc(2026, 2, 8, 6), Granularity.DAILY, 7)  # 2–7 Feb
    present = [utc(2026, 2, 2), span.end]  # a row of 8 Feb (the incomplete period) has arrived
    assert missing_partitions(span, present, allow_future_gaps=True) == tuple(utc(2026, 2, d) for d in range(3, 8))


def test_nothing_present_means_every_expected_partition_is_missing() -> None:
    span = window(utc(2026, 2, 8), Granularity.DAILY, 7)
    assert missing_partitions(span, [], allow_future_gaps=True) == span.expected
