"""How contracts name a kind: its checks, their options, its ODCS library metrics, what it is for.

A kind's words are declared with the kind (:attr:`dqx_gx.kinds.kind.Kind.words`), and everything that
reads or explains a contract's checks is derived from them: both parsers (``dqx_gx.contract.checks``, read
by ``dqx_gx.contract.quality`` for ODCS and ``dqx_gx.contract.native``), the check parts of this project's
JSON Schemas (:mod:`dqx_gx.kinds.schema_gen`) and the checks reference (``docs/checks.md``,
:mod:`dqx_gx.kinds.docs_gen`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Format(StrEnum):
    """Where a contract names a check, and with which key."""

    DQX = "dqx"
    """An ODCS quality rule ``type: custom, engine: dqx``: ``implementation: {check: …}``."""
    NATIVE_COLUMN = "native column"
    """A check in a column's ``checks:`` of the native format: ``type: …``."""
    NATIVE_TABLE = "native table"
    """A check in the top-level ``checks:`` of the native format: ``type: …``."""

    @property
    def key(self) -> str:
        """The key that names the check."""
        return "check" if self is Format.DQX else "type"

    @property
    def noun(self) -> str:
        """How messages name a check of this format (``check 'min'``, ``check type 'min'``)."""
        return "check" if self is Format.DQX else "check type"

    @property
    def unknown(self) -> str:
        """How the message about a name no kind declares begins."""
        return {Format.DQX: "unknown check", Format.NATIVE_COLUMN: "unknown column check type"}.get(
            self, "unknown table check type"
        )


@dataclass(frozen=True)
class Option:
    """A field a check takes besides the common ones (name, severity, the threshold, …)."""

    name: str
    type: str
    """What it holds, in words (the reference page shows it)."""
    description: str
    schema: Mapping[str, Any]
    """Its value's JSON Schema, with the error message in ``x-message`` (generated into ``schemas/``)."""
    default: Any = None
    """What an absent optional option means (None: nothing)."""
    needs: str = ""
    """Said after "needs 'name:'" when a check lacks it: ``(a list)``."""
    exclusive: bool = False
    """Refused on a check that does not take it (else ignored there, as dqlib ignores it)."""


@dataclass(frozen=True)
class Check:
    """One name a contract gives the kind, in one format, with the options it takes."""

    name: str
    format: Format
    takes: tuple[Option, ...] = ()
    """Every option, required or not, in the order the reference lists them."""
    required: tuple[str, ...] = ()
    """The options it cannot go without."""
    one_of: tuple[str, ...] = ()
    """Options of which exactly one must be given (``pattern`` or ``format``)."""
    refuses: tuple[str, ...] = ()
    """Common fields it refuses, with :attr:`why` (completeness takes no min/max/…: its bound is its own)."""
    why: str = ""
    """Why it refuses them; with :attr:`at_most`, what its bound means."""
    column_options: tuple[str, ...] = ()
    """The options naming the column(s) it measures, the first preferred (``column``; a table check's
    ``timestamp_column``, ``columns``); a native column check measures its column."""
    on_property: bool = False
    """Without a column option, it measures the ODCS property whose quality list holds it."""
    at_most: str | None = None
    """The option holding its bound, which the metric may not exceed, instead of the format's operators
    (ODCS operators are refused, native validators ignored as dqlib ignores them)."""
    dimension: str | None = None
    """The rule's data quality dimension, where the format names none (the native format)."""

    def option(self, name: str) -> Option | None:
        return next((o for o in self.takes if o.name == name), None)


@dataclass(frozen=True)
class Library:
    """An ODCS library metric (``quality: - metric: nullValues``) that computes the kind.

    Several kinds may share a metric name: ``argument`` says which one a rule means
    (``invalidValues`` with ``validValues`` or with ``pattern``); the one without computes it otherwise.
    The argument gives the kind's one parameter, or, for a kind of several columns, its columns.
    """

    metric: str
    argument: str | None = None


class Place(StrEnum):
    """Where an example snippet sits in a contract."""

    QUALITY = "a quality rule of an ODCS property"
    PROPERTY = "fields of an ODCS property"
    NATIVE_COLUMN = "a check of a native column"
    NATIVE_TABLE = "a table check of the native format"


@dataclass(frozen=True)
class Example:
    """One contract snippet using the kind; the reference shows it and a test loads it in a contract."""

    place: Place
    text: str
    """The snippet's YAML, as the contract holds it at :attr:`place`."""
    column: str = "order_id"
    """The property (ODCS) or column (native) holding it, of the reference's example table ``orders``."""


@dataclass(frozen=True)
class Words:
    """What a kind is called and what it is for."""

    description: str
    """One line: what it counts or computes."""
    examples: tuple[Example, ...]
    """At least one; one for each format its checks are named in."""
    checks: tuple[Check, ...] = ()
    library: tuple[Library, ...] = ()
    elsewhere: str = ""
    """Where else a contract gives the kind (a property's logicalTypeOptions, the SLA, relationships)."""

    def check(self, format: Format) -> Check | None:
        return next((c for c in self.checks if c.format is format), None)


# --- the options ---------------------------------------------------------------------------------------

COLUMN = Option(
    "column",
    "column name",
    "The column measured: a property's name or physical name.",
    {"type": "string", "minLength": 1, "x-message": "column must be a non-empty string, got: {value}"},
    needs="in its implementation",
)
RETURN = Option(
    "return",
    "`count` or `pct`",
    "Report the count of rows (`count`) or its share of all rows, 0–1 (`pct`).",
    {"enum": ["count", "pct"], "x-message": "return must be 'count' or 'pct', got: {value}"},
    default="count",
    exclusive=True,
)
CASE_SENSITIVE = Option(
    "case_sensitive", "boolean", "`false` is refused (DQX does not implement it either).", {"type": "boolean"}
)
PATTERN = Option(
    "pattern",
    "regular expression",
    "Values must match it (Java syntax, as Spark runs it).",
    {"type": "string", "minLength": 1, "x-message": "pattern must be a non-empty string, got: {value}"},
)
FORMAT = Option(
    "format",
    "a format name",
    "A shortcut for a pattern: email, phone, uuid, url, ipv4, ipv6, date or datetime.",
    {
        "enum": ["email", "phone", "uuid", "url", "ipv4", "ipv6", "date", "datetime"],
        "x-message": "format must be one of email, phone, uuid, url, ipv4, ipv6, date, datetime, got: {value}",
    },
)
FLAGS = Option(
    "flags",
    "list of flag names",
    "Python `re` flags (IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII, UNICODE), as Java inline flags.",
    {
        "type": "array",
        "items": {"enum": ["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE"]},
        "x-message": "flags must be a list of IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII, UNICODE, got: {value}",
    },
)
COLUMNS = Option(
    "columns",
    "list of column names",
    "The key: rows sharing all these values are duplicates.",
    {
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "minLength": 1},
        "x-message": "columns must be a non-empty list of column names, got: {value}",
    },
    needs="(a list)",
)
MAX_AGE_HOURS = Option(
    "max_age_hours",
    "number > 0",
    "The rule fails when the newest value is older than this many hours.",
    {"type": "number", "exclusiveMinimum": 0, "x-message": "max_age_hours must be a number > 0, got: {value}"},
)
TIMESTAMP_COLUMN = Option(
    "timestamp_column", "column name", "The date or timestamp column.", {"type": "string", "minLength": 1}
)
MAX_GAP_COUNT = Option(
    "max_gap_count",
    "whole number ≥ 0",
    "The rule passes with at most this many missing partitions.",
    {
        "allOf": [
            {"type": "integer", "x-message": "CompletenessCheck max_gap_count must be a whole number, got {value}"},
            {"minimum": 0, "x-message": "CompletenessCheck max_gap_count must be >= 0, got {value}"},
        ]
    },
    default=0,
    exclusive=True,
)
PARTITION_COLUMN = Option(
    "partition_column",
    "column name",
    "The date or timestamp column whose periods must all hold rows.",
    {
        "type": "string",
        "minLength": 1,
        "x-message": "CompletenessCheck partition_column must be non-empty, got: {value}",
    },
    exclusive=True,
)
VALIDATORS = ("min", "max", "equals", "between", "not_between", "tolerance")
"""The native format's threshold fields."""
