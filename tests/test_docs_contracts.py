"""What the docs show is what dqx-gx does: the contract to start from runs on the example data as docs/contracts.md
says, and the README's example output is the output of that run."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractRun, load_contracts, run_contract
from dqx_gx.report import summary, to_table
from tests.conftest import EXAMPLES
from tests.docs import DOCS, README, code_blocks, section
from tests.expectations.test_orders_contract import NOW

STARTER = section((DOCS / "contracts.md").read_text(), "A contract to start from")
ORDERS = EXAMPLES / "orders" / "data"


def starters() -> list[Contract]:
    odcs, native = code_blocks(STARTER, "yaml")
    return [*load_contracts(odcs), *load_contracts(native)]


@pytest.fixture(scope="module")
def runs(spark: SparkSession) -> dict[tuple[str, str], ContractRun]:
    """Each starter contract (ODCS, native) on each example batch (good, bad)."""
    return {
        (contract.format, data): run_contract(contract, spark.read.parquet(str(ORDERS / f"{data}.parquet")))
        for contract in starters()
        for data in ("good", "bad")
    }


def failed(run: ContractRun) -> dict[str, tuple[str, object]]:
    return {
        r.assertion.assertion: (r.assertion.severity, r.observed)
        for r in run.rule_results
        if r.assertion.status == "FAILED"
    }


def test_the_starter_contracts_pass_the_good_batch(runs: dict[tuple[str, str], ContractRun]) -> None:
    for form in ("odcs", "native"):
        run = runs[form, "good"]
        assert run.outcome == "passed"
        assert [r.status for r in run.results] == ["PASSED"] * 8


def test_the_starter_contracts_reject_the_bad_batch_for_the_rows_the_docs_name(
    runs: dict[tuple[str, str], ContractRun],
) -> None:
    assert runs["odcs", "bad"].outcome == runs["native", "bad"].outcome == "rejected"
    assert failed(runs["odcs", "bad"]) == {
        "primary key (order_id) is unique": ("P0", 1),
        "status_known": ("P0", 1),
        "amount_present": ("P1", 1),
    }
    assert failed(runs["native", "bad"]) == {
        "order_id_unique": ("P0", 1),
        "status_known": ("P0", 1),
        "amount_present": ("P1", 1),
    }


def test_the_output_the_contracts_page_shows_is_the_runs(runs: dict[tuple[str, str], ContractRun]) -> None:
    run = runs["odcs", "bad"]
    (shown,) = code_blocks(STARTER, "text")
    lines = [line for line in shown.splitlines()[1:] if line != "…"]  # after the command
    assert lines[-1] == summary(run)
    assert [line for line in lines if line not in to_table(run).splitlines()] == []


def test_the_output_the_readme_shows_is_the_runs(spark: SparkSession, orders: Contract) -> None:
    run = run_contract(orders, spark.read.parquet(str(ORDERS / "bad.parquet")), now=NOW)
    (shown,) = code_blocks(section(README.read_text(), "Try it"), "text")
    lines = [line for line in shown.splitlines() if line != "…"]
    assert lines[-1] == summary(run)
    assert [line for line in lines if line not in to_table(run).splitlines()] == []
    assert sum(line.startswith("FAILED") for line in lines) == 5
