"""The three ways a contract can be refused, as DQX names them.

Each class subclasses its namesake in ``dqx.contract`` so code written against
DQX (``except dqx.contract.ContractValidationError``) catches ours too.
"""

from __future__ import annotations

import json
from typing import Any

from dqx import contract as _dqx_contract


class ContractValidationError(_dqx_contract.ContractValidationError):
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


class SchemaValidationError(_dqx_contract.SchemaValidationError):
    """The data does not have the schema the contract declares (strict mode only)."""


class ContractWarning(_dqx_contract.ContractWarning):
    """A non-fatal problem: a rule that cannot run, a deprecated form, a doubtful value.

    Emitted with :func:`warnings.warn`; filter it with
    ``warnings.simplefilter("error", ContractWarning)`` to make warnings fatal.
    """


def shown(value: Any, limit: int = 80) -> str:
    """A value as error messages quote it: strings in quotes, the rest as JSON, long ones cut short."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
