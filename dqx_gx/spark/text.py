"""Spark expressions written as SQL text, made a Spark ``Column`` once, whole.

On a classic session every PySpark ``Column`` operation is a round trip through Spark's gateway:
a kind's aggregate (a cast, a ``when``, a comparison, a count, the NaN flag's struct) takes 10 to 20 of
them each time a contract's expressions are first built. The same expression written as text is one
round trip (``F.expr``), and Spark parses it when it plans the query, which costs far less than the
round trips saved (docs/benchmarks.md, "Measured facts behind the design"). So the kinds' expressions
are written with :class:`Sql`, which reads like PySpark's ``Column`` (operators, ``cast``, ``isin``) and
renders the text, and become a ``Column`` at the edge (:meth:`Sql.column`).

Nothing from a contract can change what the text says, whatever the session's settings:

- a value is a typed literal (:func:`lit`); text holding a quote, a backslash or a ``$`` goes as its UTF-8
  bytes (``X'…'``), so neither of Spark's string escaping modes nor its ``${…}`` variable substitution
  (``spark.sql.variable.substitute``, on by default, applied to the whole text before parsing) reads it;
- a column whose name is only ASCII letters, digits and ``_`` is a backticked name; any other goes through
  ``IDENTIFIER('…')`` with its name as such a value: a backticked name would be substituted too, and read as
  a regular expression under ``spark.sql.parser.quotedRegexColumnNames``;
- a type is Spark's own type text (struct field names backticked; one holding ``$`` is refused).

Literals keep ``F.lit``'s types (``int``, ``bigint``, ``double``, ``date``), so an expression means what its
``Column`` twin meant.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from dqx_gx.rules.sql_guard import quote_identifier
from dqx_gx.spark.columns import column_parts

_INT_VALUES = range(-(2**31), 2**31)
_LONG_VALUES = range(-(2**63), 2**63)
_NOT_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")
_PLAIN_TEXT = re.compile(r"[^'\\$]*")


class Sql:
    """One Spark SQL expression as text; operators and methods build bigger ones, like ``Column``'s do."""

    __slots__ = ("text",)
    __hash__ = None  # type: ignore[assignment]  # == builds an expression, as Column's does

    def __init__(self, text: str) -> None:
        self.text = text

    def column(self, name: str | None = None) -> Column:
        """The expression as a PySpark ``Column``: one round trip through a classic session's gateway. Named
        ``name``, if given, in the same text rather than by another round trip (``Column.alias``); not a name
        holding ``$``, which Spark would substitute before parsing."""
        if name is None:
            return F.expr(self.text)
        if "$" in name:
            raise ValueError(f"an expression is not named by text holding '$': {name!r}")
        return F.expr(f"{self.text} AS {quote_identifier(name)}")

    def __repr__(self) -> str:
        return f"Sql({self.text})"

    def __bool__(self) -> bool:
        raise TypeError("an expression has no truth value: use & | ~, not and/or/not")

    def _op(self, operator: str, other: Any) -> Sql:
        return Sql(f"({self.text} {operator} {_of(other).text})")

    def __and__(self, other: Sql | bool) -> Sql:
        return self._op("AND", other)

    def __or__(self, other: Sql | bool) -> Sql:
        return self._op("OR", other)

    def __invert__(self) -> Sql:
        return Sql(f"(NOT {self.text})")

    def __lt__(self, other: Any) -> Sql:
        return self._op("<", other)

    def __le__(self, other: Any) -> Sql:
        return self._op("<=", other)

    def __gt__(self, other: Any) -> Sql:
        return self._op(">", other)

    def __ge__(self, other: Any) -> Sql:
        return self._op(">=", other)

    def __eq__(self, other: Any) -> Sql:  # type: ignore[override]
        return self._op("=", other)

    def __ne__(self, other: Any) -> Sql:  # type: ignore[override]
        return self._op("!=", other)

    def __add__(self, other: Any) -> Sql:
        return self._op("+", other)

    def __sub__(self, other: Any) -> Sql:
        return self._op("-", other)

    def __mul__(self, other: Any) -> Sql:
        return self._op("*", other)

    def __truediv__(self, other: Any) -> Sql:
        return self._op("/", other)

    def bitwise_and(self, other: Any) -> Sql:
        return self._op("&", other)

    def is_null(self) -> Sql:
        return Sql(f"({self.text} IS NULL)")

    def is_not_null(self) -> Sql:
        return Sql(f"({self.text} IS NOT NULL)")

    def cast(self, to: DataType | str) -> Sql:
        return Sql(f"CAST({self.text} AS {sql_type(to)})")

    def try_cast(self, to: DataType | str) -> Sql:
        return Sql(f"TRY_CAST({self.text} AS {sql_type(to)})")

    def isin(self, *values: Any) -> Sql:
        return Sql(f"({self.text} IN ({', '.join(_of(v).text for v in values)}))")

    def rlike(self, pattern: str) -> Sql:
        return self._op("RLIKE", pattern)

    def field(self, name: str) -> Sql:
        """A struct's field by name, backticked (a batch column's field is a :func:`named` path). Not a name
        holding ``$``: Spark would substitute a ``${…}`` in it before parsing."""
        if "$" in name:
            raise ValueError(f"a field of an expression is not read by a name holding '$': {name!r}")
        return Sql(f"({self.text}).{quote_identifier(name)}")


def col(field: StructField, of: str | None = None) -> Sql:
    """A column of the batch (see :func:`~dqx_gx.spark.columns.column_parts`)."""
    return named(*column_parts(field, of))


def named(*parts: str) -> Sql:
    """A column by the parts of its name (a struct field's path)."""
    path = ".".join(quote_identifier(part) for part in parts)
    if all(_PLAIN_NAME.fullmatch(part) for part in parts):
        return Sql(path)
    return Sql(f"IDENTIFIER({lit(path).text})")


def lit(value: Any) -> Sql:
    """A Python value as a literal of the type ``F.lit`` gives it."""
    if value is None:
        return Sql("NULL")
    if isinstance(value, bool):
        return Sql("true" if value else "false")
    if isinstance(value, int):
        return Sql(f"{value}" if value in _INT_VALUES else f"{value}L" if value in _LONG_VALUES else f"{value}BD")
    if isinstance(value, float):
        if math.isfinite(value):
            return Sql(f"{float.__repr__(value)}D")
        return Sql(f"CAST('{_NOT_FINITE.get(value, 'NaN')}' AS DOUBLE)")
    if isinstance(value, Decimal) and value.is_finite():
        return Sql(f"{value}BD")
    if isinstance(value, str):
        if _PLAIN_TEXT.fullmatch(value):
            return Sql(f"'{value}'")
        return Sql(f"CAST(X'{value.encode('utf-8').hex()}' AS STRING)")
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return Sql(f"DATE '{value.isoformat()}'")
    raise TypeError(f"no Spark literal for {value!r} ({type(value).__name__})")


def null(of_type: DataType | str) -> Sql:
    """A typed NULL."""
    return lit(None).cast(of_type)


def _of(value: Any) -> Sql:
    return value if isinstance(value, Sql) else lit(value)


def call(function: str, *arguments: Any) -> Sql:
    """``function(arguments…)``; a Python value is a literal argument."""
    return Sql(f"{function}({', '.join(_of(a).text for a in arguments)})")


def when(condition: Sql, value: Any, otherwise: Any = None) -> Sql:
    """``CASE WHEN condition THEN value [ELSE otherwise] END``."""
    tail = "" if otherwise is None else f" ELSE {_of(otherwise).text}"
    return Sql(f"CASE WHEN {condition.text} THEN {_of(value).text}{tail} END")


def count_distinct(*columns: Sql) -> Sql:
    return Sql(f"count(DISTINCT {', '.join(c.text for c in columns)})")


def named_struct(**fields: Any) -> Sql:
    return call("named_struct", *(part for name, value in fields.items() for part in (name, _of(value))))


ELEMENT = "_dqx_element"
"""The lambda variable of :func:`exists` (it hides a batch column of the same name inside the lambda only)."""


def exists(array: Sql, predicate: Callable[[Sql], Sql]) -> Sql:
    """``exists(array, element -> predicate)``."""
    element = named(ELEMENT)
    return Sql(f"exists({array.text}, {element.text} -> {predicate(element).text})")


def sql_type(data_type: DataType | str) -> str:
    """A type as Spark parses it, struct field names backticked (``simpleString`` leaves them bare)."""
    if isinstance(data_type, str):
        return data_type
    if isinstance(data_type, ArrayType):
        return f"array<{sql_type(data_type.elementType)}>"
    if isinstance(data_type, MapType):
        return f"map<{sql_type(data_type.keyType)},{sql_type(data_type.valueType)}>"
    if isinstance(data_type, StructType):
        if any("$" in f.name for f in data_type.fields):
            raise ValueError(f"a struct type with a field name holding '$' is not written as SQL text: {data_type}")
        return f"struct<{','.join(f'{quote_identifier(f.name)}:{sql_type(f.dataType)}' for f in data_type.fields)}>"
    return data_type.simpleString()
