"""``dqx-gx validate --reference NAME=PATH``: the datasets foreign keys refer to, read like --data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyspark.sql import SparkSession

from tests.documents import odcs_document
from tests.run.test_cli import run

FOREIGN_KEY = "foreign key customer_id → customers.id"


@pytest.fixture(scope="module")
def shop(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A contract with orders → customers (declared in the same document), orders as parquet, customers as CSV."""
    root = tmp_path_factory.mktemp("shop")
    schema: list[dict[str, Any]] = [
        {
            "name": "orders",
            "properties": [
                {"name": "order_id", "logicalType": "integer", "primaryKey": True},
                {"name": "customer_id", "logicalType": "integer", "relationships": [{"to": "customers.id"}]},
            ],
        },
        {"name": "customers", "properties": [{"name": "id", "physicalName": "cid", "logicalType": "integer"}]},
    ]
    (root / "shop.yaml").write_text(yaml.safe_dump(odcs_document(schema)))
    orders = spark.createDataFrame([(1, 10), (2, 11), (3, 99), (4, None)], "order_id int, customer_id int")
    orders.coalesce(1).write.parquet(str(root / "orders.parquet"))
    (root / "customers.csv").write_text("cid\n10\n11\n12\n")  # text, cast to the declared integer
    spark.createDataFrame([(10,), (11,)], "cid bigint").createOrReplaceTempView("cli_customers")
    return root


def validate(capsys: pytest.CaptureFixture[str], shop: Path, *extra: str) -> tuple[int, str, str]:
    contract, data = str(shop / "shop.yaml"), str(shop / "orders.parquet")
    return run(capsys, "validate", contract, "--schema", "orders", "--data", data, "--output", "json", *extra)


def foreign_key(out: str) -> dict[str, object]:
    return next(r for r in json.loads(out)["results"] if r["assertion"] == FOREIGN_KEY)


def test_a_reference_file_is_read_cast_and_checked(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path
) -> None:
    code, out, err = validate(capsys, shop, "--reference", f"customers={shop / 'customers.csv'}")
    assert code == 0, err
    result = foreign_key(out)
    assert (result["status"], result["observed"], result["severity"]) == ("FAILED", 1, "P1")
    assert result["expression"] == "missing_reference_count(customer_id → customers.cid) = 0"


def test_a_reference_table_is_read_from_the_catalog(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path
) -> None:
    code, out, _ = validate(capsys, shop, "--reference", "customers=table:cli_customers")
    assert code == 0
    assert foreign_key(out)["observed"] == 1


def test_without_reference_the_foreign_key_is_skipped_and_said(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path
) -> None:
    code, out, err = validate(capsys, shop, "-v")
    assert code == 0
    assert foreign_key(out)["status"] == "SKIPPED"
    assert "warning: Rule 'foreign key customer_id → customers.id'" in err
    assert "dqx-gx validate --reference customers=PATH" in err


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            "custmers=x.csv",
            "error: --reference custmers: no foreign key of the contract refers to 'custmers' "
            "(they refer to: customers)\n",
        ),
        ("customers=", "error: --reference customers=: give where the dataset is, as NAME=PATH or NAME=table:TABLE\n"),
        ("customers", "error: --reference customers: give where the dataset is, as NAME=PATH or NAME=table:TABLE\n"),
        ("customers=nowhere.parquet", "error: --reference customers=nowhere.parquet: no such file or directory\n"),
        (
            "customers=table:no_such_view",
            "error: --reference customers=table:no_such_view: no such table or view in the session's catalog\n",
        ),
    ],
)
def test_a_bad_reference_is_one_line(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path, given: str, message: str
) -> None:
    code, out, err = validate(capsys, shop, "--reference", given)
    assert (code, out) == (2, "")
    assert err.endswith(message) and "Traceback" not in err


@pytest.mark.slow
def test_a_fresh_command_prints_only_its_own_warnings(shop: Path) -> None:
    """In a new interpreter GX is imported during the run; its capture of Python warnings must not turn
    the rule's warning (given after that import) or other libraries' warnings into log lines."""
    command = [
        sys.executable, "-m", "dqx_gx.cli", "validate", str(shop / "shop.yaml"), "--schema", "orders",
        "--data", str(shop / "orders.parquet"), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env={**os.environ}, check=False)
    assert done.returncode == 0, done.stderr
    ours = done.stderr.splitlines()  # no JVM banner, one line for the contract's warnings
    assert ours == ["note: 1 warning about the contract (-v shows them; dqx-gx lint lists its notes)"]


def on_server(shop: Path, path: str) -> Path:
    """The shop contract with one local server at ``path`` (``{model}``: each schema object's name)."""
    document = yaml.safe_load((shop / "shop.yaml").read_text())
    document["servers"] = [{"server": "here", "type": "local", "path": path, "format": "parquet"}]
    written = shop / f"shop-{abs(hash(path))}.yaml"
    written.write_text(yaml.safe_dump(document))
    return written


def test_a_declared_dataset_is_read_from_the_contracts_own_server(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path
) -> None:
    spark.createDataFrame([(10,), (11,), (99,)], "cid int").coalesce(1).write.parquet(str(shop / "customers"))
    spark.read.parquet(str(shop / "orders.parquet")).coalesce(1).write.parquet(str(shop / "orders"))
    contract = on_server(shop, str(shop / "{model}"))
    code, out, err = run(capsys, "validate", str(contract), "--schema", "orders", "--output", "json")
    assert code == 0, err
    result = foreign_key(out)
    assert (result["status"], result["observed"]) == ("PASSED", 0)  # 99 is a customer there


def test_a_server_without_a_place_per_dataset_leaves_the_foreign_key_skipped(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], shop: Path
) -> None:
    contract = on_server(shop, str(shop / "orders.parquet"))  # one path: customers cannot be told apart
    code, out, _ = run(capsys, "validate", str(contract), "--schema", "orders", "--output", "json")
    assert code == 0
    assert foreign_key(out)["status"] == "SKIPPED"
    spark.read.parquet(str(shop / "orders.parquet")).write.parquet(str(shop / "orders-x"))
    missing = on_server(shop, str(shop / "{model}-x"))  # orders-x is there, customers-x is not
    code, out, err = run(capsys, "validate", str(missing), "--schema", "orders", "--output", "json")
    assert code == 0
    assert foreign_key(out)["status"] == "SKIPPED"
    assert (
        f"warning: foreign keys to 'customers' are not checked: server 'here' (servers[0], type local): "
        f"{shop / 'customers-x'}: no such file or directory; give it with --reference customers=PATH"
    ) in err
    code, out, err = run(capsys, "validate", str(missing), "--schema", "orders", "--data", str(shop / "orders.parquet"))
    assert code == 0 and "foreign keys to" not in err  # --data: the server is not where this run's data is
