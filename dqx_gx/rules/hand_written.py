"""What a hand-written DQX assertion states, as plain data: its metrics and its validator (docs/semantics.md,
'Hand-written DQX checks').

dqlib's ``@check`` functions state assertions over symbolic metrics (``mp.average("price") /
mp.num_rows()``) with a validator (``is_between(0, 10)``). :mod:`dqx_gx.checks` reads them once, into
these values, which a GX suite stores as an expectation's arguments: a stored suite runs them without the
Python file that wrote them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricSymbol:
    """One symbol of an assertion's formula (``x_1``) and the dqlib metric it stands for."""

    symbol: str
    """dqlib's name for it in the formula: ``x_1``."""
    name: str
    """dqlib's name of the metric: ``average(price)``, ``dod(null_count(id))``."""
    type: str
    """dqlib's metric type (``specs.registry``): ``Average``, ``DayOverDay`` …"""
    parameters: str
    """The metric's parameters as dqlib stores them (``spec.parameters``), as JSON text."""
    lag: int
    """Days before the run's date the metric is of (0: this batch)."""
    dataset: str

    @property
    def arguments(self) -> dict[str, Any]:
        """The parameters as a mapping."""
        value: dict[str, Any] = json.loads(self.parameters)
        return value

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (stored in GX expectations)."""
        return {
            "symbol": self.symbol,
            "name": self.name,
            "type": self.type,
            "parameters": self.arguments,
            "lag": self.lag,
            "dataset": self.dataset,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricSymbol:
        return cls(
            symbol=data["symbol"],
            name=data["name"],
            type=data["type"],
            parameters=json.dumps(data["parameters"], sort_keys=True),
            lag=int(data["lag"]),
            dataset=data["dataset"],
        )


VALIDATORS = frozenset(
    {
        "is_geq",
        "is_gt",
        "is_leq",
        "is_lt",
        "is_eq",
        "is_neq",
        "is_between",
        "is_not_between",
        "is_positive",
        "is_negative",
        "is_zero",
        "noop",
    }
)
"""dqlib's validators (``AssertionReady``'s methods), each evaluated by dqlib's own function of that name."""


@dataclass(frozen=True)
class Validation:
    """A validator as the assertion called it: ``is_between(0, 10, tol=1e-9)`` (tunables at their values)."""

    kind: str
    """One of :data:`VALIDATORS`."""
    values: tuple[float, ...] = ()
    tol: float = 1e-9

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "values": list(self.values), "tol": self.tol}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Validation:
        kind = data["kind"]
        if kind not in VALIDATORS:
            raise ValueError(f"{kind!r} is not one of dqlib's validators ({', '.join(sorted(VALIDATORS))})")
        return cls(kind, tuple(float(v) for v in data.get("values", ())), float(data.get("tol", 1e-9)))
