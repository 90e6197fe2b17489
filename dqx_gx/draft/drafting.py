"""Draft a contract from a DataFrame: measure it, then write what was measured as ODCS."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

from dqx_gx.draft.document import DraftOptions, draft_document
from dqx_gx.draft.profile import Progress, profile


def draft_contract(
    frame: DataFrame, options: DraftOptions, *, sample: float | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The ODCS v3.1 document drafted from ``frame`` (a mapping; ``document.to_yaml`` writes it).

    ``sample`` reads that fraction of the rows (``df.sample``, a fixed seed); ``progress`` is told
    what is being measured.
    """
    measured = profile(frame, max_values=options.max_values, sample=sample, progress=progress)
    return draft_document(measured, options)
