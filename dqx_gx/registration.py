"""Register dqx-gx's expectations and checkpoint actions with GX, without importing GX ourselves.

GX builds an expectation or action type only if its class was imported in the
process; a suite loaded before that silently drops our expectations (the
checkpoint's guard action makes that loud). ``import dqx_gx`` must not import GX
(loading and linting contracts stay fast), yet a GX user's ``import dqx_gx`` must
register. So: if GX is already imported, register now; otherwise register the
moment GX's own import finishes.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from dqx_gx.lazy import when_imported

GX = "great_expectations"


EXPECTATIONS = "dqx_gx.expectations"


def register() -> None:
    """Import the package whose classes GX must know: dqx-gx's expectations, metrics and checkpoint actions
    (the guard, the alerts, DataHub's results)."""
    importlib.import_module(EXPECTATIONS)


def register_with_gx_when_imported() -> None:
    when_imported(GX, _register_after)


def _register_after(_: ModuleType) -> None:
    if EXPECTATIONS not in sys.modules:  # else GX is being imported by dqx-gx's own backend
        register()
