"""`type: sql` rules: off by default; opted in, only a single read-only SELECT over the batch runs."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractValidationError, ContractWarning, run_contract
from dqx_gx.cli import main
from dqx_gx.rules.opt_in import SQL_OFF
from tests.conftest import EXAMPLES
from tests.documents import one_table
from tests.expectations.test_orders_contract import NOW

ORDERS = EXAMPLES / "orders" / "orders.odcs.yaml"


def orders_with(query: str, **extra: Any) -> Contract:
    """The §6.7 contract with its sql rule's query replaced."""
    text = ORDERS.read_text().replace(
        'query: "SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 99999"', f"query: {query!r}"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = Contract.from_odcs(text)
    return contract


@pytest.fixture(scope="module")
def good(spark: SparkSession) -> DataFrame:
    return spark.read.parquet(str(EXAMPLES / "orders" / "data" / "good.parquet"))


def sql_result(run: Any) -> Any:
    return next(r for r in run.rule_results if r.rule.name == "fraud_sql_check")


def test_sql_rules_are_off_by_default(good: DataFrame) -> None:
    with pytest.warns(ContractWarning, match=r"Quality rule 'fraud_sql_check': type 'sql' rules run only when allowed"):
        run = run_contract(orders_with("SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 99999"), good, now=NOW)
    result = sql_result(run)
    assert (result.assertion.status, result.reason) == ("SKIPPED", SQL_OFF)


@pytest.mark.parametrize(
    ("query", "observed", "status"),
    [
        ("SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 99999", 0.0, "PASSED"),
        ("SELECT COUNT(*) FROM orders_tbl WHERE total_amount > 100", 40.0, "FAILED"),
        ("SELECT COUNT(*) FROM ${object} WHERE total_amount > 100", 40.0, "FAILED"),
        (
            "SELECT COUNT(*) FROM orders WHERE orders.total_amount > 100",
            40.0,
            "FAILED",
        ),  # the schema name, qualified column
        ("WITH big AS (SELECT * FROM orders_tbl WHERE total_amount > 100) SELECT COUNT(*) FROM big", 40.0, "FAILED"),
        ("SELECT COUNT(*) > 0 FROM orders_tbl WHERE status RLIKE '^[a-z]{3,}$'", 1.0, "FAILED"),
        ("SELECT MIN(total_amount) - 21 FROM orders_tbl", 0.0, "PASSED"),
    ],
)
def test_opted_in_sql_rule_runs(good: DataFrame, query: str, observed: float, status: str) -> None:
    result = sql_result(run_contract(orders_with(query), good, now=NOW, allow_sql=True))
    assert (result.observed, result.assertion.status) == (observed, status)
    assert result.expectation_type == "expect_dqx_sql_value"


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("DROP TABLE orders_tbl", "it is a DROP statement"),
        ("INSERT INTO orders_tbl SELECT * FROM orders_tbl", "it is a INSERT statement"),
        ("DELETE FROM orders_tbl", "it is a DELETE statement"),
        ("CREATE TABLE x AS SELECT * FROM orders_tbl", "it is a CREATE statement"),
        ("CACHE TABLE orders_tbl", "it is a CACHE statement"),
        ("SET spark.sql.ansi.enabled=false", "it is a SET statement"),
        ("SELECT 1; DROP TABLE orders_tbl", "it holds 2 statements"),
        ("SELECT COUNT(*) FROM customers", "it reads table 'customers'"),
        ("SELECT COUNT(*) FROM orders_tbl JOIN customers ON 1 = 1", "it reads table 'customers'"),
        ("SELECT COUNT(*) FROM db.orders_tbl", "it reads db.orders_tbl"),
        ("SELECT COUNT(*) FROM parquet.`/etc/passwd`", "it reads parquet."),
        ("SELECT COUNT(*) FROM read_files('/etc/passwd')", "it reads from READ_FILES"),
        ("SELECT reflect('java.lang.System', 'exit', 0)", "it calls reflect(), which runs arbitrary JVM code"),
        ("SELECT COUNT(*) FROM orders_tbl WHERE", "it cannot be parsed as Spark SQL"),
    ],
)
def test_unsafe_queries_are_refused(good: DataFrame, query: str, why: str) -> None:
    with pytest.raises(ContractValidationError) as caught:
        run_contract(orders_with(query), good, now=NOW, allow_sql=True)
    message = str(caught.value)
    assert message.startswith("Quality rule 'fraud_sql_check': the SQL query is refused: ")
    assert why in message


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("SELECT COUNT(*) FROM orders_tbl WHERE no_such_column > 0", "the query failed: [UNRESOLVED_COLUMN"),
        ("SELECT order_id FROM orders_tbl", "the query returned more than one row; it must return exactly one value"),
        ("SELECT 1, 2 FROM orders_tbl LIMIT 1", "the query returned 2 columns; it must return exactly one value"),
        ("SELECT MAX(status) FROM orders_tbl", "the query returned 'shipped', not a number"),
        ("SELECT MAX(total_amount) FROM orders_tbl WHERE total_amount < 0", "the query returned NULL"),
    ],
)
def test_a_query_that_cannot_give_a_number_fails_its_rule_only(good: DataFrame, query: str, reason: str) -> None:
    run = run_contract(orders_with(query), good, now=NOW, allow_sql=True)
    result = sql_result(run)
    assert result.assertion.status == "FAILED"
    assert result.reason is not None and result.reason.startswith(reason)
    assert sum(r.assertion.status == "PASSED" for r in run.rule_results) == 20


def test_no_temporary_view_is_left_behind(spark: SparkSession, good: DataFrame) -> None:
    before = {t.name for t in spark.catalog.listTables()}
    run_contract(orders_with("SELECT COUNT(*) FROM orders_tbl"), good, now=NOW, allow_sql=True)
    assert {t.name for t in spark.catalog.listTables()} == before


def test_property_placeholder(good: DataFrame) -> None:
    rule = {
        "name": "big",
        "type": "sql",
        "query": "SELECT COUNT(*) FROM ${object} WHERE ${property} > 100",
        "mustBeLessThan": 1,
    }
    contract = one_table([{"name": "total_amount", "quality": [rule]}])
    result = next(r for r in run_contract(contract, good, allow_sql=True).rule_results if r.rule.name == "big")
    assert (result.observed, result.assertion.status) == (40.0, "FAILED")


def test_datacontract_clis_model_placeholder_is_the_batch(good: DataFrame) -> None:
    run = run_contract(orders_with("SELECT COUNT(*) FROM ${model} WHERE total_amount > 100"), good, allow_sql=True)
    assert (sql_result(run).observed, sql_result(run).assertion.status) == (40.0, "FAILED")


def test_a_placeholder_dqx_gx_cannot_fill_is_skipped_with_the_reason(good: DataFrame) -> None:
    """Run as text, ``'${region}'`` would be compared as a literal and the rule would pass saying nothing."""
    contract = orders_with("SELECT COUNT(*) FROM ${object} WHERE status = '${region}'")
    with pytest.warns(ContractWarning, match=r"placeholder \$\{region\}"):
        run = run_contract(contract, good, allow_sql=True)
    result = sql_result(run)
    assert result.assertion.status == "SKIPPED"
    assert result.reason == (
        "its query holds the placeholder ${region}, which dqx-gx cannot fill (it fills ${object}, ${table}, "
        "${model} with the batch and, on a property, ${property}, ${column} with its column)"
    )


def test_cli_allow_sql(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(EXAMPLES / "orders" / "data" / "good.parquet")
    code = main(["validate", str(ORDERS), "--data", data, "--now", "2026-11-22T12:00:00Z", "--allow-sql"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[-1] == "Contract: orders_contract on orders_tbl: 21 passed, 0 failed, 0 skipped → passed"
