"""Register dqx-gx's expectations and checkpoint action with GX, without importing GX ourselves.

GX builds an expectation or action type only if its class was imported in the
process; a suite loaded before that silently drops our expectations (the
checkpoint's guard action makes that loud). ``import dqx_gx`` must not import GX
(loading and linting contracts stay fast), yet a GX user's ``import dqx_gx`` must
register. So: if GX is already imported, register now; otherwise register the
moment GX's own import finishes.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

GX = "great_expectations"


EXPECTATIONS = "dqx_gx.expectations"


def register() -> None:
    """Import the package whose classes GX must know: dqx-gx's expectations, metrics and guard action."""
    importlib.import_module(EXPECTATIONS)


def register_with_gx_when_imported() -> None:
    if GX in sys.modules:
        register()
    elif not any(isinstance(finder, _AfterGxImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterGxImport())


class _AfterGxImport(importlib.abc.MetaPathFinder):
    """Finds GX's own spec, with a loader that registers dqx-gx once GX's package has executed."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != GX:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        if EXPECTATIONS not in sys.modules:  # else GX is being imported by dqx-gx's own backend
            register()

    def __getattr__(self, name: str) -> Any:  # resource readers and the rest of GX's real loader
        return getattr(self._loader, name)
