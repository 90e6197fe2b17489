"""Reading where the data lives (docs/semantics.md, 'Data in'): servers, tables, globs, untyped sources cast, schema merging."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractWarning, annotate_rows, load_contracts, read_data, run_contract
from dqx_gx.rows import split_rows
from dqx_gx.sources.choices import SourceError
from tests.conftest import dedent, shown

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

NOW = "2026-11-22T12:00:00Z"


def contract_text(servers: str = "") -> str:
    return (
        dedent(
            """
            apiVersion: v3.0.2
            kind: DataContract
            id: t
            version: 1.0.0
            status: active
            """
        )
        + dedent(servers)
        + dedent(
            """
            schema:
              - name: orders
                properties:
                  - name: id
                    logicalType: integer
                    required: true
                  - name: day
                    logicalType: date
                  - name: amount
                    logicalType: number
                    logicalTypeOptions:
                      minimum: 0
            """
        )
    )


def load(text: str) -> Contract:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = load_contracts(text)
    return contract


def results(contract: Contract, frame: object) -> dict[str, tuple[str, object, int | None]]:
    run = run_contract(contract, frame, now=NOW)  # type: ignore[arg-type]
    return {r.rule.name: (r.assertion.status, r.reason, r.rows_marked) for r in run.rule_results}


@pytest.fixture
def csv_server(tmp_path: Path) -> Contract:
    (tmp_path / "orders.csv").write_text("id;day;amount\n1;2026-11-22;5\n2;abc;x1\n3;;-2.5\n4;2026-02-30;7\n")
    return load(
        contract_text(
            f"""
            servers:
              - server: landing
                type: local
                path: {tmp_path}/orders.csv
                format: csv
                delimiter: ";"
            """
        )
    )


def test_csv_from_its_server_is_cast_and_what_does_not_cast_is_counted(
    spark: SparkSession, csv_server: Contract
) -> None:
    frame = read_data(spark, csv_server)
    assert dict(frame.dtypes)["day"] == "date" and dict(frame.dtypes)["amount"] == "double"
    found = results(csv_server, frame)
    assert found["id has type integer"] == ("PASSED", None, None)
    assert found["day has type date"] == (
        "FAILED",
        "Property 'day': 2 value(s) read as text do not cast to date",  # abc, 2026-02-30; NULL is not counted
        2,
    )
    assert found["amount has type number"] == (
        "FAILED",
        "Property 'amount': 1 value(s) read as text do not cast to number",
        1,
    )
    minimum = next(v for k, v in found.items() if ("amount" in k and "minimum" in k.lower()) or "< 0" in k)
    assert minimum[0] == "FAILED" and minimum[2] == 1  # -2.5: the other rules see the cast values


def test_the_gate_marks_exactly_the_rows_that_do_not_cast(spark: SparkSession, csv_server: Contract) -> None:
    frame = read_data(spark, csv_server)
    annotated = annotate_rows(csv_server, frame)
    marks = {
        row["id"]: sorted(e["message"] for e in row["_dqx_errors"] or [] if "cast" in e["message"])
        for row in annotated.collect()
    }
    assert marks == {
        1: [],
        2: ["amount does not cast to number", "day does not cast to date"],
        3: [],
        4: ["day does not cast to date"],
    }
    valid, quarantine = split_rows(csv_server, frame)
    assert "_dqx_uncast" not in valid.columns and "_dqx_uncast" not in quarantine.columns
    # quarantined as read: the text that was there, so a corrected file reads again by the same contract
    held = sorted((r["id"], r["day"], r["amount"]) for r in quarantine.collect())
    assert held == [("2", "abc", "x1"), ("4", "2026-02-30", "7")]
    assert dict(quarantine.dtypes)["amount"] == "string" and dict(valid.dtypes)["amount"] == "double"
    (three,) = valid.where("id = 3").collect()  # amount < 0 breaks a P1 rule: a warning, not an error
    assert [w["rule"] for w in three["_dqx_warnings"]] == ["amount minimum 0"]


def test_json_numbers_fit_number_and_text_does_not(spark: SparkSession, tmp_path: Path) -> None:
    data = tmp_path / "orders.jsonl"
    data.write_text(
        '{"id": 1, "day": "2026-11-22", "amount": 5}\n'
        '{"id": "abc", "day": "2026-11-23", "amount": 2.5}\n'
        '{"id": 3, "day": null, "amount": "abc"}\n'
    )
    contract = load(contract_text())
    frame = read_data(spark, contract, path=str(data))
    assert frame.where("id = 1").first()["amount"] == 5.0  # type: ignore[index]
    found = results(contract, frame)
    assert found["id has type integer"][1:] == ("Property 'id': 1 value(s) read as text do not cast to integer", 1)
    assert found["day has type date"] == ("PASSED", None, None)
    assert found["amount has type number"][2] == 1


def test_a_glob_reads_the_files_it_matches(spark: SparkSession, tmp_path: Path) -> None:
    for name, rows in (("a", [(1,)]), ("b", [(2,), (3,)]), ("skip", [(9,)])):
        spark.createDataFrame(rows, "id long").write.parquet(str(tmp_path / f"{name}_part"))
    frame = read_data(spark, load(contract_text()), path=str(tmp_path / "[ab]_part" / "*.parquet"))
    assert sorted(r["id"] for r in frame.collect()) == [1, 2, 3]


def test_files_that_disagree_on_columns_are_merged_in_a_folder(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, 5.0)], "id long, amount double").write.parquet(str(tmp_path / "d" / "p=1"))
    spark.createDataFrame([(2, "2026-11-22")], "id long, day string").write.parquet(str(tmp_path / "d" / "p=2"))
    contract = load(contract_text())
    merged = read_data(spark, contract, path=str(tmp_path / "d"))
    assert {"id", "amount", "day", "p"} <= set(merged.columns)
    single = read_data(spark, contract, path=str(tmp_path / "d"), merge_schema=False)
    assert len({"amount", "day"} & set(single.columns)) == 1


def test_a_catalog_table_from_a_server_and_by_name(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, None, 5.0)], "id long, day date, amount double").write.parquet(str(tmp_path / "t"))
    spark.sql(f"CREATE TABLE default.orders USING parquet LOCATION '{tmp_path / 't'}'")
    try:
        contract = load(
            contract_text(
                "servers:\n  - server: lake\n    type: databricks\n    catalog: spark_catalog\n    schema: default\n"
            )
        )
        assert read_data(spark, contract).count() == 1
        spark.createDataFrame([(7, None, 1.0)], "id long, day date, amount double").createOrReplaceTempView("v")
        assert read_data(spark, contract, table="v").first()["id"] == 7  # type: ignore[index]
        assert all(status == "PASSED" for status, _, _ in results(contract, read_data(spark, contract)).values())
    finally:
        spark.sql("DROP TABLE default.orders")
    with pytest.raises(SourceError, match=r"table spark_catalog.default.orders: no such table or view"):
        read_data(spark, contract)


def test_a_corrupt_file_is_one_line_naming_it_and_its_format(spark: SparkSession, tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not parquet PAR1")  # marked as parquet: only Spark's reader finds it out
    with pytest.raises(SourceError) as raised:
        read_data(spark, load(contract_text()), path=str(bad))
    message = str(raised.value)
    assert message.startswith(
        f"--data {bad}: cannot read it as parquet: corrupted file: the footer index is not within the file"
    )
    assert "\n" not in message


def test_samples_show_the_text_that_did_not_cast(spark: SparkSession, csv_server: Contract) -> None:
    run = run_contract(csv_server, read_data(spark, csv_server), now=NOW)
    samples = {r.rule.name: found for r in run.rule_results if (found := shown(r, "failed rows")) is not None}
    # the first declared columns as the key, then the rule's: each value as the text that was read
    day, amount = samples["day has type date"], samples["amount has type number"]
    assert (day.columns, day.rows) == (("id", "day", "amount"), (("2", "abc", "x1"), ("4", "2026-02-30", "7")))
    assert (amount.columns, amount.rows) == (("id", "day", "amount"), (("2", "abc", "x1"),))


def test_a_missing_column_message_never_lists_the_hidden_column(spark: SparkSession, csv_server: Contract) -> None:
    frame = read_data(spark, csv_server).drop("amount")
    found = results(csv_server, frame)
    assert found["amount has type number"][1] == "column 'amount' is not in the batch (it has: 'id', 'day')"
