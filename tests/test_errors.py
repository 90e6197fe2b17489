"""Code written against DQX catches dqx-gx's refusals: each error class subclasses its namesake in ``dqx.contract``,
whether dqlib was imported before dqx-gx or after it (dqx-gx imports dqlib only when it needs it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import dqx.contract
import pytest

from dqx_gx import ContractValidationError, ContractWarning, SchemaValidationError, load_contracts
from dqx_gx.errors import first_line, warn_contract
from tests.conftest import ROOT

REFUSED = """\
apiVersion: v3.0.2
kind: DataContract
id: refused
version: 1.0.0
status: active
schema:
  - name: t
    properties:
      - name: a
        quality:
          - metric: nullValues
            mustBeBetween: [5, 1]
"""

# In a fresh interpreter: load a refused contract, then meet DQX's classes only afterwards.
_DQLIB_AFTERWARDS = """
import sys, warnings
from dqx_gx import load_contracts
from dqx_gx.errors import first_line, warn_contract
try:
    load_contracts(sys.argv[1])
except Exception as exc:
    refused = exc
print("dqx imported:", "dqx" in sys.modules)
import dqx.contract
try:
    raise refused
except dqx.contract.ContractValidationError as exc:
    print("caught:", type(exc).__module__, "lower bound 5 is greater than upper bound 1" in str(exc))
with warnings.catch_warnings():
    warnings.simplefilter("error", dqx.contract.ContractWarning)
    try:
        warn_contract("doubtful")
    except dqx.contract.ContractWarning as exc:
        print("warning raised:", exc)
"""


def test_dqlib_imported_first_catches_ours(tmp_path: Path) -> None:
    path = tmp_path / "refused.yaml"
    path.write_text(REFUSED)
    with pytest.raises(dqx.contract.ContractValidationError, match="lower bound 5 is greater than upper bound 1"):
        load_contracts(path)
    assert issubclass(SchemaValidationError, dqx.contract.SchemaValidationError)
    assert not issubclass(ContractValidationError, dqx.contract.SchemaValidationError)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dqx.contract.ContractWarning)
        with pytest.raises(dqx.contract.ContractWarning, match="doubtful"):
            warn_contract("doubtful")
    assert ContractWarning.__mro__[1] is dqx.contract.ContractWarning


def test_dqlib_imported_after_an_error_still_catches_it(tmp_path: Path) -> None:
    path = tmp_path / "refused.yaml"
    path.write_text(REFUSED)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_DQLIB_AFTERWARDS), str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "dqx imported: False",
        "caught: dqx_gx.errors True",
        "warning raised: doubtful",
    ]


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (  # py4j's opening line, then the Java exception with its class and trace
            "An error occurred while calling o85.collectToPython.\n: org.apache.spark.SparkException: Job aborted"
            " due to stage failure: Task 0 in stage 3.0 failed\n\tat org.apache.spark.scheduler.DAGScheduler.x(a:1)",
            "Job aborted due to stage failure: Task 0 in stage 3.0 failed",
        ),
        (  # a Java trace: its root cause
            "org.apache.spark.SparkException: Job aborted.\n\tat a.b(c:1)\nCaused by: java.io.IOException: outer\n"
            "Caused by: java.io.FileNotFoundException: /data/x.parquet (No such file or directory)\n\tat d.e(f:2)",
            "/data/x.parquet (No such file or directory)",
        ),
        (  # Spark's analysis error: the plan after its first line
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column cannot be resolved. SQLSTATE: 42703;\n'Project ['x]\n"
            "+- Relation [a#1] parquet",
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column cannot be resolved. SQLSTATE: 42703",
        ),
        (ValueError(""), "ValueError"),
        ("", ""),
    ],
)
def test_an_error_in_one_line_is_its_reason(error: BaseException | str, line: str) -> None:
    assert first_line(error) == line
