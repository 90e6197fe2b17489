"""Completeness (docs/semantics.md, 'Completeness'): the time partitions a window expects, and which of them are
missing.

Engine-neutral: an engine reports which partition starts it found (:class:`Window` says which
rows it must look at), and :func:`missing_partitions` decides the gaps. Periods are UTC: hours,
days, ISO weeks (Monday 00:00) and calendar months (the 1st, 00:00).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from dqx_gx.rules.timestamps import EPOCH, as_utc


class Granularity(StrEnum):
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"


SHOWN_MISSING = 10
"""How many missing partitions a result names."""


def period_start(instant: datetime, granularity: Granularity) -> datetime:
    """The start of the UTC period holding ``instant`` (naive: UTC)."""
    moment = as_utc(instant)
    if granularity is Granularity.HOURLY:
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity is Granularity.DAILY:
        return day
    if granularity is Granularity.WEEKLY:
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


def next_start(start: datetime, granularity: Granularity) -> datetime:
    """The start of the period after the one starting at ``start``."""
    if granularity is Granularity.HOURLY:
        return start + timedelta(hours=1)
    if granularity is Granularity.DAILY:
        return start + timedelta(days=1)
    if granularity is Granularity.WEEKLY:
        return start + timedelta(weeks=1)
    return start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)


@dataclass(frozen=True)
class Window:
    """The partitions a run expects: every period start p with now − lookback ≤ p and p + one period ≤ now."""

    granularity: Granularity
    expected: tuple[datetime, ...]
    end: datetime
    """The start of the period holding ``now``: the first one not yet complete, so not expected."""

    @property
    def start(self) -> datetime:
        """The first expected partition (``end`` when none is expected)."""
        return self.expected[0] if self.expected else self.end


def window(now: datetime, granularity: Granularity, lookback_days: int) -> Window:
    """The expected partitions of a check run at ``now`` (docs/semantics.md, 'Completeness': complete periods only)."""
    moment = as_utc(now)
    end = period_start(moment, granularity)
    earliest = moment - timedelta(days=lookback_days)
    first = period_start(earliest, granularity)
    if first < earliest:
        first = next_start(first, granularity)
    expected = []
    while first < end:
        expected.append(first)
        first = next_start(first, granularity)
    return Window(granularity, tuple(expected), end)


def missing_partitions(window: Window, present: Iterable[datetime], *, allow_future_gaps: bool) -> tuple[datetime, ...]:
    """The expected partitions with no row, in order, that count as gaps.

    ``present`` are the partition starts found at or after the window's start (the period holding
    ``now`` and later ones included). With ``allow_future_gaps``, gaps after the latest present
    partition are late data, not gaps; when nothing is present every expected partition counts.
    """
    found = {as_utc(p) for p in present}
    missing = tuple(p for p in window.expected if p not in found)
    if not allow_future_gaps or not found:
        return missing
    latest = max(found)
    return tuple(p for p in missing if p < latest)


def from_micros(micros: int) -> datetime:
    """A UTC datetime from epoch microseconds (how engines report partition starts)."""
    return EPOCH + timedelta(microseconds=micros)


def partition_text(start: datetime, granularity: Granularity) -> str:
    """A partition as results name it: ``2026-02-28`` for days, weeks and months, ``2026-02-28T13:00Z`` for hours."""
    if granularity is Granularity.HOURLY:
        return start.strftime("%Y-%m-%dT%H:%MZ")
    return start.strftime("%Y-%m-%d")


def describe(column: str, granularity: str, lookback_days: int, *, allow_future_gaps: bool) -> str:
    """The metric in words: ``missing_partitions(order_date, daily, 30d)``."""
    trailing = "" if allow_future_gaps else ", trailing gaps count"
    return f"missing_partitions({column}, {granularity}, {lookback_days}d{trailing})"
