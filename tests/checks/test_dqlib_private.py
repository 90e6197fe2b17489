"""The dqlib private API dqx-gx reads (dqx_gx/checks/dqlib_private.py), pinned: a dqlib release that changes one of
them fails here, by name, before any differential test does."""

from __future__ import annotations

from typing import Any

from dqx import specs
from dqx.api import AssertionReady, Context, check
from dqx.orm.repositories import InMemoryMetricDB

from dqx_gx.checks import dqlib_private


@check(name="pinned", datasets=["t"])
def pinned(mp: Any, ctx: Any) -> None:
    ctx.assert_that(mp.num_rows()).config(name="rows").noop()


def context() -> Context:
    return Context("suite", InMemoryMetricDB(), "run", 0.9)


def test_a_decorated_check_is_a_partial_of_the_check_builder() -> None:
    assert dqlib_private.is_decorated(pinned)
    assert not dqlib_private.is_decorated(pinned.func) and not dqlib_private.is_decorated(print)


def test_a_spec_is_rebuilt_from_its_type_and_parameters() -> None:
    for spec in (
        specs.Average("a", parameters={"extra": 1}),
        specs.CountValues("a", ["x", "y"]),
        specs.DuplicateCount(["b", "a"]),
        specs.MaxLength("s", "list"),
        specs.First("a", order_by="b"),
        specs.DayOverDay.from_base_spec(specs.Sum("a")),
        specs.Stddev.from_base_spec(specs.NumRows(), 1, 3),
    ):
        assert dqlib_private.rebuilt_spec(spec.metric_type, spec.parameters) == spec


def test_the_graph_and_the_context_of_an_assertion() -> None:
    ctx = context()
    pinned(ctx.provider, ctx)
    (check_node,) = dqlib_private.graph_of(ctx).root.children
    assert (check_node.name, [a.name for a in check_node.children]) == ("pinned", ["rows"])
    ready = ctx.assert_that(ctx.provider.num_rows()).config(name="r")
    assert isinstance(ready, AssertionReady) and dqlib_private.context_of(ready) is ctx


def test_symbols_are_numbered_on_from_where_the_count_is_set_back() -> None:
    ctx = context()
    mp = ctx.provider
    mp.num_rows()
    assert dqlib_private.symbols_numbered(mp) == 1
    mp.average("a"), mp.sum("b")
    dqlib_private.number_from(mp, 1)
    assert [str(s) for s in mp.symbols()] == ["x_1"]
    assert str(mp.maximum("c")) == "x_2"
