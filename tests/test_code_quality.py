"""Rules of this code base no linter knows. ruff, mypy and import-linter run as steps of their own (.ci/run)."""

from __future__ import annotations

from tests.conftest import ROOT


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
