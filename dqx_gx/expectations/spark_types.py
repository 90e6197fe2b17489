"""Spark types: finding a contract's column in a batch, and what can be measured on it.

Metrics are computed in one ``df.agg`` shared by the whole suite, so an
expression that fails inside Spark (a missing column, ``avg`` of a string in
ANSI mode, ``count(DISTINCT)`` of a map) would fail every rule at once. Each
metric therefore asks :func:`unsupported` first and measures nothing on a
column it cannot handle; the expectation reports the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    CharType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegralType,
    MapType,
    NumericType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    TimeType,
    VarcharType,
)

from dqx_gx.rules import rule as rules
from dqx_gx.rules.metric import ConstraintKind, MetricKind
from dqx_gx.rules.sql_guard import quote_identifier

_STRING_TYPES = (StringType, CharType, VarcharType)
_COMPLEX_TYPES = (ArrayType, MapType, StructType)


@dataclass(frozen=True)
class Columns:
    """A batch's columns, looked up the way Spark resolves names (``spark.sql.caseSensitive``).

    Case-insensitive (Spark's default): a name finds the one column equal to it
    ignoring case; a name equal to several (``b`` and ``B``) is ambiguous, and Spark
    would refuse it. Case-sensitive: only the exact name.
    """

    schema: StructType
    case_sensitive: bool = False

    @classmethod
    def of(cls, frame: DataFrame) -> Columns:
        setting = frame.sparkSession.conf.get("spark.sql.caseSensitive", "false")
        return cls(frame.schema, str(setting).lower() == "true")

    def find(self, name: str) -> StructField | None:
        matches = self._matches(name)
        return matches[0] if len(matches) == 1 else None

    def missing(self, name: str) -> str:
        """Why ``find(name)`` found nothing."""
        matches = self._matches(name)
        if len(matches) > 1:
            found = ", ".join(f.name for f in matches)
            return (
                f"column {name!r} is ambiguous: Spark matches names ignoring case and the batch has {found} "
                "(set spark.sql.caseSensitive=true to tell them apart)"
            )
        names = [f.name for f in self.schema.fields]
        shown = ", ".join(repr(n) for n in names[:12]) + (f", … {len(names)} columns" if len(names) > 12 else "")
        return f"column {name!r} is not in the batch (it has: {shown or 'no columns'})"

    def _matches(self, name: str) -> list[StructField]:
        if self.case_sensitive:
            return [f for f in self.schema.fields if f.name == name]
        return [f for f in self.schema.fields if f.name.lower() == name.lower()]


def spark_column(field: StructField) -> Column:
    """A column reference that survives dots, spaces and backticks in the name."""
    return F.col(quote_identifier(field.name))


def type_text(data_type: DataType) -> str:
    return data_type.simpleString()


def unsupported(
    kind: MetricKind,
    field: StructField,
    *,
    column_type: str | None = None,
    constraint: ConstraintKind | None = None,
    constraint_value: object = None,
) -> str | None:
    """Why ``kind`` cannot be computed on this column, or None when it can."""
    dt = field.dataType
    what = f"{field.name!r} is {type_text(dt)}"
    if kind in (MetricKind.NUM_ROWS, MetricKind.NULL_COUNT, MetricKind.COUNT):
        return None
    if kind in (MetricKind.MISSING_COUNT, MetricKind.INVALID_COUNT, MetricKind.COUNT_VALUES):
        return f"{kind} compares single values; {what}" if isinstance(dt, _COMPLEX_TYPES) else None
    if kind is MetricKind.PATTERN_INVALID_COUNT:
        return f"{kind} matches text; {what}" if isinstance(dt, (*_COMPLEX_TYPES, BinaryType)) else None
    if kind in (MetricKind.DUPLICATE_COUNT, MetricKind.CARDINALITY):
        return f"{kind} cannot compare map values; {what}" if _contains_map(dt) else None
    if kind in (MetricKind.MIN, MetricKind.MAX):
        return None if isinstance(dt, NumericType | BooleanType) else f"{kind} needs a numeric column; {what}"
    if kind in (MetricKind.MEAN, MetricKind.SUM, MetricKind.VARIANCE, MetricKind.STDDEV, MetricKind.PERCENTILE):
        return None if isinstance(dt, NumericType) else f"{kind} needs a numeric column; {what}"
    if kind in (MetricKind.MIN_LENGTH, MetricKind.MAX_LENGTH, MetricKind.AVG_LENGTH):
        expected = {"string": _STRING_TYPES, "list": (ArrayType,), "map": (MapType,)}.get(column_type or "", ())
        if isinstance(dt, expected):
            return None
        return f"{kind} with column_type {column_type!r} needs a {column_type} column; {what}"
    if kind is MetricKind.FRESHNESS_HOURS:
        if isinstance(dt, DateType | TimestampType | TimestampNTZType):
            return None
        return f"freshness needs a date or timestamp column; {what}"
    if kind is MetricKind.VIOLATION_COUNT and constraint is not None:
        return _constraint_unsupported(constraint, constraint_value, dt, what)
    return None


def _constraint_unsupported(constraint: ConstraintKind, value: object, dt: DataType, what: str) -> str | None:
    text_constraints = (
        ConstraintKind.MIN_LENGTH,
        ConstraintKind.MAX_LENGTH,
        ConstraintKind.PATTERN,
        ConstraintKind.FORMAT,
    )
    if constraint in text_constraints:
        return None if isinstance(dt, _STRING_TYPES) else f"{constraint} applies to text; {what}"
    if constraint in (ConstraintKind.MIN_ITEMS, ConstraintKind.MAX_ITEMS):
        return None if isinstance(dt, ArrayType) else f"{constraint} applies to arrays; {what}"
    if constraint is ConstraintKind.UNIQUE_ITEMS:
        if isinstance(dt, ArrayType) and not _contains_map(dt):
            return None
        return f"uniqueItems applies to arrays of comparable items; {what}"
    if constraint is ConstraintKind.MULTIPLE_OF:
        return None if isinstance(dt, IntegralType) else f"multipleOf applies to integer columns; {what}"
    # minimum / maximum and their exclusive forms
    if isinstance(value, str):
        if isinstance(dt, DateType | TimestampType | TimestampNTZType):
            return None
        return f"{constraint} {value!r} is a date/time bound; {what}"
    return None if isinstance(dt, NumericType) else f"{constraint} needs a numeric column; {what}"


def _contains_map(dt: DataType) -> bool:
    if isinstance(dt, MapType):
        return True
    if isinstance(dt, ArrayType):
        return _contains_map(dt.elementType)
    if isinstance(dt, StructType):
        return any(_contains_map(f.dataType) for f in dt.fields)
    return False


# --- declared logical type vs Spark type (DQX ODCS spec §7, restated for Spark) ------------------------

ACCEPTED: dict[str, str] = {
    "string": "string, char, varchar",
    "integer": "tinyint, smallint, int, bigint",
    "number": "float, double, decimal",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp, timestamp_ntz",
    "time": "time",
    "array": "array",
    "object": "struct",
    "map": "map",
    "vector": "array of numbers",
    "binary": "binary",
}


def type_mismatch(declared: rules.DataType, actual: DataType, where: str) -> str | None:
    """Why ``actual`` does not satisfy the declared type, or None; recurses into arrays, structs and maps."""
    lt = declared.logical_type
    if not _top_level_matches(declared, actual):
        return f"{where} type mismatch: expected logicalType {lt!r} ({_accepted(declared)}), got {type_text(actual)}"
    if lt in ("array", "vector") and isinstance(actual, ArrayType) and declared.items is not None:
        return type_mismatch(declared.items, actual.elementType, f"{where} items")
    if lt == "map" and isinstance(actual, MapType):
        for part, inner, spark_inner in (
            ("key", declared.key, actual.keyType),
            ("value", declared.value, actual.valueType),
        ):
            if inner is not None and (problem := type_mismatch(inner, spark_inner, f"{where} map {part}")):
                return problem
    if lt == "object" and isinstance(actual, StructType):
        for name, inner in declared.fields:
            field = Columns(actual).find(name)
            if field is None:
                return f"{where} field {name!r} is missing from the struct ({type_text(actual)})"
            if inner is not None and (problem := type_mismatch(inner, field.dataType, f"{where}.{name}")):
                return problem
    return None


def _accepted(declared: rules.DataType) -> str:
    timezone = declared.options.get("timezone")
    if declared.logical_type == "timestamp" and timezone is not None:
        return "timestamp" if timezone else "timestamp_ntz"
    return ACCEPTED.get(declared.logical_type, declared.logical_type)


def _top_level_matches(declared: rules.DataType, actual: DataType) -> bool:
    match declared.logical_type:
        case "string":
            return isinstance(actual, _STRING_TYPES)
        case "integer":
            return isinstance(actual, IntegralType)
        case "number":
            return isinstance(actual, FloatType | DoubleType | DecimalType)
        case "boolean":
            return isinstance(actual, BooleanType)
        case "date":
            return isinstance(actual, DateType)
        case "timestamp":
            timezone = declared.options.get("timezone")
            if timezone is True:
                return isinstance(actual, TimestampType)
            if timezone is False:
                return isinstance(actual, TimestampNTZType)
            return isinstance(actual, TimestampType | TimestampNTZType)
        case "time":
            return isinstance(actual, TimeType)
        case "array":
            return isinstance(actual, ArrayType)
        case "vector":
            return isinstance(actual, ArrayType) and isinstance(actual.elementType, NumericType)
        case "object":
            return isinstance(actual, StructType)
        case "map":
            return isinstance(actual, MapType)
        case "binary":
            return isinstance(actual, BinaryType)
    return False
