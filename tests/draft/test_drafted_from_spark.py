"""Drafts from real Spark data: the example data, the guarantee (the same data passes, one change fails
exactly its rule), awkward columns, sampling and the jobs the measuring costs."""

from __future__ import annotations

import datetime as dt
import math
import warnings
from decimal import Decimal
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from dqx_gx import Contract, ContractWarning, load_contracts, run_contract
from dqx_gx.contract.jsonschemas import odcs_problems
from dqx_gx.draft.document import DraftOptions, to_yaml
from dqx_gx.draft.drafting import draft_contract
from dqx_gx.draft.profile import profile
from tests.conftest import EXAMPLES
from tests.docs import DOCS, code_blocks, section
from tests.rows.test_samples import jobs

NOW = "2026-11-22T12:00:00Z"


def drafted(frame: DataFrame, **options: Any) -> tuple[dict[str, Any], Contract]:
    """The draft of ``frame``, checked valid ODCS and loaded with any ContractWarning an error."""
    document = draft_contract(frame, DraftOptions(name="t", source="a test DataFrame", **options))
    assert odcs_problems(document) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)
        (contract,) = load_contracts(to_yaml(document))
    return document, contract


def statuses(contract: Contract, frame: DataFrame) -> dict[str, str]:
    return {r.assertion: r.status for r in run_contract(contract, frame, now=NOW).results}


def failed(contract: Contract, frame: DataFrame) -> set[str]:
    return {name for name, status in statuses(contract, frame).items() if status == "FAILED"}


def properties(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in document["schema"][0]["properties"]}


@pytest.mark.parametrize(
    ("path", "key", "values"),
    [
        (
            "orders/data/good.parquet",
            "order_id",
            ("status", ["cancelled", "delivered", "pending", "processing", "shipped"]),
        ),
        (
            "sla/data/daily_orders-good.parquet",
            "order_id",
            ("status", ["cancelled", "delivered", "pending", "processing", "shipped"]),
        ),
        ("sla/data/hourly_events-good.parquet", "event_id", None),
    ],
)
def test_example_data_passes_its_own_draft(
    spark: SparkSession, path: str, key: str | None, values: tuple[str, list[str]] | None
) -> None:
    frame = spark.read.parquet(str(EXAMPLES / path))
    document, contract = drafted(frame)
    found = properties(document)
    assert list(found) == frame.columns
    assert [name for name, p in found.items() if p.get("primaryKey")] == ([key] if key else [])
    if values:
        column, expected = values
        assert found[column]["quality"][0]["arguments"]["validValues"] == expected
    results = statuses(contract, frame)
    assert set(results.values()) == {"PASSED"}, results
    assert len(results) >= 2 * len(frame.columns)  # a type rule per column and at least as many others


def test_orders_draft_holds_its_exact_observations(spark: SparkSession) -> None:
    frame = spark.read.parquet(str(EXAMPLES / "orders" / "data" / "good.parquet"))
    found = properties(drafted(frame)[0])
    observed = frame.agg(F.min("total_amount"), F.max("total_amount"), F.max(F.length("product_name"))).first()
    assert found["total_amount"]["logicalTypeOptions"] == {"minimum": observed[0], "maximum": observed[1]}
    assert found["product_name"]["logicalTypeOptions"] == {"maxLength": observed[2]}
    assert found["order_date"]["description"] == "observed from 2026-11-22 to 2026-11-22."
    assert (found["order_id"]["physicalType"], found["order_id"]["logicalType"]) == ("bigint", "integer")


@pytest.fixture(scope="module")
def shop(spark: SparkSession) -> DataFrame:
    rows = [
        (
            i,
            10.0 + (i % 20) / 4,
            ["new", "paid", "sent"][i % 3],
            dt.date(2026, 1, 1) + dt.timedelta(days=i % 30),
            None if i % 7 == 0 else f"n{i}",
        )
        for i in range(1, 61)
    ]
    return spark.createDataFrame(rows, "id long, amount double, status string, day date, note string")


def changed(frame: DataFrame, column: str, value: Any) -> DataFrame:
    """``frame`` with ``column`` set to ``value`` in the row with id 5."""
    data_type = dict(frame.dtypes)[column]
    return frame.withColumn(column, F.when(F.col("id") == 5, F.lit(value).cast(data_type)).otherwise(F.col(column)))


def test_the_same_data_passes_and_one_change_fails_exactly_its_rule(spark: SparkSession, shop: DataFrame) -> None:
    document, contract = drafted(shop)
    found = properties(document)
    assert found["amount"]["logicalTypeOptions"] == {"minimum": 10.0, "maximum": 14.75}
    assert (found["id"]["primaryKey"], found["amount"]["required"], "required" in found["note"]) == (True, True, False)
    assert not failed(contract, shop)
    assert failed(contract, changed(shop, "amount", None)) == {"amount has no nulls (required)"}
    assert failed(contract, changed(shop, "amount", 14.750000000000002)) == {"amount maximum 14.75"}
    assert failed(contract, changed(shop, "amount", 9.999999999999998)) == {"amount minimum 10.0"}
    assert failed(contract, changed(shop, "status", "lost")) == {"status_valid_values"}
    assert failed(contract, changed(shop, "id", 6)) == {"primary key (id) is unique"}
    outcome = run_contract(contract, changed(shop, "status", "lost"), now=NOW)
    (rule,) = [r for r in outcome.results if r.status == "FAILED"]
    assert (rule.severity, outcome.is_critical()) == ("P1", False)


def test_severity_error_makes_the_drafted_rules_critical(spark: SparkSession, shop: DataFrame) -> None:
    _, contract = drafted(shop, severity="error")
    outcome = run_contract(contract, changed(shop, "status", "lost"), now=NOW)
    assert [(r.assertion, r.severity) for r in outcome.results if r.status == "FAILED"] == [
        ("status_valid_values", "P0")
    ]
    assert outcome.is_critical()


AWKWARD = StructType(
    [
        StructField("id", IntegerType()),
        StructField("nothing", StringType()),
        StructField("same", StringType()),
        StructField("empty", StringType()),
        StructField("ratio", DoubleType()),
        StructField("wide", DoubleType()),
        StructField("small", FloatType()),
        StructField("price", DecimalType(12, 3)),
        StructField("flag", BooleanType()),
        StructField("blob", BinaryType()),
        StructField("at", TimestampType()),
        StructField("local", TimestampNTZType()),
        StructField("address", StructType([StructField("city", StringType()), StructField("zip", IntegerType())])),
        StructField("tags", ArrayType(StringType())),
        StructField("lines", ArrayType(StructType([StructField("sku", StringType()), StructField("qty", LongType())]))),
        StructField("chunks", ArrayType(BinaryType())),
        StructField("attributes", MapType(StringType(), IntegerType())),
        StructField("when", DateType()),
    ]
)


@pytest.fixture(scope="module")
def awkward(spark: SparkSession) -> DataFrame:
    rows = [
        (
            i,
            None,
            "only",
            "" if i % 2 else "x",
            math.nan if i == 3 else i / 10,
            math.inf if i == 4 else -i * 1e300,
            i / 3 + 0.1,
            Decimal(i) / Decimal(7) if i != 2 else Decimal("-99.125"),
            i % 2 == 0,
            bytes([i]),
            dt.datetime(2026, 1, i, 12, tzinfo=dt.UTC),
            dt.datetime(2026, 2, i, 8, 30),
            None if i == 5 else {"city": f"c{i}", "zip": 1000 + i},
            ["a", None] if i % 2 else [],
            [{"sku": "s", "qty": i}],
            [b"\x00"],
            {"k": i},
            None,
        )
        for i in range(1, 7)
    ]
    return spark.createDataFrame(rows, AWKWARD)


def test_awkward_columns_are_drafted_or_explained_and_never_fail_on_their_data(
    spark: SparkSession, awkward: DataFrame
) -> None:
    document, contract = drafted(awkward)
    found = properties(document)
    assert list(found) == awkward.columns
    assert (found["nothing"]["description"], "required" in found["nothing"]) == ("every value was NULL.", False)
    assert found["same"]["quality"][0]["arguments"]["validValues"] == ["only"]
    assert found["empty"]["quality"][0]["arguments"]["validValues"] == ["", "x"]
    assert found["empty"]["logicalTypeOptions"] == {"maxLength": 1}
    assert found["ratio"]["logicalTypeOptions"] == {"minimum": 0.1}  # NaN: no maximum
    assert "1 NaN values: no maximum" in found["ratio"]["description"]
    assert found["wide"]["logicalTypeOptions"] == {"minimum": -6e300}
    assert "no maximum: the observed maximum is inf" in found["wide"]["description"]
    small = awkward.agg(F.max("small")).first()[0]
    assert found["small"]["logicalTypeOptions"]["maximum"] == small and small != 2.1  # the float32, widened exactly
    assert found["price"]["logicalTypeOptions"] == {"minimum": -99.125, "maximum": 0.857}  # 6/7 at scale 3
    assert (found["price"]["physicalType"], found["flag"]["logicalType"]) == ("decimal(12,3)", "boolean")
    assert ("logicalType" in found["blob"], found["blob"]["physicalType"]) == (False, "binary")
    assert "no logicalType for binary" in found["blob"]["description"]
    assert found["at"]["logicalTypeOptions"] == {"timezone": True}
    assert found["at"]["description"] == "observed from 2026-01-01T12:00:00+00:00 to 2026-01-06T12:00:00+00:00."
    assert found["local"]["logicalTypeOptions"] == {"timezone": False}
    assert found["local"]["description"] == "observed from 2026-02-01T08:30:00 to 2026-02-06T08:30:00."
    assert [p["name"] for p in found["address"]["properties"]] == ["city", "zip"]
    assert found["tags"]["items"] == {"logicalType": "string", "physicalType": "string"}
    assert [p["name"] for p in found["lines"]["items"]["properties"]] == ["sku", "qty"]
    assert "logicalType" not in found["chunks"]["items"] and "logicalType" not in found["attributes"]
    assert found["id"]["primaryKey"] is True
    results = statuses(contract, awkward)
    assert set(results.values()) == {"PASSED"}, results
    assert "attributes exists" in results and "blob exists" in results


def test_an_empty_dataset_drafts_no_declaration_and_no_rows(spark: SparkSession) -> None:
    empty = spark.createDataFrame([], "id int, s string")
    document, contract = drafted(empty)
    assert [p.get("required") for p in document["schema"][0]["properties"]] == [None, None]
    assert document["schema"][0]["quality"][0]["mustBe"] == 0
    assert not failed(contract, empty)


def test_one_aggregation_when_no_column_may_be_a_key_or_listed(spark: SparkSession) -> None:
    frame = spark.range(2_000).select((F.col("id") % 10).alias("k"), (F.col("id") % 13 / 7).alias("x"))
    with jobs(spark, "draft-one-pass") as drafted_jobs:
        measured = profile(frame, max_values=20)
    with jobs(spark, "hand-one-pass") as hand_jobs:
        frame.agg(F.count(F.lit(1)), F.min("k"), F.max("x"), F.approx_count_distinct("k")).first()
    assert drafted_jobs == hand_jobs
    assert [(c.unique, c.minimum, c.maximum) for c in measured.columns] == [(False, 0, 9), (False, 0.0, 12 / 7)]


def test_a_second_narrow_query_only_for_columns_that_qualify(spark: SparkSession) -> None:
    frame = spark.range(2_000).select(
        F.col("id"), (F.col("id") % 3).cast("string").alias("s"), (F.col("id") % 10).alias("k")
    )
    said: list[str] = []
    with jobs(spark, "draft-two") as drafted_jobs:
        measured = profile(frame, max_values=20, progress=said.append)
    assert said == ["measuring 3 columns in one pass", "checking 1 possible key(s) exactly and 1 value set(s)"]
    with jobs(spark, "hand-first") as first_jobs:
        frame.agg(F.count(F.lit(1)), F.min("id"), F.approx_count_distinct("id")).first()
    with jobs(spark, "hand-second") as second_jobs:
        frame.agg(F.count_distinct("id"), F.collect_set("s")).first()
    assert drafted_jobs[0] == first_jobs[0] + second_jobs[0]
    assert [(c.unique, c.values) for c in measured.columns] == [(True, None), (False, ("0", "1", "2")), (False, None)]


def test_a_sample_reads_that_fraction_and_estimates_the_rows(spark: SparkSession) -> None:
    frame = spark.range(20_000).select(F.col("id"), (F.col("id") % 4).cast("string").alias("s"))
    measured = profile(frame, max_values=20, sample=0.1)
    assert 1_700 < measured.rows < 2_300 and measured.sample == 0.1
    assert measured.estimated_rows == round(measured.rows / 0.1)
    assert profile(frame, max_values=20, sample=0.1) == measured  # a fixed seed: the same rows again
    assert profile(frame, max_values=20, sample=1.0).sample is None


def test_the_example_in_the_docs_is_the_draft_of_the_example_data(spark: SparkSession) -> None:
    (shown,) = code_blocks(section((DOCS / "draft.md").read_text(), "Example"), "yaml")
    frame = spark.read.parquet(str(EXAMPLES / "orders" / "data" / "good.parquet"))
    options = DraftOptions(name="orders", source="--data examples/orders/data/good.parquet (parquet)")
    assert to_yaml(draft_contract(frame, options)) == shown
