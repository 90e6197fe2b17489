"""The native format against dqlib's own parser (issue 15 point 9): over generated documents, dqlib's
``Contract.from_yaml`` and dqx-gx's loader both accept or both refuse.

The documents stay inside what both read the same way on purpose; README ("Native format: where dqx-gx is
stricter than dqlib") lists what dqx-gx refuses and dqlib accepts: unknown keys, numbers and booleans
written as text, length checks on a column that has no length, SLA schedules without a period.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from dqx.contract import Contract as DqlibContract
from dqx.contract import ContractValidationError as DqlibError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dqx_gx import ContractValidationError, ContractWarning
from dqx_gx.contract.native import load_native
from tests.documents import native_document

SIMPLE_TYPES = ["int", "float", "decimal", "bool", "string", "bytes", "date", "time", "timestamp"]
SEVERITIES = st.sampled_from([None, "P0", "P1", "P2", "P3"])
VALIDATORS = st.sampled_from(
    [{}, {"min": 1}, {"max": 2.5}, {"equals": 0}, {"between": [1, 2]}, {"not_between": [0, 1]}]
)


def types(depth: int) -> st.SearchStrategy[Any]:
    simple = st.sampled_from(SIMPLE_TYPES) | st.just({"kind": "timestamp", "tz": "UTC"})
    if depth == 0:
        return simple
    inner = types(depth - 1)
    field = st.builds(lambda n, t: {"name": n, "type": t, "description": "d"}, st.sampled_from(["x", "y"]), inner)
    return st.one_of(
        simple,
        st.builds(lambda v: {"kind": "list", "value_type": v}, inner),
        st.builds(lambda v: {"kind": "map", "key_type": "string", "value_type": v}, inner),
        st.builds(lambda f: {"kind": "struct", "fields": f}, st.lists(field, min_size=1, max_size=2)),
    )


def check(kind: str, severity: str | None, validator: dict[str, Any]) -> dict[str, Any]:
    values = {"values": ["x", 1]} if kind in ("whitelist", "blacklist") else {}
    return {
        "type": kind,
        "name": f"{kind} check",
        **({"severity": severity} if severity else {}),
        **validator,
        **values,
    }


column_checks = st.builds(
    check,
    st.sampled_from(["missing", "duplicates", "min", "max", "mean", "cardinality", "whitelist", "blacklist"]),
    SEVERITIES,
    VALIDATORS,
)
table_checks = st.one_of(
    st.builds(check, st.just("num_rows"), SEVERITIES, VALIDATORS),
    st.just({"type": "duplicates", "name": "dups", "columns": ["a"]}),
    st.just({"type": "freshness", "name": "fresh", "max_age_hours": 24, "timestamp_column": "a"}),
)
columns = st.builds(
    lambda name, t, nullable, checks: {
        "name": name,
        "type": t,
        "description": "d",
        **({"nullable": nullable} if nullable is not None else {}),
        **({"checks": checks} if checks else {}),
    },
    st.sampled_from(["b", "c", "d"]),
    types(2),
    st.sampled_from([None, True, False]),
    st.lists(column_checks, max_size=2),
)
valid_documents = st.builds(
    lambda first, others, checks, sla: {
        "name": "c",
        "version": "1.0",
        "description": "d",
        "owner": "o",
        "dataset": "t",
        "tags": ["x"],
        "columns": [{"name": "a", "type": "timestamp", "description": "d"}, *others],
        **({"checks": checks} if checks else {}),
        **({"sla": {"schedule": "0 2 * * *", "lag_hours": 2}, "metadata": {"timestamp_column": "a"}} if sla else {}),
    },
    st.none(),
    st.lists(columns, max_size=2, unique_by=lambda c: c["name"]),
    st.lists(table_checks, max_size=2),
    st.booleans(),
)


def _checks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for column in doc["columns"] for c in column.get("checks", [])] + doc.get("checks", [])


def _struct_fields(t: Any) -> list[dict[str, Any]]:
    """Every struct field inside a type, however deep."""
    if not isinstance(t, dict):
        return []
    found = list(t.get("fields", []))
    for field in t.get("fields", []):
        found += _struct_fields(field["type"])
    for key in ("value_type", "key_type"):
        found += _struct_fields(t.get(key))
    return found


def mutate(doc: dict[str, Any], what: str, pick: int) -> None:
    """One change that dqlib (and so dqx-gx) should refuse, or one that both should accept."""
    if not doc["columns"]:
        return
    checks, fields = _checks(doc), [f for c in doc["columns"] for f in _struct_fields(c["type"])]
    column = doc["columns"][pick % len(doc["columns"])]
    if what == "field without description" and fields:
        fields[pick % len(fields)].pop("description", None)
    elif what == "field with empty description" and fields:
        fields[pick % len(fields)]["description"] = ""
    elif what == "unknown severity" and checks:
        checks[pick % len(checks)]["severity"] = ["error", "warning", "p1", "P5", "critical"][pick % 5]
    elif what == "reversed between" and checks:
        for key in ("min", "max", "equals", "not_between"):
            checks[pick % len(checks)].pop(key, None)
        checks[pick % len(checks)]["between"] = [2, 1]
    elif what == "two validators" and checks:
        checks[pick % len(checks)].update({"min": 1, "max": 2})
    elif what == "check without name" and checks:
        checks[pick % len(checks)].pop("name", None)
    elif what == "empty column description":
        column["description"] = ""
    elif what == "duplicate column":
        doc["columns"].append(dict(doc["columns"][0]))
    elif what == "unknown duplicates column":
        doc.setdefault("checks", []).append({"type": "duplicates", "name": "d2", "columns": ["z"]})
    elif what == "freshness max age 0":
        doc.setdefault("checks", []).append(
            {"type": "freshness", "name": "f0", "max_age_hours": 0, "timestamp_column": "a"}
        )
    elif what == "negative lag" and "sla" in doc:
        doc["sla"]["lag_hours"] = -1
    elif what == "unknown timestamp column" and "metadata" in doc:
        doc["metadata"]["timestamp_column"] = "z"
    elif what == "empty name":
        doc["name"] = ""
    elif what == "dataset with a space":
        doc["dataset"] = "my table"
    elif what == "tags as text":
        doc["tags"] = "x"
    elif what == "unknown type":
        column["type"] = "integer"
    elif what == "empty whitelist":
        column.setdefault("checks", []).append({"type": "whitelist", "name": "w", "values": []})
    elif what == "struct without fields":
        column["type"] = {"kind": "struct", "fields": []}
    elif what == "name as a number":
        doc["name"] = 5
    elif what == "column name as a number":
        column["name"] = 7
    elif what == "no columns":
        doc["columns"] = []


MUTATIONS = [
    "field without description",
    "field with empty description",
    "unknown severity",
    "reversed between",
    "two validators",
    "check without name",
    "empty column description",
    "duplicate column",
    "unknown duplicates column",
    "freshness max age 0",
    "negative lag",
    "unknown timestamp column",
    "empty name",
    "dataset with a space",
    "tags as text",
    "unknown type",
    "empty whitelist",
    "struct without fields",
    "name as a number",
    "column name as a number",
    "no columns",
]


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A valid document, or one with up to two changes from MUTATIONS (about half of them)."""
    doc = copy.deepcopy(draw(valid_documents))  # st.just values are shared between examples
    for what in draw(st.lists(st.sampled_from(MUTATIONS), max_size=2)):
        mutate(doc, what, draw(st.integers(0, 20)))
    return doc


def dqlib_verdict(path: Path) -> str | None:
    try:
        DqlibContract.from_yaml(path)
    except DqlibError as exc:
        return str(exc)
    return None


def dqx_gx_verdict(path: Path) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        try:
            load_native(path)
        except ContractValidationError as exc:
            return str(exc)
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=documents())
def test_dqlib_and_dqx_gx_accept_and_refuse_the_same_native_documents(tmp_path: Path, document: dict[str, Any]) -> None:
    path = tmp_path / "contract.dqx.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    dqlib, ours = dqlib_verdict(path), dqx_gx_verdict(path)
    assert (dqlib is None) == (ours is None), f"dqlib: {dqlib}\ndqx-gx: {ours}\n{path.read_text()}"


STRICTER_IN_DQLIB = {
    "columns[0].type.fields[0]: a struct field needs 'name', 'type' and 'description' (dqlib requires all three), "
    "got: ": {
        "name": "a",
        "type": {"kind": "struct", "fields": [{"name": "zip", "type": "string"}]},
        "description": "d",
    },
    "columns[0].checks[0].severity: severity must be one of P0, P1, P2, P3 (DQX's levels; the native format has no "
    "other names), got: 'error'": {
        "name": "a",
        "type": "int",
        "description": "d",
        "checks": [{"type": "missing", "name": "m", "severity": "error"}],
    },
    "columns[0].name: 'name' must be a string, got: integer (5)": {"name": 5, "type": "int", "description": "d"},
}


@pytest.mark.parametrize(("message", "column"), STRICTER_IN_DQLIB.items(), ids=["field", "severity", "type"])
def test_where_dqlib_is_stricter_dqx_gx_refuses_too_naming_the_field(message: str, column: dict[str, Any]) -> None:
    with pytest.raises(ContractValidationError) as caught:
        load_native(native_document([column]))
    assert str(caught.value).startswith(f"<mapping>: {message}")
