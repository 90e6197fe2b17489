"""Names bound on first use, and work done when another package is imported, so that ``import dqx_gx``
(and the command line) imports no GX, no Spark and no dqlib before it needs them."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any


def lazy_exports(namespace: dict[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's PEP 562 ``__getattr__`` (given its ``globals()``): each exported name is imported from
    its module (``where``) on first use and then bound in the package, so importing the package
    imports none of them."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        namespace[name] = value
        return value

    return __getattr__


def when_imported(name: str, then: Callable[[ModuleType], None]) -> None:
    """Call ``then`` with the module ``name``: now if it is imported, else the moment its import has executed
    (whoever imports it), without importing it ourselves."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
    elif not any(isinstance(f, _AfterImport) and (f.name, f.then) == (name, then) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, then))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds the module's spec on the path, with a loader that calls ``then`` once the module has executed."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _LoaderThen(spec.loader, self.then)
        return spec


class _LoaderThen(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, then: Callable[[ModuleType], None]) -> None:
        self._loader = loader
        self._then = then

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._then(module)

    def __getattr__(self, name: str) -> Any:  # resource readers and the rest of the real loader
        return getattr(self._loader, name)
