"""Every use of dqlib's private API, in one place (as ``gx_private`` is GX's), each pinned by
``tests/checks/test_dqlib_private.py``: a dqlib release that changes one fails there, by name."""

from __future__ import annotations

import functools
from typing import Any

from dqx import api, specs
from dqx.graph.traversal import Graph
from dqx.provider import MetricProvider
from dqx.specs import MetricSpec


def is_decorated(value: Any) -> bool:
    """Whether ``value`` is a function made by ``@check``: a partial of dqlib's check builder."""
    return isinstance(value, functools.partial) and value.func is api._create_check


def rebuilt_spec(metric_type: str, parameters: dict[str, Any]) -> MetricSpec:
    """A spec from its type and parameters, as dqlib rebuilds the specs it stores."""
    return specs._reconstruct_base_spec(metric_type, parameters)


def graph_of(context: api.Context) -> Graph:
    """The graph of checks and assertions a Context collects (what ``VerificationSuite.graph`` gives)."""
    return context._graph


def context_of(ready: api.AssertionReady) -> api.Context | None:
    """The Context an assertion being configured belongs to."""
    context: api.Context | None = ready._context
    return context


def symbols_numbered(provider: MetricProvider) -> int:
    """How many symbols the provider's registry has numbered (``x_1`` … ``x_n``)."""
    return int(provider.registry._curr_index)


def number_from(provider: MetricProvider, count: int) -> None:
    """Drop the symbols numbered after ``count`` and number the next ones on from it."""
    registry = provider.registry
    for symbol in [m.symbol for m in registry.metrics if int(str(m.symbol).split("_")[1]) > count]:
        registry.remove(symbol)
    registry._curr_index = count
