"""What a caller of the row gate chooses, and how it is refused, without importing Spark.

The CLI builds its help and checks its arguments from these before any Spark session starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dqx_gx.run.results import RuleResult

WRITE_FORMATS = ("parquet", "csv", "json", "orc")


class RowGateError(ValueError):
    """The rows cannot be gated as asked (a stream with a rule that needs other rows, a name clash)."""


class OutputError(ValueError):
    """An output cannot be written as asked (it exists, its folder is missing, the format cannot hold it)."""


class Verdict(Protocol):
    """What the row gate needs of a batch verdict (a :class:`~dqx_gx.run.ContractRun`): the rules that failed,
    and what each observed."""

    @property
    def failed_rules(self) -> frozenset[str]:
        """The ids of the rules that FAILED on the batch."""
        ...

    @property
    def rule_results(self) -> Sequence[RuleResult]:
        """Each rule's result: a duplicates rule that marked no row needs no grouping to mark rows."""
        ...

    @property
    def now(self) -> datetime:
        """The moment the batch was measured from (UTC): rows are marked by the same one."""
        ...


@dataclass(frozen=True)
class Output:
    """Where one output goes: a path Spark can write, and whether it is on this machine's filesystem."""

    path: str

    @property
    def local(self) -> Path | None:
        if "://" in self.path and not self.path.startswith("file://"):
            return None
        return Path(self.path.removeprefix("file://")).resolve()

    def overlaps(self, other: str) -> bool:
        """Writing here would replace ``other`` (a path, or a glob's folders), or write inside its folder."""
        local = self.local
        if local is None or ("://" in other and not other.startswith("file://")):
            return self.path.rstrip("/") == other.rstrip("/")
        parts = Path(other.removeprefix("file://")).parts
        fixed = next((i for i, part in enumerate(parts) if set(part) & set("*?[{")), len(parts))
        there = Path(*parts[:fixed]).resolve()
        return local == there or local in there.parents or (fixed == len(parts) and there in local.parents)

    def check(self, *, overwrite: bool, option: str) -> None:
        """Refuse before the run what would fail after it: an existing output without ``overwrite``, a
        file where a folder must be. A missing parent folder is created when the output is written."""
        local = self.local
        if local is None:
            return
        if local.exists() and not overwrite:
            raise OutputError(f"{option} {self.path}: already exists; give --overwrite to replace it")
        existing = next(parent for parent in local.parents if parent.exists())
        if not existing.is_dir():
            raise OutputError(f"{option} {self.path}: {existing} is a file, not a folder")
