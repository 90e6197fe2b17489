"""A contract's columns in a Spark batch: found the way Spark resolves names, and sorted into type families.

Metrics are computed in one ``df.agg`` shared by the whole suite, so an expression
that fails inside Spark (a missing column, ``avg`` of a string in ANSI mode,
``count(DISTINCT)`` of a map) would fail every rule at once. Every kind therefore
checks the column first (:func:`type_problem`, reading the kind's declaration) and
measures nothing on a column it cannot handle; the expectation reports the same reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    CharType,
    DataType,
    DateType,
    FractionalType,
    IntegralType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
)

from dqx_gx.kinds import Kind, Metric, TypeFamily
from dqx_gx.rules.sql_guard import quote_identifier
from dqx_gx.spark_versions import TIME_TYPES

_FAMILIES: tuple[tuple[type[DataType] | tuple[type[DataType], ...], TypeFamily], ...] = (
    ((StringType, CharType, VarcharType), TypeFamily.TEXT),
    (IntegralType, TypeFamily.INTEGER),
    (FractionalType, TypeFamily.FRACTIONAL),
    (BooleanType, TypeFamily.BOOLEAN),
    (DateType, TypeFamily.DATE),
    ((TimestampType, TimestampNTZType), TypeFamily.TIMESTAMP),
    (TIME_TYPES, TypeFamily.TIME),
    (BinaryType, TypeFamily.BINARY),
    (ArrayType, TypeFamily.ARRAY),
    (MapType, TypeFamily.MAP),
    (StructType, TypeFamily.STRUCT),
)


UNCAST = "_dqx_uncast"
"""Hidden column of a batch read from an untyped source (:mod:`dqx_gx.spark.uncast`): never listed."""

NESTED_PATH = "dqx.path"
"""Metadata key of a struct field found by its path: the names of the path's parts."""


@dataclass(frozen=True)
class Columns:
    """A batch's columns, looked up the way Spark resolves names (``spark.sql.caseSensitive``).

    Case-insensitive (Spark's default): a name finds the one column equal to it
    ignoring case; a name equal to several (``b`` and ``B``) is ambiguous, and Spark
    would refuse it. Case-sensitive: only the exact name.
    """

    schema: StructType
    case_sensitive: bool = False

    def __hash__(self) -> int:
        # by the names alone (equal columns have equal names): a StructType hashes its whole text
        return hash((tuple(self.schema.names), self.case_sensitive))

    @classmethod
    def of(cls, frame: DataFrame) -> Columns:
        session = frame.sparkSession
        read = _CASE_RULE.get()
        return cls(frame.schema, read[1] if read is not None and read[0] is session else _case_sensitive(session))

    def find(self, name: str) -> StructField | None:
        """The column called ``name``; else, for a dotted name, the struct field at that path
        (``address.zip``, as Spark reads it: NULL where the struct is NULL). A column whose own
        name holds the dot comes first."""
        matches = self._matches(name)
        if matches:
            return matches[0] if len(matches) == 1 else None
        return self._nested(name) if "." in name else None

    def _nested(self, path: str) -> StructField | None:
        fields, names = self.schema.fields, []
        found: StructField | None = None
        for part in path.split("."):
            matches = self.named(fields, part)
            if len(matches) != 1:
                return None
            found = matches[0]
            names.append(found.name)
            fields = found.dataType.fields if isinstance(found.dataType, StructType) else []
        return None if found is None else StructField(".".join(names), found.dataType, True, {NESTED_PATH: names})

    def named(self, fields: Sequence[StructField], name: str) -> list[StructField]:
        """The fields Spark takes for ``name`` (more than one: ambiguous)."""
        if self.case_sensitive:
            return [f for f in fields if f.name == name]
        return [f for f in fields if f.name.lower() == name.lower()]

    def missing(self, name: str) -> str:
        """Why ``find(name)`` found nothing."""
        matches = self._matches(name)
        if len(matches) > 1:
            found = ", ".join(f.name for f in matches)
            return (
                f"column {name!r} is ambiguous: Spark matches names ignoring case and the batch has {found} "
                "(set spark.sql.caseSensitive=true to tell them apart)"
            )
        names = [f.name for f in self.schema.fields if f.name != UNCAST]
        shown = ", ".join(repr(n) for n in names[:12]) + (f", … {len(names)} columns" if len(names) > 12 else "")
        return f"column {name!r} is not in the batch (it has: {shown or 'no columns'})"

    def _matches(self, name: str) -> list[StructField]:
        return self.named(self.schema.fields, name)


def _case_sensitive(session: SparkSession) -> bool:
    return str(session.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"


_CASE_RULE: ContextVar[tuple[SparkSession, bool] | None] = ContextVar("dqx_gx_case_rule", default=None)


@contextmanager
def case_rule_read(session: SparkSession) -> Iterator[None]:
    """Inside (one run), :meth:`Columns.of` a batch of ``session`` finds names by the session's case rule as
    read here, once: every metric of a run looks its columns up, and reading the setting from the session
    takes two round trips through a classic session's gateway each time."""
    token = _CASE_RULE.set((session, _case_sensitive(session)))
    try:
        yield
    finally:
        _CASE_RULE.reset(token)


def spark_column(field: StructField, of: str | None = None) -> Column:
    """A column reference that survives dots, spaces and backticks in the name (see :func:`column_parts`)."""
    return F.col(".".join(quote_identifier(part) for part in column_parts(field, of)))


def column_parts(field: StructField, of: str | None = None) -> list[str]:
    """The parts of a column's name: a struct field found by its path (:meth:`Columns.find`) is addressed
    part by part; ``of`` qualifies it with a DataFrame's alias (``frame.alias(of)``)."""
    path = field.metadata.get(NESTED_PATH) if field.metadata else None
    return [*([of] if of else []), *(path or [field.name])]


def type_text(data_type: DataType) -> str:
    return data_type.simpleString()


def family(data_type: DataType) -> TypeFamily:
    """The engine-neutral sort of a Spark type."""
    return next((found for types, found in _FAMILIES if isinstance(data_type, types)), TypeFamily.OTHER)


def families_within(data_type: DataType) -> frozenset[TypeFamily]:
    """The families of a type and of every type nested inside it."""
    found = {family(data_type)}
    if isinstance(data_type, ArrayType):
        found |= families_within(data_type.elementType)
    elif isinstance(data_type, MapType):
        found |= families_within(data_type.keyType) | families_within(data_type.valueType)
    elif isinstance(data_type, StructType):
        for inner in data_type.fields:
            found |= families_within(inner.dataType)
    return frozenset(found)


def type_problem(kind: Kind, metric: Metric, field: StructField, columns: Columns) -> str | None:
    """Why ``kind`` cannot measure ``metric`` on this column of ``columns``, from the kind's declared accepted
    types; on array items, on the type of the value each element leads to."""
    dt, at = field.dataType, field.name
    if metric.items:
        found = element_type(field, metric.element, columns)
        if isinstance(found, str):
            return f"{kind.describe(metric)} is on array items; {found}"
        dt, at = found
    return kind.type_problem(metric, family(dt), families_within(dt), f"{at!r} is {type_text(dt)}")


def element_type(field: StructField, element: tuple[str, ...], columns: Columns) -> tuple[DataType, str] | str:
    """The type of the value ``element`` leads to from each element of the array ``field``, and that value's
    path (``lines[*].sku``), its fields found by ``columns``' case rule; where the way breaks, why."""
    dt, at = field.dataType, field.name
    for step in ("*", *element):
        if step == "*":
            if not isinstance(dt, ArrayType):
                return f"{at!r} is {type_text(dt)}, not an array"
            dt, at = dt.elementType, f"{at}[*]"
            continue
        if not isinstance(dt, StructType):
            return f"{at!r} is {type_text(dt)}, not a struct"
        same = columns.named(dt.fields, step)
        if not same:
            return f"{at!r} has no field {step!r}"
        if len(same) > 1:
            return f"{at!r} has fields {', '.join(repr(f.name) for f in same)}: Spark matches names ignoring case"
        if "$" in same[0].name:
            return f"{at}.{same[0].name!r}: a field inside array elements is not read by a name holding '$'"
        dt, at = same[0].dataType, f"{at}.{same[0].name}"
    return dt, at


def element_field(data_type: DataType, name: str) -> StructField:
    """The struct field ``name`` of a way :func:`element_type` found: the field of that name, else the one
    field of that name ignoring case."""
    assert isinstance(data_type, StructType)
    exact = [f for f in data_type.fields if f.name == name]
    (found,) = exact or [f for f in data_type.fields if f.name.lower() == name.lower()]
    return found
