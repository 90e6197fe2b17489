"""The committed gx/ project: exactly what `dqx-gx translate` makes from examples/, runnable by plain GX."""

from __future__ import annotations

import filecmp
import html
import os
import re
import shutil
import stat
import warnings
from pathlib import Path

import great_expectations as gx
import pytest
from pyspark.sql import SparkSession

import dqx_gx  # noqa: F401 - what a GX user imports before loading the project
from dqx_gx import Contract, ContractWarning, load_contracts
from dqx_gx.cli import main
from dqx_gx.expectations import measured_at
from tests.conftest import EXAMPLES, ROOT
from tests.expectations.test_orders_contract import NOW

CONTRACTS = sorted(str(p.relative_to(ROOT)) for p in EXAMPLES.rglob("*.yaml"))


def committed_copy(tmp_path: Path) -> Path:
    """The committed project without uncommitted/, copied so a run cannot touch the repository."""
    shutil.copytree(ROOT / "gx", tmp_path / "gx", ignore=shutil.ignore_patterns("uncommitted"))
    return tmp_path


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "uncommitted" not in p.parts)


def test_regenerating_the_project_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = committed_copy(tmp_path)
    assert main(["translate", *[str(ROOT / c) for c in CONTRACTS], "--gx-dir", str(project)]) == 0
    committed, regenerated = ROOT / "gx", project / "gx"
    assert tree(regenerated) == tree(committed)
    _, mismatch, errors = filecmp.cmpfiles(committed, regenerated, tree(committed), shallow=False)
    assert (mismatch, errors) == ([], [])
    assert "Contract: orders_contract: suite 'orders_contract.orders_tbl' (20 expectations)" in capsys.readouterr().out


@pytest.mark.compat
def test_translating_into_a_new_directory_creates_the_project(tmp_path: Path) -> None:
    assert main(["translate", str(EXAMPLES / "sla" / "hourly_events.dqx.yaml"), "--gx-dir", str(tmp_path / "new")]) == 0
    assert tree(tmp_path / "new" / "gx") == [
        ".gitignore",
        "checkpoints/Clickstream Events Contract.events.json",
        "expectations/.ge_store_backend_id",
        "expectations/Clickstream Events Contract/events.json",
        "great_expectations.yml",
        "plugins/custom_data_docs/styles/data_docs_custom_styles.css",
        "validation_definitions/Clickstream Events Contract.events.json",
    ]
    # the project names GX's own site backend, not the atomic one dqx-gx writes through meanwhile; the one
    # module it names is dqx-gx's, for the expectations store, so that opening the project registers dqx-gx
    config = (tmp_path / "new" / "gx" / "great_expectations.yml").read_text()
    assert [line.strip() for line in config.splitlines() if "module_name" in line] == [
        "module_name: dqx_gx.expectations.store"
    ]


@pytest.mark.compat
def test_translating_again_touches_no_file_and_every_file_has_the_umask_mode(tmp_path: Path) -> None:
    contracts = [str(ROOT / c) for c in CONTRACTS]
    previous = os.umask(0o027)  # not the usual 0o022, so a mode from mkstemp (0o600) or a default cannot pass
    try:
        assert main(["translate", *contracts, "--gx-dir", str(tmp_path)]) == 0
        first = {path: (tmp_path / "gx" / path).stat() for path in tree(tmp_path / "gx")}
        assert main(["translate", *contracts, "--gx-dir", str(tmp_path)]) == 0
        second = {path: (tmp_path / "gx" / path).stat() for path in tree(tmp_path / "gx")}
    finally:
        os.umask(previous)
    assert sorted(second) == sorted(first)
    assert len(first) > 20
    changed = [path for path in first if second[path].st_mtime_ns != first[path].st_mtime_ns]
    assert changed == []
    modes = {path: oct(stat.S_IMODE(st.st_mode)) for path, st in second.items()}
    assert {path: mode for path, mode in modes.items() if mode != oct(0o640)} == {}


@pytest.mark.compat
def test_plain_gx_runs_the_project_and_builds_data_docs_naming_every_rule(
    spark: SparkSession, tmp_path: Path, orders: Contract
) -> None:
    project = committed_copy(tmp_path)
    context = gx.get_context(mode="file", project_root_dir=str(project))
    frame = spark.read.parquet(str(EXAMPLES / "orders" / "data" / "bad.parquet"))
    with measured_at(NOW):
        result = context.checkpoints.get("orders_contract.orders_tbl").run(batch_parameters={"dataframe": frame})
    assert not result.success
    (suite_result,) = result.run_results.values()
    assert suite_result.statistics["evaluated_expectations"] == 20
    assert suite_result.statistics["unsuccessful_expectations"] == 5

    site = project / "gx" / "uncommitted" / "data_docs" / "local_site"
    assert (site / "index.html").is_file()
    (page,) = (site / "validations" / "orders_contract").rglob("*.html")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).split())
    meta = context.suites.get("orders_contract.orders_tbl").meta["dqx"]
    in_suite = [r for r in orders.executable_rules if r.id in meta["rule_ids"]]
    assert len(in_suite) == 20
    missing = [r.name for r in in_suite if f"{r.name} : {r.expression()}" not in text]
    assert missing == []
    # The SQL rule is not run without --allow-sql, and the suite says so rather than dropping it.
    assert [s["rule_id"] for s in meta["skipped"]] == ["schema[0].quality[3]"]
    assert "SLA: Freshness check : freshness_hours(order_date) ≤ 24 ( P0 )" in text


def test_every_example_contract_is_in_the_project() -> None:
    checkpoints = {p.stem for p in (ROOT / "gx" / "checkpoints").glob("*.json")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        expected = {f"{c.name}.{c.dataset}" for path in CONTRACTS for c in load_contracts(ROOT / path)}
    assert checkpoints == expected
    assert len(expected) == 10
