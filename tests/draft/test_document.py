"""The drafted document from plain statistics (no Spark): what each statistic becomes, and that it is valid ODCS."""

from __future__ import annotations

import json
import math
import warnings
from importlib import resources
from typing import Any

import pytest
import yaml
from jsonschema import Draft201909Validator

from dqx_gx import ContractWarning, load_contracts
from dqx_gx.contract.jsonschemas import odcs_problems
from dqx_gx.draft.document import DraftOptions, draft_document, to_yaml
from dqx_gx.draft.stats import ColumnStats, Profile, Shape

INTEGER, NUMBER, STRING = Shape("bigint", "integer"), Shape("double", "number"), Shape("string", "string")


def official_errors(document: dict[str, Any]) -> list[str]:
    """The ODCS JSON Schema shipped in open-data-contract-standard, as published (no guard of ours)."""
    schema = json.loads(resources.files("open_data_contract_standard").joinpath("schema.json").read_text("utf-8"))
    return [e.message for e in Draft201909Validator(schema).iter_errors(document)]


def loaded_without_warnings(document: dict[str, Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)
        (contract,) = load_contracts(to_yaml(document))
    return contract


def properties(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in document["schema"][0]["properties"]}


def test_each_statistic_becomes_its_declaration() -> None:
    profile = Profile(
        rows=100,
        columns=(
            ColumnStats("seq", INTEGER, nulls=0, minimum=1, maximum=100, unique=True),
            ColumnStats("order_id", INTEGER, nulls=0, minimum=7, maximum=900, unique=True),
            ColumnStats("amount", NUMBER, nulls=0, minimum=0.1, maximum=99.25),
            ColumnStats("status", STRING, nulls=0, max_length=7, values=("done", "pending")),
            ColumnStats("region", STRING, nulls=3, max_length=2, values=("eu", "us")),
            ColumnStats("day", Shape("date", "date"), nulls=0, minimum="2026-01-01", maximum="2026-02-01"),
        ),
    )
    document = draft_document(profile, DraftOptions(name="orders", source="--data orders.parquet (parquet)"))
    found = properties(document)
    assert list(found) == ["seq", "order_id", "amount", "status", "region", "day"]
    assert (found["seq"].get("primaryKey"), found["seq"]["unique"]) == (None, True)
    assert found["order_id"]["primaryKey"] is True  # the unique column named like an id is the key
    assert found["amount"]["logicalTypeOptions"] == {"minimum": 0.1, "maximum": 99.25}
    assert found["amount"]["required"] is True and "unique" not in found["amount"]
    assert found["status"]["logicalTypeOptions"] == {"maxLength": 7}
    assert found["status"]["quality"] == [
        {
            "name": "status_valid_values",
            "type": "library",
            "metric": "invalidValues",
            "arguments": {"validValues": ["done", "pending"]},
            "mustBe": 0,
            "severity": "warning",
            "description": "the 2 values seen when drafted (at most 20 are listed)",
        }
    ]
    assert "quality" not in found["region"] and "required" not in found["region"]
    assert "values seen: 'eu', 'us' (no invalidValues rule" in found["region"]["description"]
    assert found["day"]["description"] == "observed from 2026-01-01 to 2026-02-01."
    assert "logicalTypeOptions" not in found["day"]
    (row_count,) = document["schema"][0]["quality"]
    assert (row_count["metric"], row_count["mustBeBetween"], row_count["severity"]) == (
        "rowCount",
        [50, 150],
        "warning",
    )
    assert (document["apiVersion"], document["status"]) == ("v3.1.0", "draft")
    assert official_errors(document) == [] and odcs_problems(document) == []
    contract = loaded_without_warnings(document)
    severities = {r.name: r.severity for r in contract.rules}
    assert severities["status_valid_values"] == "P1" and severities["row_count"] == "P1"


def test_severity_error_sample_estimate_and_table_name() -> None:
    profile = Profile(rows=1_000, columns=(ColumnStats("s", STRING, nulls=0, values=("a",)),), sample=0.1)
    options = DraftOptions(name="t", source="--table db.t", physical_name="db.t", severity="error")
    document = draft_document(profile, options)
    schema = document["schema"][0]
    assert schema["physicalName"] == "db.t"
    assert schema["quality"][0]["mustBeBetween"] == [5_000, 15_000]
    assert "(estimated from the sample)" in schema["quality"][0]["description"]
    assert "a 0.1 sample of the rows (1,000 rows, about 10,000 in all)" in schema["description"]
    contract = loaded_without_warnings(document)
    assert {r.name: r.severity for r in contract.rules}["s_valid_values"] == "P0"


@pytest.mark.parametrize(
    ("minimum", "maximum", "nans", "kept", "note"),
    [
        (0.5, math.nan, 2, {"minimum": 0.5}, "2 NaN values: no maximum"),
        (-math.inf, 3.0, 0, {"maximum": 3.0}, "no minimum: the observed minimum is -inf"),
        (math.nan, math.nan, 5, {}, "5 NaN values"),
    ],
)
def test_nan_and_infinite_bounds_are_left_out_with_the_reason(
    minimum: float, maximum: float, nans: int, kept: dict[str, float], note: str
) -> None:
    column = ColumnStats("x", NUMBER, nulls=0, minimum=minimum, maximum=maximum, nans=nans)
    document = draft_document(Profile(rows=5, columns=(column,)), DraftOptions(name="t", source="s"))
    prop = properties(document)["x"]
    assert prop.get("logicalTypeOptions", {}) == kept
    assert note in prop["description"]
    assert official_errors(document) == []
    loaded_without_warnings(document)


def test_floats_round_trip_through_the_yaml_exactly() -> None:
    values = [0.1 + 0.2, 5e-324, 1e-05, 123456789.12345679, -2.5e300, 1 / 3]
    columns = tuple(ColumnStats(f"x{i}", NUMBER, nulls=0, minimum=v, maximum=v) for i, v in enumerate(values))
    loaded = yaml.safe_load(to_yaml(draft_document(Profile(rows=1, columns=columns), DraftOptions("t", "s"))))
    bounds = [p["logicalTypeOptions"]["minimum"] for p in loaded["schema"][0]["properties"]]
    assert bounds == values and all(type(b) is float for b in bounds)


def test_nested_and_untyped_columns_are_declared_or_explained() -> None:
    struct = Shape(
        "struct<a:int,b:binary>",
        "object",
        fields=(("a", Shape("int", "integer")), ("b", Shape("binary", untyped="why b"))),
    )
    columns = (
        ColumnStats("s", struct, nulls=0),
        ColumnStats("tags", Shape("array<string>", "array", items=STRING), nulls=1),
        ColumnStats("blobs", Shape("array<binary>", "array", items=Shape("binary", untyped="no binary type")), nulls=0),
        ColumnStats("m", Shape("map<string,int>", untyped="no map type"), nulls=0),
        ColumnStats(
            "ts",
            Shape("timestamp_ntz", "timestamp", timezone=False),
            nulls=0,
            minimum="2026-01-01T00:00:00",
            maximum="2026-01-02T00:00:00",
        ),
        ColumnStats("empty", STRING, nulls=4),
    )
    document = draft_document(Profile(rows=4, columns=columns), DraftOptions("t", "s"))
    found = properties(document)
    assert found["s"]["properties"] == [
        {"name": "a", "logicalType": "integer", "physicalType": "int"},
        {"name": "b", "physicalType": "binary", "description": "why b"},
    ]
    assert "the fields' values were not measured" in found["s"]["description"]
    assert found["tags"]["items"] == {"logicalType": "string", "physicalType": "string"}
    assert found["blobs"]["items"] == {"physicalType": "binary", "description": "no binary type"}
    assert ("logicalType" not in found["m"], found["m"]["description"]) == (True, "no map type.")
    assert found["ts"]["logicalTypeOptions"] == {"timezone": False}
    assert found["empty"]["description"] == "every value was NULL." and "required" not in found["empty"]
    # The published schema's `if logicalType is map` also matches a property with no logicalType (it
    # then asks for `map:`); dqx-gx validates with that conditional guarded, and so does this check.
    assert odcs_problems(document) == []
    loaded_without_warnings(document)
