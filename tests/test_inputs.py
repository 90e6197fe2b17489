"""The flags ``validate``, ``translate`` and ``coverage`` read alike (``dqx_gx/inputs.py``, ``chosen_contracts``):
one parse each, refused in the same line naming the flag, before any data is read."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.documents import odcs_document
from tests.run.test_cli import run

REFERENCE_ERRORS = [
    ("=c.csv", "error: --reference '=c.csv': give the dataset's name before '=' (NAME=PATH)"),
    (
        "custmers=c.csv",
        "error: --reference custmers: no foreign key of the contract refers to 'custmers' (they refer to: customers)",
    ),
]


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """Two schema objects, orders with a foreign key to customers."""
    schema = [
        {
            "name": "orders",
            "properties": [
                {"name": "order_id", "logicalType": "integer"},
                {"name": "customer_id", "logicalType": "integer", "relationships": [{"to": "customers.id"}]},
            ],
        },
        {"name": "customers", "properties": [{"name": "id", "logicalType": "integer"}]},
    ]
    contract = tmp_path / "shop.yaml"
    contract.write_text(yaml.safe_dump(odcs_document(schema)))
    return contract


def command(name: str, contract: Path, *extra: str) -> list[str]:
    if name == "validate":  # the data is never read: every refusal here comes first
        return ["validate", str(contract), "--schema", "orders", "--data", str(contract.parent / "none.csv"), *extra]
    return [name, str(contract), "--schema", "orders", *extra]


@pytest.mark.parametrize("name", ["validate", "coverage"])
@pytest.mark.parametrize(("given", "message"), REFERENCE_ERRORS)
def test_a_bad_reference_is_the_same_line_for_every_command(
    capsys: pytest.CaptureFixture[str], shop: Path, name: str, given: str, message: str
) -> None:
    code, out, err = run(capsys, *command(name, shop, "--reference", given))
    assert (code, out, err) == (2, "", message + "\n")


@pytest.mark.parametrize("name", ["validate", "coverage"])
def test_a_dataset_referenced_twice_is_refused(capsys: pytest.CaptureFixture[str], shop: Path, name: str) -> None:
    given = ["--reference", "customers=a.csv", "--reference", " customers=b.csv"]
    code, out, err = run(capsys, *command(name, shop, *given))
    assert (code, out, err) == (2, "", "error: --reference customers: given twice; give each dataset once\n")


def test_only_coverage_takes_a_reference_without_its_path(capsys: pytest.CaptureFixture[str], shop: Path) -> None:
    """coverage reads no data: a name is enough there; validate needs to know where the dataset is."""
    assert run(capsys, *command("coverage", shop, "--reference", "customers", "--fail-on", "skipped"))[0] == 0
    code, _, err = run(capsys, *command("validate", shop, "--reference", "customers"))
    assert (code, err) == (
        2,
        "error: --reference customers: give where the dataset is, as NAME=PATH or NAME=table:TABLE\n",
    )


@pytest.mark.parametrize("name", ["validate", "coverage", "translate"])
def test_an_unknown_schema_is_the_same_line_for_every_command(
    capsys: pytest.CaptureFixture[str], shop: Path, tmp_path: Path, name: str
) -> None:
    args = command(name, shop)
    args[args.index("orders")] = "ordrs"
    if name == "translate":
        args += ["--gx-dir", str(tmp_path / "gx")]
    code, out, err = run(capsys, *args)
    assert (code, out, err) == (
        2,
        "",
        "error: --schema 'ordrs' matches no schema object of the contract (it has: orders, customers)\n",
    )
