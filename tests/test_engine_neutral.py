"""The engine-neutral layers (contract, rules, kinds) import neither GX nor Spark, and neither does the CLI's help."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow  # each test starts a fresh interpreter


def _modules_after(code: str) -> set[str]:
    script = textwrap.dedent(code) + "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_loading_a_contract_and_reading_its_rules_imports_no_engine() -> None:
    modules = _modules_after(
        f"""
        import warnings
        import dqx_gx.contract, dqx_gx.rules, dqx_gx.kinds, dqx_gx.sources
        from dqx_gx import load_contracts
        warnings.simplefilter("ignore")
        for path in ({str(EXAMPLES / "orders" / "orders.odcs.yaml")!r}, {str(EXAMPLES / "sla" / "daily_orders.dqx.yaml")!r}):
            for contract in load_contracts(path):
                words = [rule.expression() for rule in contract.rules]
                assert "null_count(order_id) = 0" in words or "freshness_hours(order_date) ≤ 49" in words, words
        """
    )
    assert not {"great_expectations", "pyspark"} & modules


def test_the_package_imports_no_engine_until_asked() -> None:
    modules = _modules_after("import dqx_gx")
    assert not {"great_expectations", "pyspark"} & modules
    assert "pyspark" in _modules_after("import dqx_gx; dqx_gx.run_contract")
