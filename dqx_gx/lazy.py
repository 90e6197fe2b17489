"""Names bound on first use, so that ``import dqx_gx`` (and the command line) starts no JVM and no GX."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
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
