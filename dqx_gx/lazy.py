"""Modules bound on first use, so that what only declares (kinds, the command line) starts no JVM and no GX."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module until an attribute is read, then imports it (once; Python caches it)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module: ModuleType = importlib.import_module(self._name)
        return getattr(module, attribute)
