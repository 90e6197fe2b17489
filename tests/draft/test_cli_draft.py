"""``dqx-gx draft``: its output, where it writes, its refusals, and drafts from untyped text (CSV)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml
from pyspark.sql import SparkSession

from tests.conftest import EXAMPLES
from tests.run.test_cli import NOW, run

GOOD = str(EXAMPLES / "orders" / "data" / "good.parquet")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")


def test_refusals_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "draft", "--data", str(tmp_path / "nope.parquet"))
    assert (code, out, err) == (2, "", f"error: --data {tmp_path / 'nope.parquet'}: no such file or directory\n")
    (tmp_path / "taken.yaml").write_text("kept\n")
    code, _, err = run(capsys, "draft", "--data", GOOD, "--output", str(tmp_path / "taken.yaml"))
    assert (code, err) == (
        2,
        f"error: --output {tmp_path / 'taken.yaml'}: already exists; give --overwrite to replace it\n",
    )
    assert (tmp_path / "taken.yaml").read_text() == "kept\n"
    code, _, err = run(capsys, "draft", "--data", GOOD, "--output", str(tmp_path / "no" / "c.yaml"))
    assert (code, err.count("\n"), "does not exist" in err) == (2, 1, True)
    code, _, err = run(capsys, "draft", "--data", GOOD, "--sample", "1.5")
    assert code == 2 and err.endswith("argument --sample: '1.5': give a fraction of the rows, above 0 and at most 1\n")
    code, _, err = run(capsys, "draft", "--data", GOOD, "--max-values", "-1")
    assert code == 2 and "give a number of values, 0 or more" in err


def test_drafts_to_stdout_or_a_file_that_validate_then_runs(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "draft", "--data", GOOD, "--name", "orders", "--severity", "error")
    assert (code, err) == (0, "")  # no progress line: stderr is not a terminal here
    assert out.startswith("# A contract drafted from data by `dqx-gx draft`")
    document = yaml.safe_load(out)
    assert (document["name"], document["schema"][0]["name"]) == ("orders", "orders")
    assert document["schema"][0]["quality"][0]["severity"] == "error"
    target = tmp_path / "orders.odcs.yaml"
    target.write_text("old\n")
    code, out, _ = run(
        capsys,
        "draft",
        "--data",
        GOOD,
        "--name",
        "orders",
        "--severity",
        "error",
        "--output",
        str(target),
        "--overwrite",
    )
    assert (code, out) == (0, "")
    assert yaml.safe_load(target.read_text()) == document
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary sibling, renamed
    code, out, _ = run(capsys, "validate", str(target), "--data", GOOD, "--now", NOW)
    assert code == 0 and out.splitlines()[-1].endswith("0 failed, 0 skipped → passed")
    code, out, _ = run(capsys, "validate", str(target), "--data", BAD, "--now", NOW)
    assert code == 1  # bad.parquet: a NULL amount, a duplicate id, an unknown status


def test_csv_types_are_inferred_from_the_text_and_said_so(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "people.csv"
    with data.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["id", "score", "team", "joined", "active"])
        writer.writerows([[i, i * 1.5, "ab"[i % 2], f"2026-03-{i:02d}", i % 2 == 0] for i in range(1, 11)])
    contract = tmp_path / "people.odcs.yaml"
    code, _, _ = run(capsys, "draft", "--data", str(data), "--output", str(contract))
    assert code == 0
    document = yaml.safe_load(contract.read_text())
    schema = document["schema"][0]
    assert schema["name"] == "people"
    assert "The source stores no types: Spark inferred them from the text (inferSchema)" in schema["description"]
    types = [(p["name"], p["logicalType"]) for p in schema["properties"]]
    assert types == [
        ("id", "integer"),
        ("score", "number"),
        ("team", "string"),
        ("joined", "date"),
        ("active", "boolean"),
    ]
    code, out, _ = run(capsys, "validate", str(contract), "--data", str(data), "--now", NOW)
    assert code == 0 and " 0 failed" in out.splitlines()[-1]


def test_help_names_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "draft", "--help")
    assert code == 0 and out.startswith("usage: dqx-gx draft")
    for option in (
        "--data",
        "--table",
        "--format",
        "--name",
        "--output",
        "--overwrite",
        "--max-values",
        "--sample",
        "--severity",
        "--master",
    ):
        assert option in out
    assert "row count ± 50 %" in " ".join(out.split())
