"""The row gate: which rows broke a rule (SPEC §5), beside the checkpoint run's batch verdict.

Built from the same kind declarations as the verdict (``Kind.spark.marks``), so the rows a rule
marks are exactly the rows its count counts. Spark only; no GX.
"""

from dqx_gx.rows.gate import (
    ERRORS,
    WARNINGS,
    RowGateError,
    annotate_rows,
    split_annotated,
    split_rows,
    warn_without_row_rules,
)

__all__ = [
    "ERRORS",
    "WARNINGS",
    "RowGateError",
    "annotate_rows",
    "split_annotated",
    "split_rows",
    "warn_without_row_rules",
]
