"""A declared logicalType against a Spark type (DQX ODCS spec §7, restated for Spark).

Used by the type rule of every property, and by strict schema mode before a run.
"""

from __future__ import annotations

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
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
)

from dqx_gx.rules import rule as rules
from dqx_gx.spark.columns import Columns, type_text
from dqx_gx.spark_versions import TIME, TIME_TYPES

_STRING_TYPES = (StringType, CharType, VarcharType)

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
        if lt == "time" and (lacking := TIME.missing()):
            return f"{where} type mismatch: expected logicalType 'time', got {type_text(actual)}: {lacking}"
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
            return isinstance(actual, TIME_TYPES)
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
