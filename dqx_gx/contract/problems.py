"""Every problem of a contract document, collected so one error lists them all, each once.

Loading goes on past the first problem: the JSON-schema check, DQX's own rules and the SLA
each add what they find, and the document is refused once, at the end, with every problem
on its own line: its JSON path, its YAML line when the source had one, and what to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from dqx_gx.contract.source import Document
from dqx_gx.errors import ContractValidationError

MAX_LISTED = 50
"""Problems written out in one message; the rest are counted (all stay on ``error.problems``)."""

INCIDENTAL = (KeyError, TypeError, AttributeError, IndexError, ValueError)
"""What building a part that the JSON schema already refused may raise; that part is already reported."""


@dataclass(frozen=True)
class Problem:
    """One reason a document is refused."""

    path: str
    """Its JSON path (``schema[0].quality[2].mustBeBetween``); empty for the whole document."""
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.path + (f" (line {self.line})" if self.line else "")
        return f"{where}: {self.message}" if where else self.message


class Problems:
    """The problems found so far in one document."""

    def __init__(self, document: Document) -> None:
        self._document = document
        self._found: list[Problem] = []

    def __bool__(self) -> bool:
        return bool(self._found)

    def add(self, path: str, message: str) -> None:
        """Record a problem; the same message at the same place, or at a place inside it, is one problem
        (the closer place is kept)."""
        head, _, rest = message.partition(": ")
        if path and rest and head.startswith((f"{path}.", f"{path}[")) and " " not in head:
            path, message = head, rest  # the message names a place inside the part: use it
        elif path and head == path and rest:
            message = rest
        problem = Problem(path, message, self._document.line_of(path) if path else None)
        for index, known in enumerate(self._found):
            if known.message == message and (path.startswith(known.path) or known.path.startswith(path)):
                if len(path) > len(known.path):  # the same problem seen from closer: keep the closer place
                    self._found[index] = problem
                return
        self._found.append(problem)

    def paths(self) -> list[str]:
        return [p.path for p in self._found]

    def record(self, path: str, error: ContractValidationError) -> None:
        """Record a refusal raised while reading the part at ``path`` (its ``key`` extends the path)."""
        key = getattr(error, "key", None)
        self.add(f"{path}.{key}" if key and path else path, str(error))

    @contextmanager
    def collecting(self, path: str) -> Iterator[None]:
        """Record a ContractValidationError raised in the block, at ``path`` (plus the error's ``key``).

        Once the document is known to be invalid, an incidental error from a part the schema
        refused is dropped: that part's problem is already on the list.
        """
        try:
            yield
        except ContractValidationError as exc:
            self.record(path, exc)
        except INCIDENTAL:
            if not self:
                raise

    def raise_if_any(self) -> None:
        """Refuse the document with every problem found, sorted by where it is."""
        if not self._found:
            return
        found = sorted(self._found, key=lambda p: (p.line or 0, p.path))
        origin = self._document.origin
        if len(found) == 1:
            error = ContractValidationError(f"{origin}: {found[0]}")
        else:
            lines = [f"  - {p}" for p in found[:MAX_LISTED]]
            if len(found) > MAX_LISTED:
                lines.append(f"  … and {len(found) - MAX_LISTED} more")
            error = ContractValidationError("\n".join([f"{origin}: {len(found)} problems:", *lines]))
        error.problems = tuple(found)
        raise error
