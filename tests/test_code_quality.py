"""The code stays ruff- and mypy-clean: run as part of the test suite so CI enforces it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint() -> None:
    result = _run("ruff", "check", "dqx_gx", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run("ruff", "format", "--check", "dqx_gx", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_contract_warnings_are_issued_through_warn_contract() -> None:
    """``warnings.warn`` directly would let GX's logging capture swallow the warning (dqx_gx.errors.warn_contract)."""
    direct = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "dqx_gx").rglob("*.py"))
        if path.name != "errors.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "warnings.warn(" in line
    ]
    assert direct == []
