"""An assertion's expression as JSON, and its value computed as dqlib computes it (docs/semantics.md, 'Hand-written DQX
checks').

dqlib asserts on a SymPy expression over its metric symbols (``x_1 / x_2``). A GX suite stores it as
a JSON tree of SymPy's own parts (``["Mul", ["sym", "x_1"], ["Pow", ["sym", "x_2"], ["int", "-1"]]]``),
rebuilt part by part (``func(*args)`` without simplifying again), never parsed as text: a stored suite
cannot make it run code. :func:`evaluate` is dqlib's ``Evaluator.evaluate``: the metric values substituted
as floats and the result taken to 6 significant digits (``sp.N(value, 6)``, about a 32-bit float), so a
value is the value dqlib reports.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp
from dqx.functions import Coalesce

Tree = list[Any]

FUNCTIONS: Mapping[str, Any] = {
    "Add": sp.Add,
    "Mul": sp.Mul,
    "Pow": sp.Pow,
    "Abs": sp.Abs,
    "Min": sp.Min,
    "Max": sp.Max,
    "log": sp.log,
    "exp": sp.exp,
    "sign": sp.sign,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "Mod": sp.Mod,
    "Coalesce": Coalesce,
}
"""The SymPy functions an assertion may apply to its metrics (dqlib's ``coalesce`` among them)."""

CONSTANTS: Mapping[str, sp.Expr] = {
    "nan": sp.nan,
    "oo": sp.oo,
    "-oo": -sp.oo,
    "zoo": sp.zoo,
    "pi": sp.pi,
    "E": sp.E,
    "I": sp.I,
}


class Unstorable(ValueError):
    """The expression holds something a suite cannot store (and dqx-gx cannot evaluate)."""


def to_tree(expression: sp.Basic) -> Tree:
    """The expression as a JSON-ready tree; :class:`Unstorable` names what it cannot hold."""
    for name, constant in CONSTANTS.items():
        if expression == constant:
            return ["const", name]
    if isinstance(expression, sp.Integer):
        return ["int", str(int(expression))]
    if isinstance(expression, sp.Rational):
        return ["rat", str(expression.p), str(expression.q)]
    if isinstance(expression, sp.Float):
        sign, mantissa, exponent, bits = expression._mpf_
        return ["float", sign, str(mantissa), exponent, bits, expression._prec]
    if isinstance(expression, sp.Symbol):
        return ["sym", expression.name]
    name = type(expression).__name__
    if FUNCTIONS.get(name) is type(expression):
        return [name, *(to_tree(argument) for argument in expression.args)]
    raise Unstorable(f"the expression uses {name} ({expression}), which dqx-gx cannot store or evaluate")


def from_tree(tree: Tree) -> sp.Expr:
    """The expression a tree of :func:`to_tree` stands for, part for part (SymPy does not simplify it again: an
    expression dqlib built in steps may hold what one step would simplify, ``Abs(Abs(x))``)."""
    with sp.evaluate(False):
        return _rebuilt(tree)


def _rebuilt(tree: Tree) -> sp.Expr:
    tag, *parts = tree
    match tag:
        case "const":
            return CONSTANTS[parts[0]]
        case "int":
            return sp.Integer(int(parts[0]))
        case "rat":
            return sp.Rational(int(parts[0]), int(parts[1]))
        case "float":
            sign, mantissa, exponent, bits, precision = parts
            if int(mantissa) == 0:  # a float zero: from mpmath's zero SymPy would make the integer 0
                return sp.Float(0.0, precision=precision)
            return sp.Float(mpmath.mpf((sign, int(mantissa), exponent, bits)), precision=precision)
        case "sym":
            return sp.Symbol(parts[0])
        case _ if tag in FUNCTIONS:
            return FUNCTIONS[tag](*(_rebuilt(part) for part in parts))
    raise Unstorable(f"{tag!r} is not a part of an expression dqx-gx stores")


def formula_text(expression: sp.Basic) -> str:
    """The stored form of an expression: its tree as JSON text."""
    return json.dumps(to_tree(expression))


def symbols_of(tree: Tree) -> set[str]:
    """The metric symbols a tree reads."""
    if tree[0] == "sym":
        return {tree[1]}
    if tree[0] in FUNCTIONS:
        return set().union(*(symbols_of(part) for part in tree[1:]))
    return set()


def evaluate(tree: Tree, values: Mapping[str, float]) -> float | str:
    """The expression's value with each symbol's value substituted, as dqlib's evaluator computes it, or why
    there is none (dqlib's own words: infinity, NaN, a complex number, an error of SymPy's)."""
    expression = from_tree(tree)
    try:
        substituted = expression.subs({sp.Symbol(name): float(value) for name, value in values.items()})
        if substituted == sp.zoo:
            return "Validating value is infinity"
        if substituted.is_complex and not substituted.is_real:
            real, imaginary = substituted.as_real_imag()
            return f"Validating value is complex: {float(real)} + {float(imaginary)}i"
        value = float(sp.N(substituted, 6))
    except Exception as exc:  # SymPy fails in many ways; dqlib reports them all so
        return f"Error evaluating expression: {exc}"
    if math.isnan(value):
        return "Validating value is NaN"
    if math.isinf(value):
        return "Validating value is infinity"
    return value
