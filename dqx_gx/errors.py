"""The three ways a contract can be refused, as DQX names them.

Each class subclasses its namesake in ``dqx.contract`` so code written against
DQX (``except dqx.contract.ContractValidationError``) catches ours too. Contract warnings are
issued through :func:`warn_contract`, so they are not lost in a process that imported GX.

dqlib's ``dqx`` package is slow to import (sympy, SQLAlchemy, rich; more than loading a contract takes): so
the classes are defined on Python's own and take DQX's classes as their bases the moment ``dqx.contract``
is imported (now, if it already is). No code can name DQX's classes before that, so the promise holds
wherever it can be observed, and ``dqx-gx lint`` and the input errors do without dqlib.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO

from dqx_gx.lazy import when_imported

if TYPE_CHECKING:
    from dqx.contract import ContractValidationError as _DqxContractError
    from dqx.contract import ContractWarning as _DqxContractWarning
    from dqx.contract import SchemaValidationError as _DqxSchemaError
else:  # stand-ins laid out as DQX's classes are, until dqx.contract is imported (_adopt_dqx_bases)

    class _DqxContractError(Exception):
        pass

    class _DqxSchemaError(Exception):
        pass

    class _DqxContractWarning(UserWarning):
        pass


class ContractValidationError(_DqxContractError):
    """The contract document is invalid; nothing runs.

    The message names the offending field (a JSON path such as
    ``schema[0].properties[2].quality[1]`` or a rule/property name) and says what
    is wrong with it. A document with several problems is refused once: each is a line of
    the message, and ``problems`` holds them all (path, YAML line, message).
    """

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        """The field inside the part being read that is wrong (``mustBeBetween``), when known."""
        self.problems: tuple[Any, ...] = ()


class SchemaValidationError(_DqxSchemaError):
    """The data does not have the schema the contract declares (strict mode only)."""


class ChecksError(ValueError):
    """Hand-written DQX checks that cannot run as given: what dqlib's ``VerificationSuite`` refuses too (two
    checks of one name, two assertions of one name in a check, a check or metric of a dataset other than the
    batch's), or a ``--checks`` module or name that holds none. The message names the check and what to change.
    """


class ContractWarning(_DqxContractWarning):
    """A non-fatal problem: a rule that cannot run, a deprecated form, a doubtful value.

    Emitted with :func:`warnings.warn` (through :func:`warn_contract`), so ``warnings.catch_warnings``,
    ``pytest.warns`` and filters see it: ``warnings.simplefilter("error", ContractWarning)`` makes
    warnings fatal.
    """


class NotDelivered(ContractWarning):
    """An alert or a run's results that did not reach their target (``alert to webhook:URL not delivered:
    ...``). The run, its verdict and its exit code are unchanged; the command line says each one at once,
    even without ``-v``."""


def _adopt_dqx_bases(dqx_contract: ModuleType) -> None:
    """Make each class a subclass of its namesake in ``dqx.contract`` (Python recomputes their MROs)."""
    for ours in (ContractValidationError, SchemaValidationError, ContractWarning):
        ours.__bases__ = (getattr(dqx_contract, ours.__name__),)


when_imported("dqx.contract", _adopt_dqx_bases)


def warn_contract(message: str, *, stacklevel: int = 1, category: type[ContractWarning] = ContractWarning) -> None:
    """Issue a :class:`ContractWarning` (or ``category``, one of its kinds) that reaches the caller, even in a
    process that imported GX.

    GX calls ``logging.captureWarnings(True)`` on import: every warning Python would print goes
    to the ``py.warnings`` logger instead, and with no logging handler configured (a plain script,
    a notebook) logging drops it, so the warnings about a contract vanish. Filters and
    ``catch_warnings(record=True)`` are unaffected (they act before the display), only the display
    is lost. So, for this one warning and only when logging would drop it, it is displayed the way
    Python does by default (on stderr, once per place under the default filter) instead. Where
    logging has a handler, the warning goes to the log as the process asked; GX's own warnings and
    a ``showwarning`` the caller installed are left alone. Turning capture off for the whole process
    (``logging.captureWarnings(False)`` after GX's import) was not chosen: it would undo a choice that
    may be the caller's, not GX's, and GX modules imported later turn it on again.
    ``stacklevel`` counts from the caller of this function, as in :func:`warnings.warn`.
    """
    display = warnings.showwarning
    if not (getattr(display, "__module__", None) == "logging" and _logging_drops_warnings()):
        warnings.warn(message, category, stacklevel=stacklevel + 1)
        return
    warnings.showwarning = _print_warning
    try:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
    finally:
        warnings.showwarning = display


def _logging_drops_warnings() -> bool:
    """Whether the ``py.warnings`` logger has no handler but ``NullHandler`` on its way to the root."""
    logger: logging.Logger | None = logging.getLogger("py.warnings")
    while logger is not None:
        if any(not isinstance(handler, logging.NullHandler) for handler in logger.handlers):
            return False
        logger = logger.parent if logger.propagate else None
    return True


def _print_warning(  # noqa: PLR0917 - warnings.showwarning's signature
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Python's own display of a warning (``warnings.showwarning`` before logging replaced it)."""
    stream = file or sys.stderr
    if stream is None:  # no stderr (pythonw): nowhere to show it, as Python's own display does
        return
    with contextlib.suppress(OSError):  # a closed or broken stderr must not turn a warning into an error
        stream.write(warnings.formatwarning(message, category, filename, lineno, line))


def shown(value: Any, limit: int = 80) -> str:
    """A value as error messages quote it: strings in quotes, the rest as JSON, long ones cut short."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_JAVA_CLASS = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*: ")
_PREAMBLES = ("An error occurred while calling", "An exception was thrown from the Python worker")
"""py4j's and PySpark's opening lines, which say only that an error follows."""
_TRACEBACK = "Traceback (most recent call last):"


def first_line(error: BaseException | str) -> str:
    """An error's reason in one line, for messages and results that are one line: an exception with no text
    gives its type's name, an empty text "".

    A Python traceback (a Python UDF's error, which PySpark passes on) gives the line naming its exception; a
    Java trace (py4j carries it whole) its root cause, the last ``Caused by:``; else the first line that is
    not py4j's or PySpark's preamble, which drops the query plan Spark's analysis errors go on with. A Java
    class name in front goes, and so does the ``;`` Spark ends an analysis error's first line with.
    """
    lines = [line for line in str(error).splitlines() if line.strip()]
    stripped = [line.strip() for line in lines]
    if _TRACEBACK in stripped:
        after = lines[stripped.index(_TRACEBACK) + 1 :]
        raised = [line.strip() for line in after if not line[0].isspace()]
        if raised:
            return raised[0]
    causes = [line.removeprefix("Caused by: ") for line in stripped if line.startswith("Caused by: ")]
    kept = causes[-1:] or [line.lstrip(": ") for line in stripped if not line.startswith(_PREAMBLES)]
    if not kept:
        return type(error).__name__ if isinstance(error, BaseException) else ""
    return _JAVA_CLASS.sub("", kept[0], count=1).rstrip(";").strip()
