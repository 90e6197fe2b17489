"""Instants as docs/semantics.md, 'The reference: DQX itself' reads them: a date is midnight UTC, a timestamp without
zone is UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def as_utc(value: str | date | datetime) -> datetime:
    """An aware UTC datetime for an ISO string, date or datetime (naive → UTC)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def run_moment(now: str | date | datetime | None = None) -> datetime:
    """The one "now" of a run: the given moment as UTC, or the current time. Every part of a run
    (freshness, completeness, the results' date) reads this one value."""
    return as_utc(now) if now is not None else datetime.now(UTC)


def epoch_micros(value: str | date | datetime) -> int:
    delta = as_utc(value) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_local_wall_clock(value: datetime, *, now: datetime | None = None) -> datetime:
    """The UTC instant of a naive wall-clock time of this machine's zone that has just passed.

    GX's own ``now()`` is such a value. In the hour a clock is set back, one wall-clock time names two
    instants an hour apart; the one meant is the later that is not after ``now`` (default: the current
    time), so the machine's zone cannot move a measurement by an hour."""
    now = now or datetime.now(UTC)
    candidates = sorted({value.replace(tzinfo=None, fold=fold).astimezone(UTC) for fold in (0, 1)})
    passed = [instant for instant in candidates if instant <= now]
    return passed[-1] if passed else candidates[0]
