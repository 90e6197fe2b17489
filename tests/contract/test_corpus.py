"""Every real contract in ../shared/corpus loads, or is refused with an error that names a field."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from dqx_gx import ContractValidationError, ContractWarning, load_contracts
from tests.conftest import CORPUS

FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".yaml", ".yml")) if CORPUS.is_dir() else []

# A JSON path (schema[0].quality[1], servers[0]), a quoted property/rule/key, or a top-level key name.
NAMES_A_FIELD = re.compile(r"\w+\[\d+\]|Property '|Quality rule '|'\w+' is a required property|sla\.|apiVersion")


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_corpus_contract(path: Path, corpus: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            contracts = load_contracts(path)
        except ContractValidationError as exc:
            refusal: str | None = str(exc)
        else:
            refusal = None
    if refusal is not None:
        assert NAMES_A_FIELD.search(refusal), f"error does not name a field: {refusal}"
        return
    for contract in contracts:
        assert contract.dataset
        for rule in contract.skipped_rules:
            assert rule.reason
    # every warning says which rule or field it is about
    for warning in caught:
        if issubclass(warning.category, ContractWarning):
            assert NAMES_A_FIELD.search(str(warning.message)) or "Check '" in str(warning.message)


def test_corpus_is_all_there(corpus: Path) -> None:
    # The corpus README counts 121 documents; the folder holds 124 (three .yml files besides them).
    assert len(FILES) >= 121
