"""``--checks MODULE_OR_FILE[:NAME]``: the DQX check functions a command line run adds to its contracts.

A Python file (``checks/orders.py``) is imported as the command's own code, its folder first on the path (as
``python checks/orders.py`` would have it); anything else is a module name found on ``sys.path``
(``mypackage.checks``). ``:NAME`` takes that name of it: a ``@check`` function or a list of them. Without it,
every ``@check`` function the module defines, in the order it defines them. Each check goes to the contracts
whose dataset its ``datasets=`` names (every contract when it names none).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from dqx.api import DecoratedCheck

from dqx_gx.checks.reading import check_name, is_check
from dqx_gx.errors import ChecksError, first_line


def load_checks(reference: str) -> list[DecoratedCheck]:
    """The check functions ``reference`` names; :class:`ChecksError` (one line) when it names none."""
    where, name = _split(reference)
    module = _module(where, reference)
    if name is None:
        found = [value for value in vars(module).values() if is_check(value) and value.__module__ == module.__name__]
        if not found:
            raise ChecksError(f"--checks {reference}: {where} defines no @check function (dqx.api.check)")
        return found
    if not hasattr(module, name):
        defined = [key for key, value in vars(module).items() if is_check(value)]
        raise ChecksError(f"--checks {reference}: {where} has no {name!r} (its @check functions: {_listed(defined)})")
    value = getattr(module, name)
    values = list(value) if isinstance(value, list | tuple) else [value]
    refused = [v for v in values if not is_check(v)]
    if refused or not values:
        raise ChecksError(
            f"--checks {reference}: {name} is {_what(refused[0] if refused else value)}, not a @check function "
            "(dqx.api.check) or a list of them"
        )
    return values


def checks_for(dataset: str, checks: Sequence[DecoratedCheck]) -> list[DecoratedCheck]:
    """The checks of a batch of ``dataset``: those whose ``datasets=`` name it, or name none."""
    return [c for c in checks if not _datasets(c) or dataset in _datasets(c)]


def unmatched(checks: Sequence[DecoratedCheck], datasets: Sequence[str]) -> None:
    """:class:`ChecksError` for a check whose ``datasets=`` name none of this run's datasets (a typo, a file meant
    for another contract): it would not run, and a check that does not run must not go unsaid."""
    for check in checks:
        named = _datasets(check)
        if named and not set(named) & set(datasets):
            raise ChecksError(
                f"check {check_name(check)!r} is for dataset(s) {_listed(named)}, and this run checks "
                f"{_listed(datasets)}; give it the contract of that dataset"
            )


def _datasets(check: DecoratedCheck) -> list[str]:
    keywords = getattr(check, "keywords", None) or {}
    return list(keywords.get("datasets") or ())


def _split(reference: str) -> tuple[str, str | None]:
    where, colon, name = reference.rpartition(":")
    if colon and name.isidentifier() and where:
        return where, name
    return reference, None


def _module(where: str, reference: str) -> ModuleType:
    path = Path(where)
    is_file = where.endswith(".py") or path.is_file() or "/" in where
    try:
        return _from_file(path) if is_file else importlib.import_module(where)
    except ChecksError:
        raise
    except ModuleNotFoundError as exc:
        missing = bool(exc.name and where.startswith(exc.name))
        why = f"no module {where!r} (give a module on the path or a .py file)" if missing else first_line(exc)
        raise ChecksError(f"--checks {reference}: {why}") from None
    except Exception as exc:  # the user's module runs as it is imported and can fail in any way
        raised = f"{type(exc).__name__}: {first_line(exc)}"
        raise ChecksError(f"--checks {reference}: importing it raised {raised}") from None


def _from_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise ChecksError(f"--checks {path}: no such file")
    name = f"dqx_gx_checks_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ChecksError(f"--checks {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up while it executes
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _listed(names: Sequence[str]) -> str:
    return ", ".join(map(repr, names)) or "none"


def _what(value: Any) -> str:
    if isinstance(value, type):
        return f"the class {value.__name__}"
    return "a function without @check" if callable(value) else f"a {type(value).__name__}"
