"""The value of each metric symbol of a hand-written assertion, and the assertion's verdict, as dqlib gives them.

A simple metric of this batch is measured by the run; one of an earlier day comes from the run's
:class:`~dqx_gx.checks.history.History`. dqlib's extended metrics are computed from those with
dqlib's formulas (``dqx.compute``): day over day ``|today − yesterday| / |yesterday|`` (refused when
yesterday is 0), week over week the same a week apart, ``stddev`` the sample standard deviation of the
window's values (0 for one value). Where a value of an earlier day is missing, the assertion is
:class:`Skipped` with the metric and the day, never guessed.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dqx import functions
from dqx.common import ResultKey

from dqx_gx.checks.formula import Tree, evaluate
from dqx_gx.checks.history import History, read_history
from dqx_gx.checks.measures import EXTENDED, base_of
from dqx_gx.rules.hand_written import MetricSymbol, Validation
from dqx_gx.rules.rule import CheckRule, Rule

if TYPE_CHECKING:
    from dqx.orm.repositories import MetricDB


@dataclass(frozen=True)
class Failed:
    """No value: the assertion FAILS with this reason."""

    reason: str


@dataclass(frozen=True)
class Skipped:
    """No value without an earlier day's metric the run does not have: the assertion is SKIPPED."""

    reason: str


Value = float | Failed | Skipped

Today = Callable[[MetricSymbol], float | Failed]
"""A simple metric of this batch, as the run measured it."""

_LAGS: dict[str, Callable[[MetricSymbol], Sequence[int]]] = {
    "DayOverDay": lambda symbol: (symbol.lag, symbol.lag + 1),
    "WeekOverWeek": lambda symbol: (symbol.lag, symbol.lag + 7),
    "Stddev": lambda symbol: range(symbol.lag, symbol.lag + int(symbol.arguments["n"])),
}
"""The days (lags) an extended metric reads its base metric on: dqlib's ``compute`` functions' windows."""


def simple_needs(symbol: MetricSymbol) -> Iterator[tuple[MetricSymbol, int]]:
    """The simple metrics a symbol's value reads, each with its lag (0: this batch)."""
    if symbol.type not in EXTENDED:
        yield symbol, symbol.lag
        return
    base = base_of(symbol)
    for lag in _LAGS[symbol.type](symbol):
        yield base, lag


def symbol_value(symbol: MetricSymbol, today: Today, history: History | None) -> Value:
    """The value of one symbol."""
    if symbol.type not in EXTENDED:
        return _simple(symbol, symbol.lag, today, history)
    base = base_of(symbol)
    lags = list(_LAGS[symbol.type](symbol))
    found = [_simple(base, lag, today, history) for lag in lags]
    for value in found:
        if not isinstance(value, float):
            return value
    values = [v for v in found if isinstance(v, float)]
    if symbol.type == "Stddev":
        return statistics.stdev(values) if len(values) > 1 else 0.0
    current, before = values
    if before == 0:  # dqlib's own words (dqx.compute)
        assert history is not None  # a value of an earlier day came from it
        day = history.day - dt.timedelta(days=lags[1])
        if symbol.type == "DayOverDay":
            return Failed(f"Cannot calculate day over day: previous day value ({day}) is zero.")
        return Failed(f"Cannot calculate week over week: week ago value ({day}) is zero.")
    return abs((current - before) / before)


def _simple(symbol: MetricSymbol, lag: int, today: Today, history: History | None) -> float | Failed | Skipped:
    if lag == 0:
        return today(symbol)
    if history is None:
        return Skipped(
            f"{symbol.name} of {lag} day{'s' * (lag != 1)} before the run is a metric of an earlier day: dqx-gx reads "
            "those from a metric database, and this run has none (give db= to run_checks or run_contract)"
        )
    value = history.value(symbol, lag)
    if value is None:
        day = history.day - dt.timedelta(days=lag)
        return Skipped(
            f"{symbol.name} of {day} is not in {history.where}: run these checks on that day's batch with the "
            "same db first, which stores its metrics"
        )
    return value


def assertion_value(tree: Tree, symbols: Sequence[MetricSymbol], today: Today, history: History | None) -> Value:
    """The asserted expression's value; a symbol without one decides (the first skipped, else every failure)."""
    values = {symbol.symbol: symbol_value(symbol, today, history) for symbol in symbols}
    skipped = [v for v in values.values() if isinstance(v, Skipped)]
    if skipped:
        return skipped[0]
    failed = [v.reason for v in values.values() if isinstance(v, Failed)]
    if failed:
        return Failed("; ".join(dict.fromkeys(failed)))
    value = evaluate(tree, {name: v for name, v in values.items() if isinstance(v, float)})
    return Failed(value) if isinstance(value, str) else value


def passes(validation: Validation, value: float) -> bool | str:
    """The verdict of dqlib's own validator function on the value, or why it cannot give one."""
    if validation.kind == "noop":
        return True
    if validation.kind in ("is_between", "is_not_between"):
        lower, upper = validation.values
        if lower > upper:
            return f"Invalid range: lower bound ({lower}) > upper bound ({upper})"
    judge: Callable[..., bool] = getattr(functions, validation.kind)
    return bool(judge(value, *validation.values, validation.tol))


def history_for(rules: Iterable[Rule], db: MetricDB | None, key: ResultKey) -> History | None:
    """What a run given ``db`` knows of the earlier days its hand-written assertions read (None without a db)."""
    if db is None:
        return None
    wanted = [
        (simple, lag)
        for rule in rules
        if isinstance(rule, CheckRule)
        for symbol in rule.symbols
        for simple, lag in simple_needs(symbol)
        if lag > 0
    ]
    return read_history(db, key, wanted) if wanted else History(key.yyyy_mm_dd)
