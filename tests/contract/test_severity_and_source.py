"""Severity spellings (docs/semantics.md, 'Severities') and the safe reading of contract sources."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from dqx_gx import ContractValidationError, ContractWarning, load_contracts
from dqx_gx.contract.source import read_document
from dqx_gx.expectations.suite import gx_severity
from dqx_gx.rules.severity import parse_severity


@pytest.mark.parametrize(
    ("label", "level"),
    [
        ("error", "P0"),
        ("ERROR", "P0"),
        ("critical", "P0"),
        ("Fatal", "P0"),
        ("warning", "P1"),
        ("warn", "P1"),
        (None, "P1"),
        ("info", "P2"),
        ("low", "P3"),
        ("minor", "P3"),
        ("P0", "P0"),
        ("p3", "P3"),
        (" error ", "P0"),
    ],
)
def test_severity_spellings(label: Any, level: str) -> None:
    assert parse_severity(label, "Quality rule 'r'") == level


@pytest.mark.parametrize("label", ["blocker", "high", 3])
def test_unknown_severity_is_p1_with_a_warning(label: Any) -> None:
    with pytest.warns(ContractWarning, match=r"Quality rule 'r': unknown severity .*; using P1"):
        assert parse_severity(label, "Quality rule 'r'") == "P1"


@pytest.mark.parametrize(("level", "gx"), [("P0", "critical"), ("P1", "warning"), ("P2", "info"), ("P3", "info")])
def test_gx_severity(level: Any, gx: str) -> None:
    assert gx_severity(level) == gx


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a' (first at line 1)"),
        ("a: !!python/object/apply:os.system ['echo owned']\n", "is not allowed in a contract"),
        ("a: [1, 2\n", "invalid YAML"),
        ("# nothing\n\n", "the document is empty"),
        ("a: &x\n  b: *x\n", "refers to itself"),
    ],
)
def test_yaml_hazards(text: str, message: str) -> None:
    with pytest.raises(ContractValidationError) as caught:
        read_document(text)
    assert message in str(caught.value)


def test_alias_bomb_is_refused_before_expanding() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    tracemalloc.start()
    try:
        with pytest.raises(ContractValidationError, match=r"aliases expand to more than 200,000 nodes"):
            read_document("\n".join(lines) + "\n")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024  # 9**9 nodes expanded would need gigabytes


def test_missing_file_is_named() -> None:
    with pytest.raises(ContractValidationError, match=r"no-such\.yaml: no such contract file"):
        load_contracts("no-such.yaml")


def test_a_nul_byte_in_a_one_line_source_is_refused_in_one_line() -> None:
    # found by the service's schema fuzzing: a contract field "\x00K" reached os.stat and raised ValueError (a 500)
    with pytest.raises(ContractValidationError, match=r"'\\x00K': no such contract file \(a file name holds no NUL"):
        load_contracts("\x00K")
