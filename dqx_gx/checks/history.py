"""Metrics of earlier days: read from a dqlib metric database before a run, today's stored after it.

A hand-written assertion may read a metric of an earlier day (``mp.average("price", lag=1)``) or one
made of earlier days (``mp.ext.day_over_day(...)``, ``week_over_week``, ``stddev``). dqlib computes
those from a data source that holds every day; a Spark batch holds one. So a run given ``db`` (a
dqlib ``MetricDB``) reads each earlier value from it — the latest stored for that metric, day, tags
and dataset, whichever run stored it — and stores the metrics it measured today, as dqlib's analyzer
stores its own; the next day's run finds them there. A value it does not find is not guessed: the
assertion is SKIPPED, naming the metric and the day.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dqx.common import Metadata, ResultKey

from dqx_gx.checks.measures import spec_of
from dqx_gx.rules.hand_written import MetricSymbol

if TYPE_CHECKING:
    from dqx.orm.repositories import MetricDB

Day = tuple[str, str, str, dt.date]
"""A metric of a dataset on a day: its type, parameters (JSON), dataset and date."""


@dataclass(frozen=True)
class History:
    """What a run knows of earlier days: the values found in its metric database, by metric and day."""

    day: dt.date
    """The run's date (its ``ResultKey``): lag 0."""
    values: Mapping[Day, float] = field(default_factory=dict)
    where: str = "the metric database (db)"

    def value(self, symbol: MetricSymbol, lag: int) -> float | None:
        return self.values.get(day_of(symbol, self.day - dt.timedelta(days=lag)))


def day_of(symbol: MetricSymbol, day: dt.date) -> Day:
    return (symbol.type, symbol.parameters, symbol.dataset, day)


_GIVEN: ContextVar[History | None] = ContextVar("dqx_gx_checks_history", default=None)


@contextmanager
def history_given(history: History | None) -> Iterator[None]:
    """Make ``history`` what the hand-written assertions of the run inside read earlier days from."""
    token = _GIVEN.set(history)
    try:
        yield
    finally:
        _GIVEN.reset(token)


def given_history() -> History | None:
    """The history of the run in progress; None outside :func:`history_given` (a stored suite run by GX)."""
    return _GIVEN.get()


def read_history(db: MetricDB, key: ResultKey, wanted: Iterable[tuple[MetricSymbol, int]]) -> History:
    """The values of ``wanted`` (a simple metric and how many days before ``key``'s date) that ``db`` holds for
    ``key``'s tags: for each, the one stored last."""
    from dqx.orm.repositories import Metric as Stored  # noqa: PLC0415 - dqlib's table, only when a db is given
    from sqlalchemy import select  # noqa: PLC0415

    values: dict[Day, float] = {}
    session = db.new_session()
    for symbol, lag in dict.fromkeys(wanted):
        day = key.yyyy_mm_dd - dt.timedelta(days=lag)
        spec = spec_of(symbol)
        query = (
            select(Stored.value)
            .where(
                Stored.metric_type == spec.metric_type,
                Stored.parameters == spec.parameters,
                Stored.yyyy_mm_dd == day,
                Stored.tags == key.tags,
                Stored.dataset == symbol.dataset,
            )
            .order_by(Stored.created.desc())
            .limit(1)
        )
        found = session.scalar(query)
        if found is not None:
            values[day_of(symbol, day)] = float(found)
    return History(key.yyyy_mm_dd, values)


def store_measured(db: MetricDB, key: ResultKey, measured: Sequence[tuple[MetricSymbol, Sequence[float]]]) -> None:
    """Store today's metrics (each simple metric with its analyzers' values) as dqlib's analyzer does: a
    ``Metric`` with the spec's own state, for ``key``'s date and tags, under one execution id."""
    from dqx import models  # noqa: PLC0415

    metadata = Metadata(execution_id=f"dqx-gx-{uuid.uuid4()}")
    metrics = []
    for symbol, values in {(s.type, s.parameters, s.dataset): (s, v) for s, v in measured}.values():
        spec = spec_of(symbol)
        for op, value in zip(spec.analyzers, values, strict=True):
            op.assign(float(value))
        metrics.append(models.Metric.build(spec, key, dataset=symbol.dataset, state=spec.state(), metadata=metadata))
    if metrics:
        db.persist(metrics)
