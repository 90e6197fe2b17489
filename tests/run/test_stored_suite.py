"""A suite stored in a GX file project runs the same in a fresh process; without dqx_gx it fails loudly."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import SparkSession

from dqx_gx import Contract, run_contract
from dqx_gx.expectations import measured_at
from dqx_gx.expectations.guard import MissingExpectationsError
from dqx_gx.run.artifacts import STORE
from tests.conftest import ROOT
from tests.expectations.test_orders_contract import NOW, SCHEMA, good_rows, set_column

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

SUITE = "orders_contract.orders_tbl"


@pytest.fixture(scope="module")
def project(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory, orders: Contract
) -> tuple[Path, dict[str, Any]]:
    """A file project holding the §6.7 contract's artefacts, its data as parquet, and the in-process results."""
    root = tmp_path_factory.mktemp("project")
    frame = spark.createDataFrame(set_column(2, 1000.0)(good_rows()), SCHEMA)  # one rule fails
    frame.write.parquet(str(root / "data"))
    context = gx.get_context(mode="file", project_root_dir=str(root))
    run = run_contract(orders, frame, now=NOW, context=context)
    return root, _outcomes(run.checkpoint_result)


def _outcomes(checkpoint_result: Any) -> dict[str, Any]:
    return {
        evr.expectation_config.meta["dqx"]["rule_id"]: [evr.success, evr.result.get("observed_value")]
        for suite in checkpoint_result.run_results.values()
        for evr in suite.results
    }


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_fresh_process_runs_the_stored_checkpoint_the_same(project: tuple[Path, dict[str, Any]]) -> None:
    root, expected = project
    result = _python(
        f"""
        import json
        import great_expectations as gx
        from pyspark.sql import SparkSession
        from dqx_gx.expectations import measured_at  # (the project imports dqx-gx itself when opened)

        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        context = gx.get_context(mode="file", project_root_dir={str(root)!r})
        frame = spark.read.parquet({str(root / "data")!r})
        with measured_at("{NOW.isoformat()}"):
            result = context.checkpoints.get({SUITE!r}).run(batch_parameters={{"dataframe": frame}})
        print("RESULT" + json.dumps({{
            evr.expectation_config.meta["dqx"]["rule_id"]: [evr.success, evr.result.get("observed_value")]
            for suite in result.run_results.values() for evr in suite.results
        }}))
        """
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT"))
    assert json.loads(line[len("RESULT") :]) == expected
    assert [rule for rule, (success, _) in expected.items() if not success] == ["schema[0].properties[2].quality[0]"]


def without_registration(root: Path, tmp_path: Path) -> Path:
    """A copy of the project whose expectations store is GX's plain one: opening it imports nothing of dqx-gx."""
    copy = tmp_path / "plain"
    shutil.copytree(root / "gx", copy / "gx")
    config = copy / "gx" / "great_expectations.yml"
    text = config.read_text()
    assert f"module_name: {STORE}\n" in text
    config.write_text(text.replace(f"module_name: {STORE}\n", "module_name: great_expectations.data_context.store\n"))
    return copy


@pytest.mark.slow
def test_opening_the_project_registers_dqx_gx(project: tuple[Path, dict[str, Any]]) -> None:
    root, expected = project
    result = _python(
        f"""
        import sys
        import great_expectations as gx

        context = gx.get_context(mode="file", project_root_dir={str(root)!r})
        print("COUNT", len(context.suites.get({SUITE!r}).expectations), "dqx_gx.expectations" in sys.modules)
        """
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert next(line for line in result.stdout.splitlines() if line.startswith("COUNT")).split()[1:] == [
        str(len(expected)),
        "True",
    ]


@pytest.mark.slow
def test_loading_the_checkpoint_without_dqx_gx_fails_loudly(
    project: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root = without_registration(project[0], tmp_path)
    result = _python(
        f"""
        import great_expectations as gx

        context = gx.get_context(mode="file", project_root_dir={str(root)!r})
        context.checkpoints.get({SUITE!r})
        """
    )
    assert result.returncode != 0
    assert "dqx_gx_guard" in result.stderr


@pytest.mark.slow
def test_plain_gx_drops_unregistered_expectations_which_is_why_the_guard_exists(
    project: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    expected = project[1]
    root = without_registration(project[0], tmp_path)
    result = _python(
        f"""
        import great_expectations as gx

        context = gx.get_context(mode="file", project_root_dir={str(root)!r})
        print("COUNT", len(context.suites.get({SUITE!r}).expectations))
        """
    )
    count = int(next(line for line in result.stdout.splitlines() if line.startswith("COUNT")).split()[1])
    assert count < len(expected)


def test_a_run_that_lost_an_expectation_fails(spark: SparkSession, project: tuple[Path, dict[str, Any]]) -> None:
    root, expected = project
    suite_file = root / "gx" / "expectations" / "orders_contract" / "orders_tbl.json"
    stored = json.loads(suite_file.read_text())
    dropped = stored["expectations"].pop(3)
    suite_file.write_text(json.dumps(stored))
    try:
        context = gx.get_context(mode="file", project_root_dir=str(root))
        frame = spark.read.parquet(str(root / "data"))
        missing = dropped["meta"]["dqx"]["rule_id"].replace("[", r"\[")
        with pytest.raises(MissingExpectationsError, match=missing), measured_at(NOW):
            context.checkpoints.get(SUITE).run(batch_parameters={"dataframe": frame})
    finally:
        stored["expectations"].insert(3, dropped)
        suite_file.write_text(json.dumps(stored))
    assert len(expected) == 20


def test_now_is_gx_s_own_now_at_run_time_not_a_stored_constant(project: tuple[Path, dict[str, Any]]) -> None:
    root, _ = project
    stored = json.loads((root / "gx" / "expectations" / "orders_contract" / "orders_tbl.json").read_text())
    (freshness,) = [e for e in stored["expectations"] if e["type"] == "expect_dqx_freshness"]
    assert freshness["kwargs"]["now"] == {"$PARAMETER": "now()"}
    assert freshness["severity"] == "critical"
    assert freshness["meta"]["dqx"]["severity"] == "P0"
