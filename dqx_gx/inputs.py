"""The flags every ``dqx-gx`` command reads alike (``--schema``, ``--checks``, ``--reference``), each refused in
one line naming the flag, and the contract's warnings as a command reports them.

``cli.py`` and the commands it registers (``coverage``) import this module; it imports neither of them.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dqx_gx.contract import Contract


class InputError(Exception):
    """Bad input that is not a contract problem: a data path, a date, an option."""


def parse_references(items: list[str] | None, *, paths: bool = True) -> dict[str, str]:
    """The datasets ``--reference NAME=PATH`` names, by name: every command parses the flag here. An empty
    name, a name given twice or (with ``paths``) a missing path is refused; without ``paths`` (a command that
    reads no data) the path may be left out and is ``''``."""
    given: dict[str, str] = {}
    for item in items or []:
        name, _, path = item.partition("=")
        name = name.strip()
        if not name:
            raise InputError(f"--reference {item!r}: give the dataset's name before '=' (NAME=PATH)")
        if paths and not path.strip():
            raise InputError(f"--reference {item}: give where the dataset is, as NAME=PATH or NAME=table:TABLE")
        if name in given:
            raise InputError(f"--reference {name}: given twice; give each dataset once")
        given[name] = path
    return given


def check_references(contracts: list[Contract], given: dict[str, str]) -> None:
    """Refuse a ``--reference`` that no foreign key of the contracts refers to (a typo), before any work."""
    referenced = frozenset().union(*(c.referenced_datasets for c in contracts))
    for name in given:
        if name not in referenced:
            known = ", ".join(sorted(referenced)) or "none"
            raise InputError(
                f"--reference {name}: no foreign key of the contract refers to {name!r} (they refer to: {known})"
            )


def with_checks(contracts: list[Contract], references: list[str] | None) -> list[Contract]:
    """Each contract with the hand-written checks of ``--checks`` for its dataset (ChecksError for a check that
    fits none). Imports dqlib only when checks are given."""
    if not references:
        return contracts
    from dqx_gx.checks.loading import checks_for, load_checks, unmatched

    checks = [check for reference in references for check in load_checks(reference)]
    unmatched(checks, [contract.dataset for contract in contracts])
    return [
        contract.with_checks(mine) if (mine := checks_for(contract.dataset, checks)) else contract
        for contract in contracts
    ]


def chosen_with_checks(
    contracts: list[Contract], schema: str | None, checks: list[str] | None
) -> list[tuple[int, Contract]]:
    """The contracts ``--schema`` chooses (all when it is not given), each with its ``schema[]`` index and the
    hand-written checks of ``--checks`` for its dataset."""
    from dqx_gx.contract import chosen_contracts

    chosen = chosen_contracts(contracts, schema)
    return list(zip([i for i, _ in chosen], with_checks([c for _, c in chosen], checks), strict=True))


@contextmanager
def reported_warnings(verbose: int, *, into: list[str] | None = None) -> Iterator[None]:
    """Print ContractWarnings as one ``warning:`` line each, or add them to ``into`` (to be summed up in
    one line); other libraries' warnings only with -v."""
    from dqx_gx.errors import ContractWarning, NotDelivered

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            seen: set[str] = set(into or ())
            for warning in caught:
                text = str(warning.message)
                if text in seen:
                    continue
                seen.add(text)
                if issubclass(warning.category, ContractWarning):
                    if into is None or issubclass(warning.category, NotDelivered):  # said at once, even without -v
                        print(f"warning: {text}", file=sys.stderr)
                    else:
                        into.append(text)
                elif verbose:
                    print(f"{warning.category.__name__}: {text}", file=sys.stderr)
