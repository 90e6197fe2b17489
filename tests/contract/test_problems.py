"""Every problem of a document, once, with its path, its YAML line and the fix (issue 15 point 2)."""

from __future__ import annotations

import re

import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractValidationError, run_contract
from dqx_gx.contract.jsonschemas import Problem, _free_text_keys, odcs_problems, odcs_validator, problems
from dqx_gx.errors import SchemaValidationError
from tests.documents import odcs_document

MISSING_STATUS_AND_BAD_RANGE = """\
apiVersion: v3.1.0
kind: DataContract
id: c-1
name: c
version: 1.0.0
schema:
  - name: t
    properties:
      - name: a
        logicalType: integer
    quality:
      - metric: rowCount
        mustBeGreaterThan: 0
      - metric: rowCount
        mustBeLessThan: 10
      - metric: rowCount
        mustBeBetween: 3
"""


def test_missing_status_and_a_malformed_operator_are_both_reported_once() -> None:
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(MISSING_STATUS_AND_BAD_RANGE)
    message = str(caught.value)
    assert message.startswith("<text>: 2 problems:\n")
    assert "  - status: 'status' is a required property (DQX requires it): add e.g. 'status: active'" in message
    assert (
        "  - schema[0].quality[2].mustBeBetween (line 17): Quality rule 'schema[0].quality[2]': mustBeBetween must be "
        "a list of [lower, upper], got: 3 (write e.g. mustBeBetween: [0, 10])"
    ) in message
    assert message.count("mustBeBetween must be") == 1
    assert [(p.path, p.line) for p in caught.value.problems] == [
        ("status", None),
        ("schema[0].quality[2].mustBeBetween", 17),
    ]


def test_schema_rule_and_sla_problems_come_in_one_error() -> None:
    document = odcs_document(
        [
            {
                "name": "t",
                "properties": [
                    {"name": "a", "logicalType": "string", "logicalTypeOptions": {"pattern": "(?P<x>a)"}},
                    {"name": "a", "logicalType": "string"},
                    {"name": "ts", "logicalType": "timestamp"},
                ],
                "quality": [{"metric": "rowCount", "mustBeGreaterThan": 0, "unit": "parsecs"}],
            }
        ],
        slaProperties=[{"property": "latency", "value": 0, "unit": "h", "element": "t.ts"}],
        tags="not a list",
    )
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(document)
    paths = [p.path for p in caught.value.problems]
    assert paths == sorted(paths)
    assert set(paths) == {
        "tags",
        "schema[0].properties[0].logicalTypeOptions.pattern",
        "schema[0].properties[1].name",
        "schema[0].quality[0]",
        "slaProperties[0].value",
    }
    message = str(caught.value)
    assert "tags: 'tags' must be a list, got: string ('not a list')" in message
    assert "Python-only group syntax (?P…); Spark runs Java regular expressions: write (?<name>…)" in message
    assert "property name 'a' is already used by schema[0].properties[0]; rename one" in message
    assert "unit must be 'rows' or 'percent', got: 'parsecs'" in message
    assert "slaProperties[0].value: latency must be greater than 0, got: 0" in message


def test_strict_schema_lists_every_missing_and_mistyped_column(spark: SparkSession) -> None:
    (contract,) = Contract.from_odcs(
        odcs_document(
            [
                {
                    "name": "t",
                    "properties": [
                        {"name": "a", "logicalType": "integer"},
                        {"name": "b", "logicalType": "string"},
                        {"name": "c", "logicalType": "date"},
                    ],
                }
            ]
        )
    )
    frame = spark.createDataFrame([("x",)], "a string")
    with pytest.raises(SchemaValidationError) as caught:
        run_contract(contract, frame, strict_schema=True)
    message = str(caught.value)
    assert message.startswith("3 schema problems:\n")
    assert "  - Property 'a' type mismatch: " in message
    assert "  - Property 'b': column 'b' is not in the batch (it has: 'a')" in message
    assert "  - Property 'c': column 'c' is not in the batch (it has: 'a')" in message


def test_the_same_message_at_two_places_is_two_problems() -> None:
    rule = {"name": "r", "metric": "rowCount", "mustBeGreaterThan": 0, "unit": "parsecs"}
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(odcs_document([{"name": "t", "quality": [rule, rule]}]))
    assert [p.path for p in caught.value.problems] == ["schema[0].quality[0]", "schema[0].quality[1]"]


def _nested(*, inner: list[object], item: dict[str, object]) -> dict[str, object]:
    """A document three levels deep: an object, an array of objects, and their fields."""
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "c-1",
        "version": "1.0.0",
        "status": "active",
        "schema": [
            {
                "name": "t",
                "properties": [
                    {"name": "a", "logicalType": "integer"},
                    {"name": "o", "logicalType": "object", "properties": inner},
                    {"name": "l", "logicalType": "array", "items": item},
                ],
            }
        ],
    }


@pytest.mark.parametrize(
    ("document", "found"),
    [
        (
            _nested(
                inner=[{"name": "x", "logicalType": "string"}],
                item={"logicalType": "object", "properties": [{"name": "y"}]},
            ),
            0,
        ),
        # a field's own mistakes, at two depths
        (
            _nested(
                inner=[{"name": "x", "logicalType": "string", "logicalTypeOptions": {"maxItems": 3}}],
                item={"logicalType": "object", "properties": [{"name": "y", "map": {"key": {}}, "requierd": True}]},
            ),
            2,
        ),
        # entries that are no objects keep their places; a field without its name
        (
            _nested(
                inner=["x", {"logicalType": "string"}, 7], item={"logicalType": "array", "items": {"unique": "yes"}}
            ),
            4,
        ),
        # fields of one shape are valid alike whatever their names; a name that is no text is not that shape
        (
            _nested(
                inner=[
                    {"name": 5, "logicalType": "string", "physicalName": "Z"},
                    {"name": "x", "logicalType": "string", "physicalName": "X"},
                    {"name": "y", "logicalType": "string", "physicalName": "Y"},
                    {"name": "z", "logicalType": "string", "physicalName": ["Z"]},
                ],
                item={"name": "i", "logicalType": "string", "physicalName": "I"},
            ),
            3,
        ),
    ],
    ids=["valid", "mistakes inside", "entries no objects", "one shape"],
)
def test_problems_of_nested_properties_are_the_whole_documents(document: dict[str, object], found: int) -> None:
    # each property object is validated at its own level, its children apart: the verdict must stay the
    # official schema's for the document as one piece (shallow enough here to validate whole), less the
    # echo a child's mistake leaves at each parent (its whole list "unevaluated")
    whole = _without_echoes(problems(odcs_validator(), document))
    assert _without_echoes(odcs_problems(document)) == whole
    assert len(whole) == found, whole


def _without_echoes(found: list[Problem]) -> list[str]:
    return [p.text for p in found if not ((echo := _ECHO.fullmatch(p.message)) and _below(found, (*p.path, echo[1])))]


def _below(found: list[Problem], path: tuple[str | int, ...]) -> bool:
    return any(p.path[: len(path)] == path for p in found)


_ECHO = re.compile(r"Unevaluated properties are not allowed \('(properties|items)' was unexpected\)")


def test_only_text_the_schema_asks_nothing_of_is_left_out_of_a_shape() -> None:
    free = _free_text_keys()
    assert {"name", "description", "physicalName"} <= free
    # what a conditional reads (logicalType) or a branch declares (map, logicalTypeOptions) stays in
    assert not {"logicalType", "logicalTypeOptions", "map", "items", "properties", "required"} & free
