"""A rule naming a property the schema object does not declare is a load error naming both (issue 15 point 6);
a rule without a severity is P1 and lint says so (point 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dqx_gx import Contract, ContractValidationError
from dqx_gx.cli import main
from tests.documents import odcs_document

DECLARED = [
    {"name": "id", "logicalType": "integer"},
    {"name": "email", "physicalName": "mail", "logicalType": "string"},
]


def document(quality: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return odcs_document([{"name": "users", "properties": DECLARED, "quality": quality}], **top)


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        (
            {"metric": "duplicateValues", "mustBe": 0, "arguments": {"properties": ["id", "emial"]}},
            "arguments.properties",
        ),
        (
            {"type": "custom", "engine": "dqx", "implementation": {"check": "missing", "column": "emial"}, "mustBe": 0},
            "implementation.column",
        ),
        (
            {
                "type": "custom",
                "engine": "greatExpectations",
                "implementation": {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "emial"}},
            },
            "implementation.kwargs.column",
        ),
    ],
)
def test_a_rule_naming_an_undeclared_property_is_refused_at_load(rule: dict[str, Any], field: str) -> None:
    with pytest.raises(ContractValidationError) as caught:
        Contract.from_odcs(document([{"name": "r", **rule}]))
    assert str(caught.value) == (
        f"<mapping>: schema[0].quality[0].{field}: Quality rule 'r': {field} names property 'emial', which "
        "schema[0] 'users' does not declare (declared: email, id); declare it or correct the name"
    )


def test_a_rule_may_name_a_property_by_its_physical_name() -> None:
    rule = {"name": "r", "type": "custom", "engine": "dqx", "implementation": {"check": "missing", "column": "mail"}}
    (contract,) = Contract.from_odcs(document([{**rule, "mustBe": 0}]))
    assert next(r for r in contract.rules if r.name == "r").column == "mail"


def test_a_latency_element_naming_an_undeclared_property_is_refused() -> None:
    sla = [{"property": "latency", "value": 4, "unit": "h", "element": "users.updated_at"}]
    with pytest.raises(ContractValidationError, match=r"slaProperties\[0\]\.element: latency names property "):
        Contract.from_odcs(document([], slaProperties=sla))


# --- point 10: missing severity --------------------------------------------------------------------------


def test_a_rule_without_severity_is_p1_and_lint_notes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quality = [
        {"name": "rows", "metric": "rowCount", "mustBeGreaterThan": 0},
        {"name": "rows2", "metric": "rowCount", "mustBeGreaterThan": 1, "severity": "error"},
        {"name": "doc", "type": "text", "description": "documentation has no severity"},
    ]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document(quality)))
    (contract,) = Contract.from_odcs(path)
    assert next(r for r in contract.rules if r.name == "rows").severity == "P1"
    assert main(["lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "  note     schema[0].quality[0] (rule 'rows'): no severity, so DQX reads it as P1 (warning); other ODCS "
        "tools treat a rule without severity as an error — write 'severity: error' or 'severity: warning'"
    ) in out
    assert out.count("no severity") == 1
