"""What a contract really enforces (``dqx-gx coverage``): every element of the document and what becomes
of it in a run. The names are bound on first use (``elements.py``), so the command line can register
the command without loading a contract's machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dqx_gx.lazy import lazy_exports

if TYPE_CHECKING:
    from dqx_gx.coverage.elements import (
        COLUMN_TYPE_EXPECTATION,
        SQL_EXPECTATION,
        Check,
        Coverage,
        Element,
        Status,
        chosen_contracts,
        contract_coverage,
        coverage,
        expectation_type,
    )

__all__ = [
    "COLUMN_TYPE_EXPECTATION",
    "SQL_EXPECTATION",
    "Check",
    "Coverage",
    "Element",
    "Status",
    "chosen_contracts",
    "contract_coverage",
    "coverage",
    "expectation_type",
]
__getattr__ = lazy_exports(globals(), dict.fromkeys(__all__, "dqx_gx.coverage.elements"))
