"""The thesis's format and rules: what each (rule, column, level) becomes, read without Spark or GX."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from dqx_gx.contract import load_contracts
from dqx_gx.contract.thesis import implied_properties, thesis_checks
from dqx_gx.coverage import coverage
from dqx_gx.errors import ContractValidationError, ContractWarning
from dqx_gx.kinds import MetricKind
from dqx_gx.rules.metric import Scale
from dqx_gx.rules.rule import ExpectationRule, MetricRule, SkippedRule, TypeRule
from dqx_gx.rules.threshold import Operator
from dqx_gx.sources.locate import locate, matching_files
from dqx_gx.sources.servers import Files
from tests.conftest import EXAMPLES

WEATHER = EXAMPLES / "weather" / "weather.contract.yaml"


def test_the_weather_contract_loads_as_the_thesis_format() -> None:
    (contract,) = load_contracts(WEATHER)
    assert (contract.format, contract.name, contract.dataset) == (
        "thesis",
        "Brazil SE Weather Contract",
        "weather_record",
    )
    assert contract.contract_id == "brazil-se-weather-contract-inmet-weather-domain-1.0.0"
    assert contract.tags == ("weather", "america")
    assert {p.name: p.logical_type for p in contract.properties}["index"] == "integer"
    index = contract.property("index")
    assert index is not None
    assert (index.primary_key, index.required) == (True, True)
    assert set(contract.metadata) == {"consumer", "producer", "tags", "pricing", "serviceLevelAgreements", "specific"}
    checks = [r for r in contract.rules if r.origin.value != "schema"]
    # the appendix's ten rules on 46 (rule, column) pairs (the chapter's nine on 45, and unique), 16 at two levels
    assert len(checks) == 46 + 16
    assert len({(r.name.split(" (")[0], r.column) for r in checks}) == 46
    assert len([r for r in contract.rules if isinstance(r, TypeRule)]) == 27
    names = {r.name: r for r in checks}
    warn = names["not_null_measurements_rule (gust_max_m_s, warn)"]
    fail = names["not_null_measurements_rule (gust_max_m_s, fail)"]
    assert isinstance(warn, MetricRule)
    assert isinstance(fail, MetricRule)
    assert (warn.severity, fail.severity) == ("P1", "P0")
    assert warn.metric.kind is MetricKind.NULL_COUNT
    assert warn.metric.scale is Scale.FRACTION
    assert warn.threshold is not None
    assert fail.threshold is not None
    assert warn.threshold.operator is Operator.LESS_OR_EQUAL
    assert warn.threshold.value == pytest.approx(0.10)  # complete ≥ 0.95 − 0.05: NULLs ≤ 10 %
    assert fail.threshold.value == pytest.approx(0.15)
    assert warn.sources == ("/quality/2",)
    server = contract.servers[0]
    assert (server.type, server.entry["path"], server.entry["pattern"]) == (
        "local",
        "data/raw",
        r"(.*)southeast_\d{4}.csv",
    )


def _check(rule_type: str, parameter: Any = None, severity: Any = None, **more: Any) -> list[Any]:
    entry = {"id": "r", "ruleType": rule_type, "columns": ["c"], "parameter": parameter, "severity": severity, **more}
    if rule_type == "size":
        entry.pop("columns")
    return thesis_checks(entry, "validations[0]", "ruleType")


@pytest.mark.parametrize(
    ("rule_type", "parameter", "tolerance", "kind", "operator", "value"),
    [
        ("size", 1000, None, MetricKind.NUM_ROWS, Operator.MUST_BE, 1000),
        ("size", 1000, 0.1, MetricKind.NUM_ROWS, Operator.BETWEEN, (900, 1100)),
        ("complete", 0.95, None, MetricKind.NULL_COUNT, Operator.LESS_OR_EQUAL, 0.05),
        ("complete", 0.95, 0.1, MetricKind.NULL_COUNT, Operator.LESS_OR_EQUAL, 0.15),
        ("min", 0, None, MetricKind.MIN, Operator.GREATER_OR_EQUAL, 0),
        ("min", -10, 0.1, MetricKind.MIN, Operator.GREATER_OR_EQUAL, -11),  # relaxed, not p·(1−t) = −9
        ("max", -10, 0.1, MetricKind.MAX, Operator.LESS_OR_EQUAL, -9),
        ("max", 100, 0.05, MetricKind.MAX, Operator.LESS_OR_EQUAL, 105),
        ("mean", 20, None, MetricKind.MEAN, Operator.MUST_BE, 20),
        ("mean", -20, 0.1, MetricKind.MEAN, Operator.BETWEEN, (-22, -18)),
        ("stdev", 4, 0.5, MetricKind.STDDEV, Operator.BETWEEN, (2, 6)),
    ],
)
def test_each_rule_type_becomes_the_metric_and_bounds_of_the_rule_table(
    rule_type: str, parameter: float, tolerance: float | None, kind: MetricKind, operator: Operator, value: Any
) -> None:
    severity = None if tolerance is None else {"warn": {"tolerance": tolerance}}
    (check,) = _check(rule_type, parameter, severity)
    rule = check.rule
    assert isinstance(rule, MetricRule)
    assert rule.metric.kind is kind
    assert rule.threshold is not None
    assert rule.threshold.operator is operator
    assert rule.threshold.value == pytest.approx(value)
    assert (check.level, rule.severity) == (("warn", "P1") if tolerance is not None else ("fail", "P0"))


def test_mean_without_tolerance_is_equal_within_a_relative_epsilon() -> None:
    (check,) = _check("mean", 5e6)
    assert check.rule.threshold.tolerance == pytest.approx(5e-3)
    assert check.rule.threshold.passes(5e6 + 4e-3)
    assert not check.rule.threshold.passes(5e6 + 6e-3)


def test_unique_and_allowed_values_are_gx_expectations_and_their_columns_numbers_when_the_values_are() -> None:
    (unique,) = _check("unique", severity={"fail": {"tolerance": 0.02}})
    assert isinstance(unique.rule, ExpectationRule)
    assert unique.rule.expectation_type == "expect_column_proportion_of_unique_values_to_be_between"
    assert dict(unique.rule.kwargs) == {"column": "c", "min_value": pytest.approx(0.98)}
    (allowed,) = _check("allowedValues", [1, 2, 2, 3])
    assert dict(allowed.rule.kwargs) == {"column": "c", "value_set": [1, 2, 3]}
    assert [(p.column, p.logical_type) for p in implied_properties([allowed, *_check("min", 0)])] == [("c", "number")]
    assert [p.logical_type for p in implied_properties([allowed])] == ["integer"]
    assert implied_properties(_check("allowedValues", ["SP"])) == ()


def test_every_column_and_level_is_one_check_named_after_the_rule() -> None:
    checks = thesis_checks(
        {
            "id": "most",
            "ruleType": "complete",
            "columns": ["a", "b"],
            "parameter": 0.9,
            "severity": {"warn": {"tolerance": 0.0}, "fail": {"tolerance": 0.1}},
        },
        "validations[3]",
        "ruleType",
    )
    assert [(c.column, c.level, c.rule.id, c.rule.name) for c in checks] == [
        ("a", "fail", "validations[3].columns[0].fail", "most (a, fail)"),
        ("a", "warn", "validations[3].columns[0].warn", "most (a, warn)"),
        ("b", "fail", "validations[3].columns[1].fail", "most (b, fail)"),
        ("b", "warn", "validations[3].columns[1].warn", "most (b, warn)"),
    ]


def test_a_custom_rule_of_another_technology_is_skipped_naming_it() -> None:
    (check,) = _check("custom", technology="soda", call="missing_count")
    assert isinstance(check.rule, SkippedRule)
    assert "technology 'soda' is not run here" in check.rule.reason
    (gx,) = _check("custom", technology="Great Expectations", call="expect_column_values_to_not_be_null", args={})
    assert isinstance(gx.rule, ExpectationRule)
    assert dict(gx.rule.kwargs) == {"column": "c"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"ruleType": "median"}, "validations[0].ruleType: unknown rule type 'median'"),
        ({"parameter": None}, "validations[0].parameter: min needs a parameter"),
        ({"parameter": "0"}, "validations[0].parameter: min needs a number, got '0'"),
        ({"parameter": True}, "validations[0].parameter: min needs a number"),
        ({"ruleType": "size", "columns": None, "parameter": 2.5}, "size needs a whole number of rows"),
        ({"ruleType": "size", "parameter": 5}, "validations[0].columns: size counts the rows of the table"),
        ({"ruleType": "unique", "parameter": 1}, "validations[0].parameter: unique takes no parameter"),
        ({"columns": ["c", "c"]}, "validations[0].columns: 'c' is listed twice"),
        ({"severity": {"error": {"tolerance": 1}}}, "validations[0].severity.error: unknown level"),
        ({"severity": {"warn": {"tolerance": -0.1}}}, "validations[0].severity.warn.tolerance: must be 0 or more"),
        ({"ruleType": "custom", "technology": None, "parameter": None}, "validations[0].technology"),
        ({"id": ""}, "validations[0].id: is required"),
    ],
)
def test_a_rule_that_cannot_become_checks_is_refused_naming_the_field(entry: dict[str, Any], message: str) -> None:
    rule = {"id": "r", "ruleType": "min", "columns": ["c"], "parameter": 0, **entry}
    with pytest.raises(ContractValidationError, match=message.replace("(", r"\(").replace("[", r"\[")):
        thesis_checks(rule, "validations[0]", "ruleType")


def _document(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(yaml.safe_load(WEATHER.read_text()))
    data.update(changes)
    return data


def test_a_contract_in_the_thesis_format_lists_every_problem_with_its_path() -> None:
    data = _document(specVersion="2.0")
    data["dataset"]["schema"][3]["dataType"] = "float128"
    data["quality"][1]["columns"].append("snow_cm")
    with pytest.raises(ContractValidationError) as refused:
        load_contracts(data)
    text = str(refused.value)
    assert "specVersion: dqx-gx reads the thesis's format 0.1.x, got '2.0'" in text
    assert "dataset.schema[3].dataType: column 'pcpn_mm': dataType 'float128' is not one dqx-gx checks" in text
    assert "quality[1].columns[10]: column 'snow_cm' is not declared in dataset.schema" in text


def test_a_foreign_key_constraint_is_skipped_with_a_warning() -> None:
    data = _document()
    data["dataset"]["schema"][22]["constraint"] = "FOREIGN_KEY"
    with pytest.warns(ContractWarning, match="FOREIGN_KEY names no referenced dataset"):
        (contract,) = load_contracts(data)
    assert [r.name for r in contract.skipped_rules] == ["station is a foreign key"]


def test_the_access_pattern_picks_the_files_under_the_location(tmp_path: Path) -> None:
    for name in ("southeast_2018.csv", "sub/southeast_2019.csv", "northeast_2019.csv", "southeast_19.csv"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("index\n1\n")
    data = _document()
    data["access"]["location"] = str(tmp_path)
    (contract,) = load_contracts(data)
    located = locate(contract)
    assert isinstance(located.location, Files)
    assert [Path(p).relative_to(tmp_path).as_posix() for p in matching_files(located.location)] == [
        "southeast_2018.csv",
        "sub/southeast_2019.csv",
    ]
    data["access"]["accessConfiguration"]["pattern"] = "nothing.*"
    (nothing,) = load_contracts(data)
    with pytest.raises(Exception, match=r"no file under it matches the pattern 'nothing\.\*'"):
        locate(nothing)


def test_coverage_walks_the_thesis_format() -> None:
    found = {element.path: element for element in coverage(WEATHER).elements}
    assert all(found[f"/quality/{i}"].status.value == "enforced" for i in range(10))
    assert found["/quality/0"].expectations[0].type == "expect_column_proportion_of_unique_values_to_be_between"
    assert found["/dataset/schema/0/constraint"].status.value == "enforced"
    assert (found["/pricing"].status.value, found["/pricing"].reason) == (
        "documented",
        "recorded in the contract's metadata, not checked",
    )
    assert found["/access"].status.value == "applied"
