"""``Contract.to_checks()``: the contract's rules as a dqlib check function. dqlib's own VerificationSuite running
them on DuckDB gives, for every rule dqlib can state, the severity, status and value ``run_contract`` gives on
Spark; the rules it cannot state are left out and named (seed 001's composable contract; docs/semantics.md, 'Hand-written DQX checks')."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from dqx.api import check
from pyspark.sql import SparkSession
from returns.result import Success

from dqx_gx import Contract, ContractWarning, run_checks, run_contract
from dqx_gx.kinds import KINDS, Kind, MetricKind
from dqx_gx.rules.rule import MetricRule
from tests.checks.reference import KEY, close, dqlib_results
from tests.checks.test_differential import MIXED
from tests.documents import odcs_document
from tests.kinds.test_words import loaded


def dqx(check: str, column: str | None = None, **implementation: Any) -> dict[str, Any]:
    found = {"check": check, **({"column": column} if column else {}), **implementation}
    return {"type": "custom", "engine": "dqx", "implementation": found}


def rule(name: str, body: dict[str, Any], **operator: Any) -> dict[str, Any]:
    return {"name": name, **body, **operator}


PROPERTIES = [
    {"name": "id", "logicalType": "integer", "unique": True},
    {
        "name": "amount",
        "logicalType": "number",
        "quality": [rule("null amounts", {"metric": "nullValues"}, mustBe=2)],
    },
    {"name": "qty", "logicalType": "integer", "logicalTypeOptions": {"minimum": 0}},
    {
        "name": "name",
        "logicalType": "string",
        "required": True,
        "quality": [
            rule("null names in percent", {"metric": "nullValues", "unit": "percent"}, mustBeLessThan=20),
            rule(
                "empty or missing names",
                {"metric": "missingValues", "arguments": {"missingValues": [None, ""]}},
                mustBeLessOrEqualTo=2,
                severity="info",
            ),
            rule(
                "valid names",
                {"metric": "invalidValues", "arguments": {"validValues": ["a", "zz", ""]}},
                mustBeBetween=[0, 3],
            ),
            rule("name pattern", {"metric": "invalidValues", "arguments": {"pattern": "^[a-z]*$"}}, mustBe=0),
        ],
    },
    {"name": "tags", "logicalType": "array", "items": {"logicalType": "string"}},
    {"name": "ok", "logicalType": "boolean"},
]
QUALITY = [
    rule("rows", {"metric": "rowCount"}, mustBeGreaterThan=5, severity="error"),
    rule(
        "repeated ids and names",
        {"metric": "duplicateValues", "arguments": {"properties": ["id", "name"]}},
        mustBe=0,
        severity="error",
    ),
    rule("least qty", dqx("min", "qty"), mustBeGreaterOrEqualTo=-10),
    rule("most qty", dqx("max", "qty"), mustNotBe=12),
    rule("mean amount", dqx("mean", "amount"), mustNotBeBetween=[0, 1]),
    rule("total qty", dqx("sum", "qty")),
    rule("amount spread", dqx("variance", "amount"), mustBeLessThan=1e12, severity="warning"),
    rule("amount deviation", dqx("stddev", "amount"), mustBeGreaterThan=1),
    rule("names given", dqx("count", "name"), mustBe=6),
    rule("distinct qty", dqx("cardinality", "qty"), mustBeGreaterOrEqualTo=4),
    rule("longest name", dqx("max_length", "name", column_type="string"), mustBeLessOrEqualTo=5),
    rule("fewest tags", dqx("min_length", "tags", column_type="list"), mustBe=0),
    rule("blacklisted qty", dqx("blacklist", "qty", values=[3]), mustBe=0),
    rule("share of null ids", dqx("missing", "id", **{"return": "pct"}), mustBeLessThan=0.2),
    rule("median amount", dqx("percentile", "amount", percentile=0.5)),
]


def orders() -> Contract:
    (contract,) = Contract.from_odcs(odcs_document([{"name": "orders", "properties": PROPERTIES, "quality": QUALITY}]))
    return contract


def test_to_checks_run_by_dqlib_equals_run_contract(spark: SparkSession) -> None:
    contract = orders()
    with pytest.warns(ContractWarning, match="to_checks\\(\\) leaves it out") as caught:
        checks = contract.to_checks()
    ours = {r.assertion: r for r in run_contract(contract, MIXED.frame(spark), key=KEY).results}
    theirs = dqlib_results(checks, MIXED.table(), "orders")
    assert {r.check for r in theirs} == {"Contract: c"} == {ours[r.assertion].check for r in theirs}
    left_out = {rule.name: why for rule, why in checks.left_out}
    assert {r.assertion for r in theirs} | set(left_out) == set(ours)
    for reference in theirs:
        mine = ours[reference.assertion]
        assert (mine.severity, mine.status) == (reference.severity, reference.status), reference.assertion
        assert isinstance(reference.metric, Success) and isinstance(mine.metric, Success), reference.assertion
        assert close(mine.metric.unwrap(), reference.metric.unwrap()), reference
    assert {"FAILED", "PASSED"} <= {r.status for r in theirs}
    assert {"P0", "P1", "P2"} <= {r.severity for r in theirs}
    assert left_out["name pattern"] == "dqlib's MetricProvider has no metric for pattern_invalid_count"
    assert left_out["median amount"] == "dqlib's MetricProvider has no metric for percentile"
    assert left_out["id has type integer"] == "a column type is not a metric of dqlib's MetricProvider"
    assert {str(w.message) for w in caught} >= {
        f"Rule 'median amount' ({rule.id}): to_checks() leaves it out: dqlib's MetricProvider has no metric for "
        "percentile"
        for rule in contract.rules
        if rule.name == "median amount"
    }
    stated = {rule.name for rule in contract.rules if isinstance(rule, MetricRule)} - set(left_out)
    assert {"id is unique", "name has no nulls (required)", "qty minimum 0"} <= stated  # schema rules dqlib states


def test_to_checks_run_by_dqx_gx_equals_the_contract_run(spark: SparkSession) -> None:
    """The same functions given back to dqx-gx (run_checks) value each rule as the contract's run does."""
    contract = orders()
    with pytest.warns(ContractWarning):
        checks = contract.to_checks()
    frame = MIXED.frame(spark)
    as_checks = {r.assertion: r for r in run_checks(checks, frame, key=KEY).results}
    as_rules = {r.assertion: r for r in run_contract(contract, frame, key=KEY).results}
    assert as_checks
    for name, result in as_checks.items():
        assert (result.check, result.severity, result.status) == (
            as_rules[name].check,
            as_rules[name].severity,
            as_rules[name].status,
        ), name
        assert close(result.metric.unwrap(), as_rules[name].metric.unwrap()), name


def test_a_contract_with_nothing_dqlib_states_gives_no_check() -> None:
    (contract,) = Contract.from_odcs(
        odcs_document([{"name": "t", "properties": [{"name": "a", "logicalType": "string"}]}])
    )
    with pytest.warns(ContractWarning, match="a column type is not a metric"):
        checks = contract.to_checks()
    assert list(checks) == [] and len(checks.left_out) == 1


def test_hand_written_assertions_are_not_given_back_as_contract_checks() -> None:
    @check(name="extra", datasets=["t"])
    def extra(mp: Any, ctx: Any) -> None:
        ctx.assert_that(mp.num_rows()).config(name="rows").is_positive()

    (contract,) = Contract.from_odcs(
        odcs_document([{"name": "t", "quality": [rule("r", {"metric": "rowCount"}, mustBeGreaterThan=0)]}])
    )
    with pytest.warns(ContractWarning, match="give its check function itself"):
        checks = contract.with_checks([extra]).to_checks()
    assert [r.name for r, _ in checks.left_out] == ["rows"]
    assert len(checks) == 1


@pytest.mark.parametrize("kind", list(KINDS.values()), ids=lambda kind: kind.name)
def test_to_checks_states_what_the_kind_declares_in_dqlib_and_names_the_rest(kind: Kind) -> None:
    """A kind's rule is stated exactly when its declaration says it in dqlib's metrics; a kind dqlib has no
    metric for (length_between's and is_not_in_future's among them) is left out, never approximated."""
    contract = loaded(kind.words.examples[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        checks = contract.to_checks()
    left_out = {rule.metric.kind: why for rule, why in checks.left_out if isinstance(rule, MetricRule)}
    if kind.dqlib is None:
        assert left_out[kind.metric] == f"dqlib's MetricProvider has no metric for {kind.name}"
    elif kind.metric is MetricKind.VIOLATION_COUNT:  # its example is a maxLength; dqlib counts values below 0 only
        assert left_out[kind.metric] == "dqlib's MetricProvider has no metric for violation_count"
    else:
        assert kind.metric not in left_out and len(checks) == 1


def test_the_new_row_checks_are_left_out_by_name() -> None:
    (contract,) = Contract.from_odcs(
        odcs_document(
            [
                {
                    "name": "t",
                    "properties": [
                        {"name": "s", "logicalType": "string"},
                        {"name": "at", "logicalType": "timestamp"},
                    ],
                    "quality": [
                        rule("short", dqx("length_between", "s", min_length=1, max_length=3), mustBe=0),
                        rule("not ahead", dqx("is_not_in_future", "at", offset=60), mustBe=0),
                        rule("rows", {"metric": "rowCount"}, mustBeGreaterThan=0),
                    ],
                }
            ]
        )
    )
    with pytest.warns(ContractWarning, match="to_checks\\(\\) leaves it out"):
        checks = contract.to_checks()
    left_out = {rule.name: why for rule, why in checks.left_out}
    assert left_out["short"] == "dqlib's MetricProvider has no metric for length_outside_count"
    assert left_out["not ahead"] == "dqlib's MetricProvider has no metric for future_count"
    assert "rows" not in left_out and len(checks) == 1
