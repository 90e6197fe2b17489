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
from dqx_gx.errors import warn_contract
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
from dqx_gx.errors import warn_contract
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
