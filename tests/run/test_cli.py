"""The dqx-gx command: output formats, exit codes, errors without tracebacks, lint, help."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from dqx_gx.rules.opt_in import SQL_OFF
from tests.conftest import EXAMPLES, ROOT

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
GOOD = str(EXAMPLES / "orders" / "data" / "good.parquet")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")
NOW = "2026-11-22T12:00:00Z"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_good_data_exits_0_with_a_table(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", ORDERS, "--data", GOOD, "--now", NOW)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["STATUS", "SEV", "RULE", "OBSERVED", "EXPECTATION"]
    assert any(line.split()[:3] == ["PASSED", "P0", "SLA:"] and " 12 " in line for line in lines)
    assert lines[-1] == "Contract: orders_contract on orders_tbl: 20 passed, 0 failed, 1 skipped → passed_with_warnings"
    assert err.splitlines() == ["note: 1 warning about the contract (-v shows them; dqx-gx lint lists its notes)"]


def test_bad_data_exits_1_and_json_has_every_field(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", ORDERS, "--data", BAD, "--now", NOW, "--output", "json", "--tag", "env=test")
    assert code == 1
    report = json.loads(out)
    assert (report["outcome"], report["critical"], report["suite"]) == ("rejected", True, "orders_contract.orders_tbl")
    failed = {r["assertion"]: r for r in report["results"] if r["status"] == "FAILED"}
    assert set(failed) == {
        "total_amount has no nulls (required)",
        "composite_key_unique",
        "status_valid_values",
        "total_amount_complete",
        "SLA: Freshness check",
    }
    freshness = failed["SLA: Freshness check"]
    assert freshness["observed"] == 84.0
    assert freshness["metric"] == {"value": 84.0}
    assert freshness["tags"] == {"env": "test"}
    assert freshness["yyyy_mm_dd"] == "2026-11-22"
    assert set(freshness) >= {
        "suite", "check", "assertion", "severity", "status", "metric", "expression", "tags",
        "assertion_tags", "experimental", "required", "cost_fp", "cost_fn", "observed", "reason", "rule_id",
    }  # fmt: skip
    skipped = next(r for r in report["results"] if r["status"] == "SKIPPED")
    assert skipped["metric"]["failures"][0]["error_message"] == SQL_OFF


def test_junit_maps_failed_and_skipped(spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "results.xml"
    code, out, _ = run(
        capsys, "validate", ORDERS, "--data", BAD, "--now", NOW, "--output", "junit", "--output-file", str(target)
    )
    assert (code, out) == (1, "")
    suite = ET.parse(target).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("21", "5", "1")
    cases = suite.findall("testcase")
    assert len(cases) == 21
    composite = next(c for c in cases if c.get("name") == "composite_key_unique")
    failure = composite.find("failure")
    assert failure is not None and failure.get("type") == "P0"
    assert next(c for c in cases if c.get("name") == "fraud_sql_check").find("skipped") is not None


def test_strict_schema_stops_with_dqx_message(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", ORDERS, "--data", BAD, "--now", NOW, "--strict-schema")
    assert code == 2
    assert "error: Property 'total_amount' is required (required: true)\nbut contains 1 null values" in err
    assert "Traceback" not in err


def test_data_docs_into_a_project(spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "validate", ORDERS, "--data", GOOD, "--now", NOW, "--gx-dir", str(tmp_path), "--data-docs"
    )
    assert code == 0
    site = tmp_path / "gx" / "uncommitted" / "data_docs" / "local_site"
    assert f"data docs: file://{site}/index.html" in err
    assert (site / "index.html").is_file()
    (page,) = (site / "validations").rglob("*.html")  # the run's own page, printed as a file URL
    (printed,) = [line.removeprefix("data docs page: ") for line in err.splitlines() if "data docs page: " in line]
    assert Path(unquote(urlsplit(printed).path)) == page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["validate", "nope.yaml", "--data", GOOD], "error: nope.yaml: no such contract file"),
        (["validate", ORDERS, "--data", "missing.parquet"], "error: --data missing.parquet: no such file or directory"),
        (
            ["validate", ORDERS, "--data", GOOD, "--now", "yesterday"],
            "error: --now 'yesterday' is not an ISO date-time",
        ),
        (["validate", ORDERS, "--data", GOOD, "--data-docs"], "error: --data-docs needs --gx-dir"),
        (["validate", ORDERS, "--data", GOOD, "--schema", "nope"], "error: --schema 'nope' matches no schema object"),
        (["validate", ORDERS, "--data", GOOD, "--tag", "novalue"], "error: --tag 'novalue' is not KEY=VALUE"),
        (["lint", str(ROOT / "pyproject.toml")], "error: "),
    ],
)
def test_errors_exit_2_without_traceback(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_invalid_contract(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(Path(ORDERS).read_text().replace("mustBeBetween: [10.0, 500.0]", "mustBeBetween: 100"))
    code, _, err = run(capsys, "lint", str(contract))
    assert code == 2
    assert (
        "Quality rule 'average_order_value_reasonable': mustBeBetween must be a list of [lower, upper], got: 100" in err
    )


def test_lint_reports_skips_and_portability(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "lint", ORDERS)
    assert code == 0
    assert out.splitlines()[0] == (
        "Contract: orders_contract (orders_tbl): 21 rules, 20 runnable, 1 sql (run only with --allow-sql), 0 skipped, 1 text"
    )
    assert "  sql      fraud_sql_check: runs only with --allow-sql, as a single read-only SELECT over the batch" in out
    assert sum("sits beside 'implementation'" in line for line in out.splitlines()) == 6
    assert err == ""  # the example uses the current forms: nothing deprecated


@pytest.mark.parametrize("command", ["validate", "translate", "lint"])
def test_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert f"usage: dqx-gx {command}" in out


@pytest.mark.slow
def test_the_installed_command_runs_the_main_example() -> None:
    """The console script in a fresh process: the README's first example."""
    command = Path(sys.executable).with_name("dqx-gx")
    result = subprocess.run(
        [str(command), "validate", ORDERS, "--data", GOOD, "--now", NOW],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("→ passed_with_warnings")
    assert "Setting default log level" not in result.stderr
