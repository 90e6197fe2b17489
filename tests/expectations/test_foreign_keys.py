"""Foreign keys (ODCS ``relationships``, issue 15 point 8): checked against the referenced dataset the run is
given, counted as SQL's ``NOT EXISTS`` counts them, with the rows marked and sampled."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractWarning, run_contract, split_rows
from dqx_gx.expectations import measured_at
from dqx_gx.rows import WARNINGS
from dqx_gx.run.results import RuleResult
from tests.conftest import shown
from tests.documents import odcs_document

NOW = "2026-11-22T00:00:00Z"
ORDERS: list[dict[str, Any]] = [
    {"name": "order_id", "logicalType": "integer"},
    {"name": "customer_id", "logicalType": "integer", "relationships": [{"to": "customers.id"}]},
    {"name": "region", "physicalName": "region_code", "logicalType": "string"},
]
CUSTOMERS: list[dict[str, Any]] = [
    {"name": "id", "physicalName": "customer_key", "logicalType": "integer"},
    {"name": "home", "physicalName": "home_region", "logicalType": "string"},
]
RULE = "schema[0].properties[1].relationships[0]"
COMPOSITE = {"from": ["orders.customer_id", "orders.region"], "to": ["customers.id", "customers.home"]}


def load(orders: list[dict[str, Any]] = ORDERS, **extra: Any) -> Contract:
    schema = [
        {"name": "orders", "properties": orders, **extra},
        {"name": "customers", "physicalName": "dim_customers", "properties": CUSTOMERS},
    ]
    contracts = Contract.from_odcs(odcs_document(schema))
    return contracts[0]


def orders(spark: SparkSession) -> DataFrame:
    rows = [(1, 10, "eu"), (2, 11, "us"), (3, None, "eu"), (4, 99, "eu"), (5, 10, "us"), (6, 99, None), (7, 12, "eu")]
    return spark.createDataFrame(rows, "order_id int, customer_id int, region_code string")


def customers(spark: SparkSession) -> DataFrame:
    rows = [(10, "eu"), (11, "us"), (11, "us"), (12, None), (None, "eu")]
    return spark.createDataFrame(rows, "customer_key bigint, home_region string")


def by_id(run_results: tuple[RuleResult, ...], rule_id: str) -> RuleResult:
    return next(r for r in run_results if r.rule.id == rule_id)


def not_exists(spark: SparkSession, on: str) -> int:
    """The count as SQL writes it, independently of dqx-gx: keys without NULLs that no customer has."""
    orders(spark).createOrReplaceTempView("fk_orders")
    customers(spark).createOrReplaceTempView("fk_customers")
    query = f"SELECT count(*) FROM fk_orders o WHERE NOT EXISTS (SELECT 1 FROM fk_customers c WHERE {on})"
    keys_present = "o.customer_id IS NOT NULL" + (" AND o.region_code IS NOT NULL" if "region" in on else "")
    return int(spark.sql(f"{query} AND {keys_present}").first()[0])  # type: ignore[index]


def test_a_foreign_key_counts_the_rows_whose_key_no_referenced_row_has(spark: SparkSession) -> None:
    run = run_contract(load(), orders(spark), now=NOW, references={"customers": customers(spark)})
    result = by_id(run.rule_results, "schema[0].properties[1].relationships[0]")
    expected = not_exists(spark, "c.customer_key = o.customer_id")
    assert result.observed == expected == 2  # 99 twice; NULL references nothing, 12 is a key
    assert (result.assertion.status, result.assertion.severity) == ("FAILED", "P1")
    assert result.assertion.assertion == "foreign key customer_id → customers.id"
    assert result.assertion.expression == "missing_reference_count(customer_id → customers.customer_key) = 0"
    assert result.rows_marked == 2
    samples = shown(result, "failed rows")
    assert samples is not None and samples.columns == ("order_id", "customer_id", "region_code")
    assert sorted(samples.rows, key=repr) == [("4", "99", "eu"), ("6", "99", None)]
    assert run.outcome == "passed_with_warnings"


def test_a_composite_key_pairs_its_columns_by_physical_name(spark: SparkSession) -> None:
    contract = load(relationships=[COMPOSITE])
    run = run_contract(contract, orders(spark), now=NOW, references={"customers": customers(spark)})
    result = by_id(run.rule_results, "schema[0].relationships[0]")
    on = "c.customer_key = o.customer_id AND c.home_region = o.region_code"
    assert result.observed == not_exists(spark, on) == 3  # (99, eu), (10, us), (12, eu); (99, NULL) has a NULL
    assert result.assertion.expression == (
        "missing_reference_count((customer_id, region_code) → customers.(customer_key, home_region)) = 0"
    )


def test_a_key_every_referenced_row_has_passes(spark: SparkSession) -> None:
    good = orders(spark).where("customer_id IS NULL OR customer_id != 99")
    run = run_contract(load(), good, now=NOW, references={"customers": customers(spark)})
    result = by_id(run.rule_results, "schema[0].properties[1].relationships[0]")
    assert (result.assertion.status, result.observed) == ("PASSED", 0)


def test_keys_that_cannot_be_compared_fail_with_the_reason(spark: SparkSession) -> None:
    rule = "schema[0].properties[1].relationships[0]"
    as_text = customers(spark).selectExpr("cast(customer_key as string) as customer_key", "home_region")
    run = run_contract(load(), orders(spark), now=NOW, references={"customers": as_text})
    result = by_id(run.rule_results, rule)
    assert result.assertion.status == "FAILED"
    assert (
        result.reason
        == "'customer_id' is int but customers.customer_key is string: keys of different types never match"
    )
    renamed = customers(spark).withColumnRenamed("customer_key", "key")
    run = run_contract(load(), orders(spark), now=NOW, references={"customers": renamed})
    result = by_id(run.rule_results, rule)
    assert result.assertion.status == "FAILED"
    assert result.reason == "column 'customer_key' is not in 'customers' (it has: 'key', 'home_region')"


def test_without_its_dataset_a_foreign_key_is_skipped_with_how_to_give_it(spark: SparkSession) -> None:
    with pytest.warns(ContractWarning, match=r"references=\{'customers': dataframe\}"):
        run = run_contract(load(), orders(spark), now=NOW, references={"suppliers": customers(spark)})
    result = by_id(run.rule_results, "schema[0].properties[1].relationships[0]")
    assert result.assertion.status == "SKIPPED"
    assert "--reference customers=PATH" in (result.reason or "")


def test_a_dataset_may_refer_to_itself(spark: SparkSession) -> None:
    employees = [{"name": "id", "logicalType": "integer"}, {"name": "boss", "relationships": [{"to": "staff.id"}]}]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)
        (contract,) = Contract.from_odcs(odcs_document([{"name": "staff", "properties": employees}]))
    frame = spark.createDataFrame([(1, None), (2, 1), (3, 2), (4, 7)], "id int, boss int")
    run = run_contract(contract, frame, now=NOW, references={"staff": frame})
    assert by_id(run.rule_results, "schema[0].properties[1].relationships[0]").observed == 1
    valid, _ = split_rows(contract, frame, references={"staff": frame})
    warned = {r["id"]: [w["message"] for w in r[WARNINGS] or []] for r in valid.collect()}
    assert warned == {1: [], 2: [], 3: [], 4: ["boss is not a key of staff (id)"]}


def test_a_dataset_referring_to_itself_is_its_own_reference_when_none_is_given(spark: SparkSession) -> None:
    """docs/semantics.md, 'Foreign keys': a foreign key to the batch's own dataset uses the batch (datacontract-cli's employees fixture)."""
    employees = [{"name": "id", "logicalType": "integer"}, {"name": "boss", "relationships": [{"to": "staff.id"}]}]
    (contract,) = Contract.from_odcs(odcs_document([{"name": "staff", "properties": employees}]))
    frame = spark.createDataFrame([(1, None), (2, 1), (3, 2), (4, 7), (5, 8)], "id int, boss int")
    run = run_contract(contract, frame, now=NOW)
    result = by_id(run.rule_results, "schema[0].properties[1].relationships[0]")
    assert (result.assertion.status, result.observed) == ("FAILED", 2)
    valid, quarantine = split_rows(contract, frame)
    warned = {r["id"] for r in valid.union(quarantine.drop("_dqx_errors")).collect() if r[WARNINGS]}
    assert warned == {4, 5}


def test_a_sensitive_key_is_never_shown_in_samples(spark: SparkSession) -> None:
    secret = [dict(p, classification="restricted") if p["name"] == "customer_id" else p for p in ORDERS]
    run = run_contract(load(secret), orders(spark), now=NOW, references={"customers": customers(spark)})
    result = by_id(run.rule_results, "schema[0].properties[1].relationships[0]")
    assert result.observed == 2  # a count of rows is not a value
    samples = shown(result, "failed rows")
    assert samples is not None
    assert sorted(samples.rows, key=repr) == [("4", "***", "eu"), ("6", "***", None)]


def test_a_stored_suite_run_without_the_dataset_fails_saying_so(spark: SparkSession, tmp_path: Path) -> None:
    """The suite stores the dataset's name, never its data: plain GX running the stored checkpoint later
    has no referenced dataset, and the foreign key fails with the reason instead of passing."""
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    frame = orders(spark)
    run = run_contract(load(), frame, now=NOW, context=context, references={"customers": customers(spark)})
    checkpoint = context.checkpoints.get(run.checkpoint_result.checkpoint_config.name)
    with measured_at(NOW):
        again = checkpoint.run(batch_parameters={"dataframe": frame})
    (suite_result,) = again.run_results.values()
    found = next(
        r for r in suite_result.results if r.expectation_config and r.expectation_config.meta["dqx"]["rule_id"] == RULE
    )
    assert found.success is False
    assert found.result["details"]["failure"].startswith(
        "the foreign key was not checked: it needs the referenced dataset 'customers', which this run was not given"
    )


def test_a_sensitive_key_inside_a_struct_is_never_shown(spark: SparkSession) -> None:
    contact = {
        "name": "contact",
        "logicalType": "object",
        "properties": [
            {"name": "email", "classification": "pii", "relationships": [{"to": "people.mail"}]},
            {"name": "kind"},
        ],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = Contract.from_odcs(odcs_document([{"name": "orders", "properties": [ORDERS[0], contact]}]))
    assert contract.sensitive_columns == {"contact", "contact.email"}  # the struct shows the field
    frame = spark.createDataFrame(
        [(1, ("a@x", "home")), (2, ("secret@x", "work"))], "order_id int, contact struct<email: string, kind: string>"
    )
    people = spark.createDataFrame([("a@x",)], "mail string")
    run = run_contract(contract, frame, now=NOW, references={"people": people})
    result = by_id(run.rule_results, "schema[0].properties[1].properties[0].relationships[0]")
    assert result.observed == 1
    samples = shown(result, "failed rows")
    assert samples is not None and samples.columns == ("order_id", "contact", "contact.email")
    assert samples.rows == (("2", "***", "***"),)
    recorded = [evr.result for suite in run.checkpoint_result.run_results.values() for evr in suite.results]
    assert "secret" not in repr(recorded)  # GX's validation results (and so data docs) hold the same samples


@pytest.mark.parametrize(
    ("ours", "theirs", "problem"),
    [
        ("struct<a: int>", "struct<b: string>", "composite keys compare only when their types are the same"),
        ("array<int>", "array<string>", "composite keys compare only when their types are the same"),
        ("bigint", "double", "an integer and a floating-point key compare as doubles, not exactly above 2^53"),
        ("string", "string collate UTF8_LCASE", "text of different collations is not compared"),
        ("int", "decimal(20,0)", None),
    ],
)
def test_keys_spark_would_not_compare_exactly_fail_and_mark_nothing(
    spark: SparkSession, ours: str, theirs: str, problem: str | None
) -> None:
    (contract,) = Contract.from_odcs(
        odcs_document([{"name": "t", "properties": [{"name": "k", "relationships": [{"to": "r.k"}]}]}])
    )
    frame = spark.createDataFrame([(None,)], f"k {ours}")
    reference = spark.createDataFrame([(None,)], f"k {theirs}")
    run = run_contract(contract, frame, now=NOW, references={"r": reference})
    result = by_id(run.rule_results, "schema[0].properties[0].relationships[0]")
    if problem is None:
        assert (result.assertion.status, result.observed) == ("PASSED", 0)
        assert split_rows(contract, frame, references={"r": reference})[0].count() == 1
        return
    assert result.assertion.status == "FAILED" and problem in (result.reason or "")
    with pytest.warns(ContractWarning, match="no row-level rule for this batch"):  # the gate leaves it out
        assert split_rows(contract, frame, references={"r": reference})[0].count() == 1
