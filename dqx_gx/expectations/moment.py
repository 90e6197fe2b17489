"""The moment a checkpoint run measures freshness and completeness from.

Suites store ``now: {"$PARAMETER": "now()"}``: GX fills in its own ``now()`` as it processes each
expectation's parameters, so a stored checkpoint runs on any GX platform with no parameters passed.
GX's ``now()`` is a naive wall-clock time of the machine's zone; :func:`instant` turns it into UTC, so
the zone cannot change a verdict. A run that has its own moment (``run_contract(now=...)``,
``dqx-gx validate --now``, or plain GX code inside :func:`measured_at`) gives it to every expectation
of the run instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime

from dqx_gx.rules.timestamps import as_utc, from_local_wall_clock

NOW_EXPRESSION = "now()"
"""The suite parameter expression stored for ``now``: GX's own current time, filled in at run time."""

_GIVEN: ContextVar[datetime | None] = ContextVar("dqx_gx_measured_at", default=None)


@contextmanager
def measured_at(moment: str | date | datetime) -> Iterator[None]:
    """Inside the block, every dqx-gx expectation measures from ``moment`` (no zone: UTC), whatever
    the suite stores: one moment for the whole run."""
    token = _GIVEN.set(as_utc(moment))
    try:
        yield
    finally:
        _GIVEN.reset(token)


def instant(stored: object) -> datetime | None:
    """The UTC moment an expectation measures from: the run's given moment, else its ``now`` argument —
    text without a zone is the machine's wall clock (what GX's ``now()`` gives), a datetime without a
    zone is UTC. None when there is neither (the rule then says ``now`` was not given)."""
    given = _GIVEN.get()
    if given is not None:
        return given
    if isinstance(stored, str):
        try:
            parsed = datetime.fromisoformat(stored)
        except ValueError:
            return None
        return from_local_wall_clock(parsed) if parsed.tzinfo is None else as_utc(parsed)
    if isinstance(stored, date):
        return as_utc(stored)
    return None
