"""The README's first command prints only what was asked: the table, and one line for the contract's warnings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dqx_gx.cli import main
from tests.conftest import EXAMPLES

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
