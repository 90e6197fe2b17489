"""ContractWarnings stay real warnings in a process that imported GX (issue 15 point 4).

GX turns on ``logging.captureWarnings`` when it is imported; with no logging handler set up the
warnings then vanish. Each test runs a fresh interpreter, as a user's script would be.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.documents import odcs_document

pytestmark = pytest.mark.slow  # each test starts a fresh interpreter

MESSAGE = "Quality rule 'few rows': unknown severity 'bogus'; using P1 (known: "


def _contract(tmp_path: Path) -> Path:
    rule = {"name": "few rows", "metric": "rowCount", "mustBeGreaterThan": 0, "severity": "bogus"}
    path = tmp_path / "warns.odcs.yaml"
    path.write_text(yaml.safe_dump(odcs_document([{"name": "t", "properties": [], "quality": [rule]}])))
    return path


def _script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    source = textwrap.dedent(
        f"""
        import json, logging, sys, warnings
        import great_expectations  # turns on logging.captureWarnings(True)
        from dqx_gx import ContractWarning, load_contracts
        CONTRACT = {str(_contract(tmp_path))!r}
        assert getattr(warnings.showwarning, "__module__", None) == "logging", "GX no longer captures warnings"
        """
    ) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, check=False, timeout=300
    )


def _shown(stderr: str) -> list[str]:
    return re.findall(r"ContractWarning: (.*)", stderr)


def test_a_warning_is_recorded_filtered_and_shown_once_on_stderr(tmp_path: Path) -> None:
    result = _script(
        tmp_path,
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_contracts(CONTRACT)
        print(json.dumps([str(w.message) for w in caught if w.category is ContractWarning]))
        with warnings.catch_warnings():
            warnings.simplefilter("error", ContractWarning)
            try:
                load_contracts(CONTRACT)
            except ContractWarning as error:
                print(json.dumps(str(error)))
        for _ in range(3):
            load_contracts(CONTRACT)  # default filters: shown once
        """,
    )
    assert result.returncode == 0, result.stderr
    recorded, raised = map(json.loads, result.stdout.splitlines())
    assert len(recorded) == 1 and recorded[0].startswith(MESSAGE)
    assert raised == recorded[0]
    assert _shown(result.stderr) == recorded


def test_with_a_logging_handler_the_warning_goes_to_the_log(tmp_path: Path) -> None:
    result = _script(
        tmp_path,
        """
        logging.basicConfig(format="LOG %(name)s: %(message)s", stream=sys.stdout)
        load_contracts(CONTRACT)
        """,
    )
    assert result.returncode == 0, result.stderr
    assert _shown(result.stderr) == []
    assert result.stdout.startswith("LOG py.warnings: ") and MESSAGE in result.stdout
