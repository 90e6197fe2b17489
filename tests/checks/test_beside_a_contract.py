"""A contract and hand-written checks in one run: one result list, one verdict, in the same Spark passes; the
same for the row gate and for each micro-batch of a stream (docs/semantics.md, 'Hand-written DQX checks')."""

from __future__ import annotations

import math
from typing import Any

import pytest
from dqx.api import check
from pyspark.sql import SparkSession

from dqx_gx import Contract, gate_each_batch, run_contract
from dqx_gx.rows.gate import gated, split_annotated
from dqx_gx.stream import BatchVerdict
from tests.checks.reference import KEY
from tests.checks.test_differential import MIXED
from tests.documents import odcs_document
from tests.spark_plans import executed_plans

pytestmark = pytest.mark.compat  # hand-written checks on every lane of the version matrix

CONTRACT = odcs_document(
    [
        {
            "name": "orders",
            "properties": [
                {"name": "id", "logicalType": "integer"},
                {"name": "amount", "logicalType": "number", "quality": [{"metric": "nullValues", "mustBeLessThan": 5}]},
                {"name": "name", "logicalType": "string"},
                {"name": "qty", "logicalType": "integer", "classification": "pii"},
            ],
            "quality": [{"name": "some rows", "metric": "rowCount", "mustBeGreaterThan": 0}],
        }
    ]
)


def orders() -> Contract:
    (contract,) = Contract.from_odcs(CONTRACT)
    return contract


@check(name="Volume", datasets=["orders"])
def volume(mp: Any, ctx: Any) -> None:
    ctx.assert_that(mp.num_rows()).config(name="a thousand orders", severity="P0").is_geq(1000)
    ctx.assert_that(mp.null_count("amount") / mp.num_rows()).config(name="amounts given", severity="P2").is_lt(0.5)


@check(name="Warnings only", datasets=["orders"])
def gentle(mp: Any, ctx: Any) -> None:
    ctx.assert_that(mp.average("qty")).config(name="qty on average", severity="P1").is_gt(100)


@check(name="Names", datasets=["orders"])
def names(mp: Any, ctx: Any) -> None:
    ctx.assert_that(mp.maximum("qty") + mp.count_values("name", "a")).config(name="qty and names").is_positive()
    ctx.assert_that(mp.min_length("name", "string")).config(name="shortest name").is_geq(0)


def test_a_failing_p0_assertion_rejects_the_batch_in_one_run(spark: SparkSession) -> None:
    run = run_contract(orders(), MIXED.frame(spark), key=KEY, checks=[volume, gentle])
    assert [(r.check, r.assertion, r.status) for r in run.results][-3:] == [
        ("Volume", "a thousand orders", "FAILED"),
        ("Volume", "amounts given", "PASSED"),
        ("Warnings only", "qty on average", "FAILED"),
    ]
    assert {r.check for r in run.results[:-3]} == {"Contract: c"}
    assert run.is_critical() and run.outcome == "rejected"
    assert "checks/Volume/a thousand orders" in run.failed_rules
    suite = next(iter(run.checkpoint_result.run_results.values()))
    assert sum(e.expectation_config.type == "expect_dqx_check_assertion" for e in suite.results) == 3
    assert suite.meta["dqx"]["outcome"] == "rejected"  # type: ignore[index]

    gentler = run_contract(orders(), MIXED.frame(spark), key=KEY, checks=[gentle])
    assert gentler.outcome == "passed_with_warnings" and not gentler.is_critical()


def test_the_row_gate_and_each_micro_batch_take_the_same_verdict(spark: SparkSession) -> None:
    frame = MIXED.frame(spark)
    contract = orders()
    with gated(contract.with_checks([volume]), frame, {}) as gate:
        run = run_contract(contract, gate.batch, key=KEY, checks=[volume])
        valid, quarantine = split_annotated(gate.annotated(run))
        assert run.outcome == "rejected"
        assert (valid.count(), quarantine.count()) == (len(MIXED.rows), 0)  # a batch number marks no row

    verdicts: list[BatchVerdict] = []
    written: dict[str, int] = {}

    def keep(name: str) -> Any:
        return lambda rows, batch_id: written.__setitem__(name, rows.count())

    gate_each_batch(contract, checks=[volume], on_verdict=verdicts.append, valid=keep("valid"))(frame, 7)
    (verdict,) = verdicts
    assert verdict.outcome == "rejected" and verdict.batch_id == 7
    assert verdict.run.results[-2].assertion == "a thousand orders" and verdict.run.results[-2].tags["batch_id"] == "7"
    assert written == {"valid": len(MIXED.rows)}


def test_hand_written_metrics_share_the_contracts_spark_passes(spark: SparkSession) -> None:
    """The checks' num_rows, null_count, average, maximum, count_values and min_length are the kinds'
    aggregates in the same df.agg: adding them adds no Spark query."""
    frame = MIXED.frame(spark)
    run_contract(orders(), frame, key=KEY, checks=[volume, gentle, names])  # the expressions built once
    with executed_plans(spark, "the contract alone") as alone:
        run_contract(orders(), frame, key=KEY)
    with executed_plans(spark, "the contract and three checks") as both:
        run = run_contract(orders(), frame, key=KEY, checks=[volume, gentle, names])
    assert len(both) == len(alone) > 0
    shared = ("partial_count(1)", "partial_try_avg(qty", "length(name", "partial_max(qty", "isnull(amount")
    assert any(all(aggregate in plan for aggregate in shared) for plan in both)
    assert all(r.status in ("PASSED", "FAILED") for r in run.results)


def test_a_value_of_a_sensitive_column_is_judged_never_shown(spark: SparkSession) -> None:
    """max(qty) of a pii column: the verdict is taken on it, the value shown as *** (docs/semantics.md, 'Samples and sensitive columns'); a length is not."""
    run = run_contract(orders(), MIXED.frame(spark), key=KEY, checks=[names])
    sensitive, length = run.rule_results[-2:]
    assert (sensitive.observed, sensitive.assertion.status) == ("***", "PASSED")
    assert math.isnan(sensitive.assertion.metric.unwrap())
    evr = next(
        e
        for s in run.checkpoint_result.run_results.values()
        for e in s.results
        if e.result.get("observed_value") == "***"
    )
    assert evr.result["details"] == {"redacted": True}  # nor the metrics' values, nor stored
    assert (length.observed, length.assertion.status) == (0.0, "PASSED")
