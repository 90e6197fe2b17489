"""What a rule's result shows beside its number, engine-neutral: one typed channel every output renders.

A completeness rule names its missing partitions, a failing row-level rule shows some of the rows
it marked: each is a :class:`Detail`, a titled table of text. The run collects them into
``RuleResult.details`` (and GX's validation result, ``result.details.tables``), and the table
report, JSON, JUnit and data docs each render any detail the same way, whatever rule made it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_SAMPLES = 5
"""Failed rows shown per failing row-level rule unless the caller asks for another number (docs/semantics.md, 'Samples
and sensitive columns')."""

TABLES = "tables"
"""The key of a GX validation result's ``details`` that holds a rule's details (each :meth:`Detail.to_dict`)."""


@dataclass(frozen=True)
class Detail:
    """A titled table a result carries: its rows as text (``None`` for NULL, ``***`` for a sensitive value)."""

    title: str
    """What the rows are: ``missing partitions``, ``failed rows``."""
    columns: tuple[str, ...]
    rows: tuple[tuple[str | None, ...], ...]
    total: int | None = None
    """How many there are in all, when ``rows`` holds only the first of them."""
    one_line: bool = False
    """A list of single values, said on one line in text (``missing partitions: 2026-02-03, 2026-02-04``);
    else a heading naming the columns and a line a row."""

    @property
    def heading(self) -> str:
        """The title, with ``(first 10 of 31)`` when ``rows`` holds only the first."""
        more = self.total is not None and self.total > len(self.rows)
        return f"{self.title} (first {len(self.rows)} of {self.total})" if more else self.title

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(row) for row in self.rows],
            "total": self.total,
            "one_line": self.one_line,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Detail:
        """The detail :meth:`to_dict` wrote (as GX stores it in a validation result)."""
        rows = tuple(tuple(None if value is None else str(value) for value in row) for row in data["rows"])
        columns = tuple(map(str, data["columns"]))
        return cls(str(data["title"]), columns, rows, data.get("total"), bool(data.get("one_line")))
