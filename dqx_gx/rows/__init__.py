"""The row gate: which rows broke a rule (SPEC §5), beside the checkpoint run's batch verdict.

Built from the same kind declarations as the verdict (``Kind.spark.marks``), so the rows a rule
marks are exactly the rows its count counts. Spark only; no GX. The names below are bound on
first use, so ``dqx_gx.rows.choices`` (defaults and errors) is importable without Spark.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dqx_gx.rows.choices import RowGateError
    from dqx_gx.rows.gate import (
        ERRORS,
        WARNINGS,
        annotate_rows,
        split_annotated,
        split_rows,
        warn_without_row_rules,
    )

_WHERE = {
    "ERRORS": "dqx_gx.rows.gate",
    "WARNINGS": "dqx_gx.rows.gate",
    "RowGateError": "dqx_gx.rows.choices",
    "annotate_rows": "dqx_gx.rows.gate",
    "split_annotated": "dqx_gx.rows.gate",
    "split_rows": "dqx_gx.rows.gate",
    "warn_without_row_rules": "dqx_gx.rows.gate",
}

__all__ = [
    "ERRORS",
    "WARNINGS",
    "RowGateError",
    "annotate_rows",
    "split_annotated",
    "split_rows",
    "warn_without_row_rules",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'dqx_gx.rows' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
