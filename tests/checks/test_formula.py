"""An assertion's expression as a stored suite holds it: a JSON tree that gives back the same SymPy expression
and value, and that a stored suite cannot make run code."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import sympy as sp
from dqx.functions import coalesce
from hypothesis import given, settings
from hypothesis import strategies as st

from dqx_gx.checks.formula import Unstorable, evaluate, from_tree, symbols_of, to_tree

X, Y, Z = sp.symbols("x_1 x_2 x_3")
leaves = st.one_of(
    st.sampled_from([X, Y, Z, sp.Rational(1, 3), sp.pi]),
    st.integers(-(10**30), 10**30).map(sp.Integer),
    st.floats(-1e12, 1e12, allow_nan=False).map(sp.Float),
)


def combined(children: st.SearchStrategy[sp.Expr]) -> st.SearchStrategy[sp.Expr]:
    def safely(build: Callable[..., sp.Expr]) -> Callable[[Any], sp.Expr]:
        def built(parts: Any) -> sp.Expr:
            try:
                return build(*parts) if isinstance(parts, tuple) else build(parts)
            except (ZeroDivisionError, TypeError, ValueError):  # SymPy refuses some combinations of numbers
                return X

        return built

    two = st.tuples(children, children)
    return st.one_of(
        two.map(safely(lambda a, b: a + b)),
        two.map(safely(lambda a, b: a * b)),
        two.map(safely(lambda a, b: a / b)),
        two.map(safely(lambda a, b: a**2 - b)),
        two.map(safely(lambda a, b: sp.Max(a, b) - sp.Min(a, b))),
        two.map(safely(coalesce)),
        children.map(safely(sp.Abs)),
        children.map(safely(lambda c: sp.log(sp.Abs(c) + 1) + sp.exp(-sp.Abs(c)))),
        children.map(safely(sp.sqrt)),
        children.map(safely(lambda c: sp.floor(c) + sp.ceiling(c) + sp.sign(c) + sp.Mod(c, 7))),
    )


expressions = st.recursive(leaves, combined, max_leaves=8)


@settings(deadline=None)
@given(expressions)
def test_the_stored_tree_is_the_expression(expression: sp.Expr) -> None:
    tree = json.loads(json.dumps(to_tree(expression)))  # as a suite stores it
    rebuilt = from_tree(tree)
    assert rebuilt == expression and sp.srepr(rebuilt) == sp.srepr(expression)
    assert symbols_of(tree) == {str(s) for s in expression.free_symbols}


def test_what_a_suite_cannot_store_is_named() -> None:
    with pytest.raises(Unstorable, match="the expression uses StrictGreaterThan"):
        to_tree(X > 1)
    with pytest.raises(Unstorable, match="uses sin"):
        to_tree(sp.sin(X))
    with pytest.raises(Unstorable, match="'__import__' is not a part of an expression"):
        from_tree(["__import__", ["sym", "os"]])


def test_values_are_kept_to_six_digits_as_dqlib_keeps_them() -> None:
    assert evaluate(to_tree(X / Y), {"x_1": 1.0, "x_2": 3.0}) == 0.3333333134651184  # float(sp.N(1/3, 6))
    assert evaluate(to_tree(X * 10_000_001), {"x_1": 7.0}) == 70_000_000.0
    assert evaluate(to_tree(sp.Abs(sp.Abs(X)) - Y), {"x_1": -2.0, "x_2": 0.5}) == 1.5
    assert evaluate(to_tree(X / Y), {"x_1": 1.0, "x_2": 0.0}) == "Validating value is infinity"
    assert evaluate(to_tree(sp.sqrt(X)), {"x_1": -4.0}) == "Validating value is complex: 0.0 + 2.0i"
