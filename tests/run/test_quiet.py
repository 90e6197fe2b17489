"""The README's first command prints only what was asked: the table, and one line for the contract's warnings."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from dqx_gx.session import QUERY_CONTEXT_LOGGERS, quiet_query_contexts
from dqx_gx.spark_versions import QUERY_CONTEXT_LOGS
from tests.conftest import EXAMPLES, needs
from tests.expectations.test_schema_rules import REGEX_ON_AN_ARRAY

NOW = "2026-11-22T12:00:00Z"


@pytest.mark.slow  # a fresh interpreter and JVM
def test_the_first_command_of_the_readme_is_quiet() -> None:
    command = [
        sys.executable, "-m", "dqx_gx.cli", "validate", str(EXAMPLES / "orders" / "orders.odcs.yaml"),
        "--data", str(EXAMPLES / "orders" / "data" / "good.parquet"), "--now", NOW,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    # no JVM banner ("WARNING: Using incubator modules"), no deprecated form in the example
    assert done.stderr.splitlines() == [
        "note: 1 warning about the contract (-v shows them; dqx-gx lint lists its notes)"
    ]
    assert done.stdout.splitlines()[-1].endswith("20 passed, 0 failed, 1 skipped → passed_with_warnings")


def test_lint_notes_a_rule_without_an_operator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(EXAMPLES / "sla" / "daily_orders.dqx.yaml")]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if "no operator" in line]
    assert notes == ["  note     Status is valid: no operator: recorded, never fails (its rows are marked as warnings)"]


GX_RULE_SPARK_REFUSES = """
apiVersion: v3.1.0
kind: DataContract
id: t
name: t
version: "1"
status: active
schema:
  - name: t
    properties:
      - name: c
        logicalType: array
        items: {logicalType: string}
        quality:
          - name: re
            type: custom
            engine: greatExpectations
            implementation: {type: expect_column_values_to_match_regex, kwargs: {regex: "^a"}}
"""


@pytest.mark.slow  # a fresh interpreter and JVM
def test_a_rule_spark_refuses_is_one_line_of_its_result_and_nothing_on_stderr(
    spark: SparkSession, tmp_path: Path
) -> None:
    """PySpark logs each analysis error as a JSON line on stderr; the command shows it only with -v."""
    (tmp_path / "c.yaml").write_text(GX_RULE_SPARK_REFUSES)
    spark.createDataFrame([(["a"],), (None,)], "c array<string>").write.parquet(str(tmp_path / "d.parquet"))
    command = [sys.executable, "-m", "dqx_gx.cli", "validate", "c.yaml", "--data", "d.parquet"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    reason = [line.strip() for line in done.stdout.splitlines() if "could not evaluate" in line]
    assert reason == [f"↳ {REGEX_ON_AN_ARRAY}"]
    assert done.stdout.splitlines()[-1] == "Contract: t on t: 1 passed, 1 failed, 0 skipped → passed_with_warnings"


@needs(QUERY_CONTEXT_LOGS)
def test_the_query_context_loggers_are_pysparks_own_and_show_with_v() -> None:
    """A plain logger of that name would break PySpark's call (it passes keywords only its class takes)."""
    from pyspark.logger import PySparkLogger  # noqa: PLC0415  PySpark 4.0 and later

    before = [PySparkLogger.getLogger(name).level for name in QUERY_CONTEXT_LOGGERS]
    try:
        for verbose, level in ((0, logging.CRITICAL), (1, logging.ERROR)):
            quiet_query_contexts(verbose)
            loggers = [logging.getLogger(name) for name in QUERY_CONTEXT_LOGGERS]
            assert [(type(x), x.level) for x in loggers] == [(PySparkLogger, level)] * 2
    finally:
        for name, level in zip(QUERY_CONTEXT_LOGGERS, before, strict=True):
            PySparkLogger.getLogger(name).setLevel(level)
