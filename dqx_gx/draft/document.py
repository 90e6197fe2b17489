"""A drafted ODCS v3.1 contract from plain statistics: what the data showed, as properties and rules.

Engine-neutral: it reads a :class:`~dqx_gx.draft.stats.Profile` and writes a mapping (and its YAML);
Spark is the profile's business. Every rule it writes holds on the data it was drafted from:

- ``required: true`` where the column had no NULL; ``unique: true`` where every value was distinct and
  none NULL (exact); one such integer or string column, an ``id`` by name when there is one, becomes
  the ``primaryKey``;
- numbers: ``logicalTypeOptions`` ``minimum``/``maximum``, the observed extremes (a double's ``repr``
  round-trips, so the bound is the value itself); no maximum over NaN, which Spark orders above every
  number, and no bound that is infinite;
- strings: ``maxLength``, and an ``invalidValues`` rule with ``validValues`` when the column has at
  most ``max_values`` distinct values and no NULL (``invalidValues`` counts NULL as invalid, so on a
  column with NULLs the values are listed in its description instead);
- dates, timestamps and times: the observed range, in the description only;
- a ``rowCount`` rule: the rows counted (or estimated from a sample) ± 50 % (:data:`ROW_BAND`).

The drafted quality rules are ``warning`` (P1) unless ``severity="error"``; ``required``, ``unique`` and
``primaryKey`` are P0 and ``logicalTypeOptions`` bounds P1 whatever is asked, as for any contract.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from dqx_gx.draft.stats import ColumnStats, Profile, Shape

API_VERSION = "v3.1.0"
ROW_BAND = 0.5
"""The rowCount rule accepts the drafted row count ± this share: volumes vary; a draft says the order."""
_ID_NAME = re.compile(r"(^|_)id$|[a-z]Id$|^key$", re.IGNORECASE)


@dataclass(frozen=True)
class DraftOptions:
    """What the caller says about the draft: its name, where the data came from, and the limits."""

    name: str
    source: str
    """Where the data was read, as messages say it (``--data orders.parquet (parquet)``)."""
    inferred: bool = False
    """The types were inferred from text (CSV, JSON), not read from the source."""
    physical_name: str | None = None
    max_values: int = 20
    severity: str = "warning"


def draft_document(profile: Profile, options: DraftOptions) -> dict[str, Any]:
    """The ODCS document drafted from ``profile``: one schema object, every column in order."""
    key = _primary_key(profile.columns)
    schema: dict[str, Any] = {"name": options.name}
    if options.physical_name:
        schema["physicalName"] = options.physical_name
    schema["description"] = _schema_description(profile, options)
    schema["properties"] = [_property(column, profile.rows, options, column is key) for column in profile.columns]
    schema["quality"] = [_row_count_rule(profile, options)]
    return {
        "apiVersion": API_VERSION,
        "kind": "DataContract",
        "id": options.name,
        "name": options.name,
        "version": "0.1.0",
        "status": "draft",
        "description": {
            "purpose": f"Drafted by dqx-gx from {options.source}. Every rule states what that data showed: "
            "review the bounds, value lists and keys before relying on them.",
        },
        "schema": [schema],
    }


def to_yaml(document: dict[str, Any]) -> str:
    """The document as YAML: keys in the order written, floats as their ``repr`` (they load back equal)."""
    text: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    return "# A contract drafted from data by `dqx-gx draft`: review it before use.\n" + text


def _schema_description(profile: Profile, options: DraftOptions) -> str:
    rows = f"{profile.rows:,} rows"
    if profile.sample is not None:
        rows = f"a {profile.sample:.4g} sample of the rows ({rows}, about {profile.estimated_rows:,} in all)"
    types = (
        "The source stores no types: Spark inferred them from the text (inferSchema), so check them."
        if options.inferred
        else "The types are the source's own."
    )
    return f"Drafted from {options.source}: {rows}, {len(profile.columns)} columns. {types}"


def _property(column: ColumnStats, rows: int, options: DraftOptions, primary: bool) -> dict[str, Any]:
    prop: dict[str, Any] = {"name": column.name, **_typed(column.shape)}
    notes: list[str] = [column.shape.untyped] if column.shape.untyped else []
    if rows and not column.nulls:
        prop["required"] = True
    if rows and column.nulls == rows:
        notes.append("every value was NULL")
    if column.unique:
        prop["unique"] = True
    if primary:
        prop["primaryKey"] = True
    logical = column.shape.logical
    bounds: dict[str, Any] = {}
    if logical in ("integer", "number"):
        bounds = _number_bounds(column, notes)
    elif logical == "string" and column.max_length is not None:
        bounds = {"maxLength": column.max_length}
    elif logical in ("date", "timestamp", "time") and column.minimum is not None:
        notes.append(f"observed from {column.minimum} to {column.maximum}")
    if bounds:
        prop.setdefault("logicalTypeOptions", {}).update(bounds)
    quality = _values_rule(column, options, notes) if logical == "string" else None
    if quality:
        prop["quality"] = [quality]
    if column.shape.fields:
        notes.append("the fields' values were not measured: their types are declared, nothing else")
    if notes:
        prop["description"] = "; ".join(notes) + "."
    return prop


def _typed(shape: Shape) -> dict[str, Any]:
    """``logicalType`` (when ODCS has one), ``physicalType``, and the nested types of arrays and structs."""
    typed: dict[str, Any] = {"logicalType": shape.logical} if shape.logical else {}
    typed["physicalType"] = shape.physical
    if shape.timezone is not None:
        typed["logicalTypeOptions"] = {"timezone": shape.timezone}
    if shape.items is not None:
        typed["items"] = _typed(shape.items)
        if shape.items.untyped:
            typed["items"]["description"] = shape.items.untyped
    if shape.fields:
        typed["properties"] = [_nested_field(name, inner) for name, inner in shape.fields]
    return typed


def _nested_field(name: str, shape: Shape) -> dict[str, Any]:
    field = {"name": name, **_typed(shape)}
    if shape.untyped:
        field["description"] = shape.untyped
    return field


def _number_bounds(column: ColumnStats, notes: list[str]) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    if column.nans:
        notes.append(f"{column.nans:,} NaN values: no maximum, since Spark orders NaN above every number")
    for key, value in (("minimum", column.minimum), ("maximum", column.maximum)):
        if value is None or (key == "maximum" and column.nans):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            if not math.isnan(value):
                notes.append(f"no {key}: the observed {key} is {value}, which ODCS cannot hold")
            continue
        bounds[key] = value
    return bounds


def _values_rule(column: ColumnStats, options: DraftOptions, notes: list[str]) -> dict[str, Any] | None:
    if column.values is None or not column.values:
        return None
    if column.nulls:
        shown = ", ".join(repr(v) for v in column.values)
        notes.append(
            f"values seen: {shown} (no invalidValues rule: it counts NULL as invalid, and this column has NULLs)"
        )
        return None
    count = len(column.values)
    return {
        "name": f"{column.name}_valid_values",
        "type": "library",
        "metric": "invalidValues",
        "arguments": {"validValues": list(column.values)},
        "mustBe": 0,
        "severity": options.severity,
        "description": f"the {count} value{'s' if count > 1 else ''} seen when drafted "
        f"(at most {options.max_values} are listed)",
    }


def _row_count_rule(profile: Profile, options: DraftOptions) -> dict[str, Any]:
    rows = profile.estimated_rows
    low, high = math.floor(rows * (1 - ROW_BAND)), math.ceil(rows * (1 + ROW_BAND))
    seen = f"{rows:,} rows" + (" (estimated from the sample)" if profile.sample is not None else "")
    bound: dict[str, Any] = {"mustBeBetween": [low, high]} if high > low else {"mustBe": rows}  # ODCS: a ≠ b
    return {
        "name": "row_count",
        "type": "library",
        "metric": "rowCount",
        **bound,
        "severity": options.severity,
        "description": f"{seen} when drafted, ± {ROW_BAND:.0%}: set the band to the volumes you expect",
    }


def _primary_key(columns: Sequence[ColumnStats]) -> ColumnStats | None:
    """One unique integer or string column: the first named like an id, else the first."""
    keys = [c for c in columns if c.unique and c.shape.logical in ("integer", "string")]
    named = [c for c in keys if _ID_NAME.search(c.name)]
    chosen = named or keys
    return chosen[0] if chosen else None
