"""The parameters a kind's metric takes besides its columns, each declared once (:class:`Param`).

A parameter is at once the metric's field of its name (``Metric(kind, columns, values=...)``), the GX
expectation argument suites store it in (its name, Python type and default; ``dqx_gx.expectations``
turns the type into the expectation's field), and the option a contract's check gives it with (its
words and JSON Schema: :attr:`Param.option`, generated into ``schemas/`` and ``docs/checks.md``). What a
contract may give beyond what its schema refuses (a regex that cannot compile, NaN) is refused by the
parameter's :attr:`~Param.read` when the contract is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar, cast

from dqx_gx.errors import ContractValidationError, shown
from dqx_gx.kinds.words import Option
from dqx_gx.rules.metric import Constraint, ConstraintKind, Metric, Scalar
from dqx_gx.rules.threshold import finite_number

T = TypeVar("T")


@dataclass(frozen=True)
class Param(Generic[T]):
    """One parameter of a kind's metric, declared once."""

    name: str
    """The metric's field, the expectation's argument and the check's option: one name."""
    type: Any
    """What the stored expectation argument holds, as a Python type (``list[Scalar]``); a tuple in the
    metric is a list in the argument."""
    default: T | None = None
    """Its value when not given; without one it is a required argument of the expectation (a stored
    suite leaves out an argument equal to its default)."""
    read: Callable[[Any, str], T] | None = None
    """A contract's value (already valid for :attr:`schema`) as the metric holds it, refusing with a
    ContractValidationError what a schema cannot (``where`` names the field); None: taken as given."""
    holds: str = ""
    """What its option holds, in words (the reference shows it); empty: no check gives it as an option."""
    description: str = ""
    schema: Mapping[str, Any] = field(default_factory=dict)
    """Its option's JSON Schema, with the error message in ``x-message``."""
    needs: str = ""
    """Said after "needs 'name:'" when a check that requires it lacks it: ``(a list)``."""
    exclusive: bool = False
    """Its option is refused on a check that does not take it (else ignored there, as dqlib ignores it)."""
    when_absent: Any = None
    """What a check that leaves the option out gives (dqlib's default; the reference shows it)."""
    from_type: Callable[[str | None, str, str], T] | None = None
    """For a native column check that does not give it: its value from the column's declared logical
    type, the column's name and the check's label (a length's ``column_type``)."""
    from_check: Callable[[Mapping[str, Any], str], T] | None = None
    """For a check that gives it through other options (``pattern``, ``format``, ``flags``): its value
    from the check and the check's label."""

    def of(self, metric: Metric) -> T:
        """Its value in ``metric`` (the metric of a kind that takes it)."""
        return cast(T, metric.param(self.name))

    @property
    def argument_types(self) -> dict[str, Any]:
        """The expectation arguments that carry it, with the Python type each holds."""
        return {self.name: self.type}

    def arguments(self, value: Any) -> dict[str, Any]:
        """The expectation arguments that carry ``value``."""
        return {self.name: list(value) if isinstance(value, tuple) else value}

    def value_of(self, arguments: Mapping[str, Any]) -> Any:
        """Its value from stored expectation arguments (inverse of :meth:`arguments`)."""
        if self.name not in arguments and self.default is not None:
            return self.default
        value = arguments[self.name]
        return tuple(value) if isinstance(value, list) else value

    def given(self, value: Any, where: str) -> T:
        """A contract's value for it, as the metric holds it (see :attr:`read`)."""
        return self.read(value, where) if self.read is not None else cast(T, value)

    @property
    def option(self) -> Option:
        """The option a check gives it with."""
        assert self.holds, f"no check gives {self.name!r} as an option"
        words = (self.holds, self.description, self.schema)
        return Option(self.name, *words, default=self.when_absent, needs=self.needs, exclusive=self.exclusive)

    def option_with(self, **changes: Any) -> Option:
        """Its option as one format gives it (another schema, not exclusive)."""
        return replace(self.option, **changes)


@dataclass(frozen=True)
class ConstraintParam(Param[Constraint]):
    """A value constraint: stored as two arguments, ``constraint`` (its kind) and ``value``."""

    @property
    def argument_types(self) -> dict[str, Any]:
        return {"constraint": str, "value": Scalar}

    def arguments(self, value: Any) -> dict[str, Any]:
        assert isinstance(value, Constraint)
        return {"constraint": value.kind.value, "value": value.value}

    def value_of(self, arguments: Mapping[str, Any]) -> Any:
        return Constraint(ConstraintKind(arguments["constraint"]), arguments["value"])


# --- what a contract gives, checked beyond its schema --------------------------------------------------

LONG_RANGE = 2**63
"""Integers in a value list must fit Spark's bigint: no column can hold a larger one."""


def checked_values(raw: Any, where: str) -> tuple[Scalar, ...]:
    """A list of values to compare a column with (set membership, sentinels), NULLs left out:
    strings, booleans, finite numbers and integers within Spark's bigint range."""
    if not isinstance(raw, list) or not raw:
        raise ContractValidationError(f"{where} must be a non-empty list of values, got: {shown(raw)}")
    for value in raw:
        if value is not None and not isinstance(value, str | int | float | bool):
            raise ContractValidationError(f"{where} may hold only strings, numbers and booleans, got: {shown(value)}")
        if isinstance(value, int) and not isinstance(value, bool) and not -LONG_RANGE <= value < LONG_RANGE:
            raise ContractValidationError(f"{where} holds {len(str(value))}-digit integer beyond Spark's bigint")
        if isinstance(value, float):
            finite_number(where, value)
    return tuple(v for v in raw if v is not None)


_PYTHON_ONLY_REGEX = re.compile(r"\(\?P[<=>]")
_JAVA_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z][A-Za-z0-9]*)>")
_UNICODE_CLASS = re.compile(r"\\[pP]\{[A-Za-z0-9_=]+\}")


def checked_regex(value: Any, where: str) -> str:
    """A regex the contract gives, refused early when it cannot run.

    A bad pattern must fail at load time: inside Spark it would abort the one
    aggregate pass that computes every rule. Spark runs Java regular
    expressions; Python's parser checks the syntax, after rewriting the two
    Java forms it lacks (named groups ``(?<name>…)`` and classes ``\\p{L}``).
    Python-only syntax is refused.
    """
    if not isinstance(value, str) or not value:
        raise ContractValidationError(f"{where}: pattern must be a non-empty string, got: {value!r}")
    if _PYTHON_ONLY_REGEX.search(value):
        raise ContractValidationError(
            f"{where}: pattern {value!r} uses Python-only group syntax (?P…); Spark runs Java regular "
            "expressions: write (?<name>…) for a named group"
        )
    as_python = _UNICODE_CLASS.sub(r"\\w", _JAVA_NAMED_GROUP.sub(r"(?P<\1>", value))
    try:
        re.compile(as_python)
    except re.error as exc:
        raise ContractValidationError(f"{where}: invalid regular expression {value!r}: {exc}") from None
    return value


def _length_type(logical_type: str | None, column: str, label: str) -> str:
    """A length's ``column_type`` from a native column's type."""
    found = {"string": "string", "array": "list", "map": "map"}.get(logical_type or "")
    if found is None:
        raise ContractValidationError(
            f"{label}: length checks need a string, list or map column; {column!r} is {logical_type}"
        )
    return found


_FLAG_PREFIX = {"IGNORECASE": "i", "MULTILINE": "m", "DOTALL": "s", "VERBOSE": "x", "UNICODE": "U", "ASCII": ""}
"""Python re flag names (dqlib's) as Java inline flags, since Spark runs Java regexes."""


def _pattern_constraint(check: Mapping[str, Any], label: str) -> Constraint:
    """The native ``pattern`` check's constraint: its ``format`` shortcut, or its ``pattern`` with ``flags``."""
    if "format" in check:
        if check.get("flags"):
            raise ContractValidationError(f"{label}: flags cannot be combined with a format shortcut")
        return Constraint(ConstraintKind.FORMAT, check["format"])
    flags = "".join(_FLAG_PREFIX[f] for f in check.get("flags") or ())
    pattern = checked_regex(check["pattern"], f"{label}: pattern")
    return Constraint(ConstraintKind.PATTERN, f"(?{flags}){pattern}" if flags else pattern)


def whole_number(value: Any, where: str) -> int:
    """A whole number the schema has let through, perhaps written ``5.0``."""
    return int(value)


def _percentile(value: Any, where: str) -> float:
    return finite_number(where, value, within=(0.0, 1.0))  # NaN passes the schema's 0–1 bounds


# --- the parameters ------------------------------------------------------------------------------------

_VALUES_MESSAGE = "values must be a non-empty list of strings, numbers or booleans, got: {value}"
VALUES: Param[tuple[Scalar, ...]] = Param(
    "values",
    list[Scalar],
    default=(),
    read=checked_values,
    holds="list of values",
    description="The values compared with (strings, numbers or booleans).",
    schema={
        "type": "array",
        "minItems": 1,
        "items": {"type": ["string", "number", "boolean", "null"]},
        "x-message": _VALUES_MESSAGE,
    },
    needs="(a list)",
    exclusive=True,
)
NATIVE_VALUES = VALUES.option_with(
    schema={
        "type": "array",
        "minItems": 1,
        "items": {"type": ["string", "number", "boolean"]},
        "x-message": _VALUES_MESSAGE,
    },
    exclusive=False,
)
"""The native format's ``values``: no NULL among them, and ignored by checks that do not take them."""
PATTERN: Param[str] = Param("pattern", str, read=checked_regex)
PERCENTILE: Param[float] = Param(
    "percentile",
    float,
    read=_percentile,
    holds="number 0–1",
    description="Which percentile: 0.5 is the median.",
    schema={
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "x-message": "percentile must be a number between 0.0 and 1.0, got: {value}",
    },
    needs="(a number between 0.0 and 1.0)",
    exclusive=True,
)
NATIVE_PERCENTILE = PERCENTILE.option_with(exclusive=False)
COLUMN_TYPE: Param[str] = Param(
    "column_type",
    str,
    holds="`string`, `list` or `map`",
    description="What the length is of: characters of a string, items of a list or entries of a map. The native "
    "format reads it from the column's type.",
    schema={
        "enum": ["string", "list", "map"],
        "x-message": "column_type must be one of string, list, map, got: {value}",
    },
    needs="(string, list or map)",
    exclusive=True,
    from_type=_length_type,
)
CONSTRAINT: Param[Constraint] = ConstraintParam("constraint", Constraint, from_check=_pattern_constraint)
AGGREGATION: Param[str] = Param(
    "aggregation",
    str,
    default="max",
    holds="`max` or `min`",
    description="The age of the newest (`max`) or of the oldest (`min`) value.",
    schema={"enum": ["max", "min"], "x-message": "aggregation must be 'max' or 'min', got: {value}"},
    when_absent="max",
)
GRANULARITY: Param[str] = Param(
    "granularity",
    str,
    holds="`hourly`, `daily`, `weekly` or `monthly`",
    description="The period of a partition (ISO weeks, calendar months, UTC).",
    schema={
        "enum": ["hourly", "daily", "weekly", "monthly"],
        "x-message": "CompletenessCheck granularity must be one of ['daily', 'hourly', 'monthly', 'weekly'], "
        "got {value}",
    },
    needs="(hourly, daily, weekly or monthly)",
    exclusive=True,
)
LOOKBACK_DAYS: Param[int] = Param(
    "lookback_days",
    int,
    read=whole_number,
    holds="whole number > 0",
    description="How many days back from the run's moment partitions are expected.",
    schema={
        "allOf": [
            {
                "type": "integer",
                "x-message": "CompletenessCheck lookback_days must be a whole number of days, got {value}",
            },
            {"exclusiveMinimum": 0, "x-message": "CompletenessCheck lookback_days must be > 0, got {value}"},
        ]
    },
    exclusive=True,
    when_absent=30,
)
ALLOW_FUTURE_GAPS: Param[bool] = Param(
    "allow_future_gaps",
    bool,
    default=True,
    holds="boolean",
    description="Gaps after the latest present partition are late data, not gaps.",
    schema={"type": "boolean", "x-message": "CompletenessCheck allow_future_gaps must be true or false, got {value}"},
    exclusive=True,
    when_absent=True,
)
REFERENCE: Param[str] = Param("reference", str)
"""A foreign key's referenced dataset, by the name the contract gives it (the run is given it)."""
REFERENCE_COLUMNS: Param[tuple[str, ...]] = Param("reference_columns", list[str], default=())
"""A foreign key's referenced key columns, paired with the metric's columns."""
