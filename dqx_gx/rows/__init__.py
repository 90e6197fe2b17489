"""The row gate: which rows broke a rule (docs/semantics.md, 'Rows: annotate, split, quarantine'), beside the
checkpoint run's batch verdict.

Built from the same kind declarations as the verdict (``Kind.marks``, and the Spark predicate of
``dqx_gx.spark.kinds``, resolved against a batch by ``dqx_gx.spark.marks``, which the run's failed-row
samples share), so the rows a rule marks are exactly the rows its count counts. Spark only; no GX. The
names below are bound on first use, so ``dqx_gx.rows.choices`` (formats and errors) is importable without
Spark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dqx_gx.lazy import lazy_exports

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


__getattr__ = lazy_exports(globals(), _WHERE)
