"""A checkpoint action that makes a run fail loudly when a dqx-gx expectation went missing.

GX drops an expectation whose class is not registered (its module was not
imported) when it loads a suite, logs an error, and still reports success on
the rest. This action is stored in every checkpoint dqx-gx writes:

* loading such a checkpoint without ``import dqx_gx`` fails, because GX cannot
  build an action type it does not know;
* running it checks that every rule of the contract produced a result.
"""

from __future__ import annotations

from typing import Any, Literal

from great_expectations.checkpoint import ValidationAction
from great_expectations.checkpoint.checkpoint import CheckpointResult
from great_expectations.compatibility.pydantic import Field, validator
from great_expectations.exceptions import GreatExpectationsError

from dqx_gx import gx_private
from dqx_gx.expectations.base import rule_id

GUARD_ACTION_TYPE = "dqx_gx_guard"


class MissingExpectationsError(GreatExpectationsError):
    """Some rules of a contract produced no result: their expectations were not loaded."""


class DqxGuardAction(ValidationAction):
    """Fail the checkpoint when a contract rule has no result."""

    type: Literal["dqx_gx_guard"] = "dqx_gx_guard"
    name: str = GUARD_ACTION_TYPE
    rule_ids: dict[str, list[str]] = Field(default_factory=dict)
    """Suite name → the rule ids its expectations carry (``meta.dqx.rule_id``)."""
    expectation_types: list[str] = Field(default_factory=list)

    @validator("expectation_types")
    def _types_are_registered(cls, value: list[str]) -> list[str]:
        registered = gx_private.registered_expectation_types()
        missing = sorted(t for t in value if t not in registered)
        if missing:
            raise ValueError(
                f"expectation types {missing} are not registered in this process; "
                "import dqx_gx before loading this checkpoint"
            )
        return value

    def run(self, checkpoint_result: CheckpointResult, action_context: Any = None) -> dict[str, Any]:
        problems: dict[str, list[str]] = {}
        for suite_result in checkpoint_result.run_results.values():
            expected = self.rule_ids.get(suite_result.suite_name, [])
            seen = {
                rule_id(r.expectation_config.meta) for r in suite_result.results if r.expectation_config is not None
            }
            missing = [expected_id for expected_id in expected if expected_id not in seen]
            if missing:
                problems[suite_result.suite_name] = missing
        if problems:
            raise MissingExpectationsError(
                f"rules without a result (was the suite loaded without `import dqx_gx`?): {problems}"
            )
        return {"checked_rules": sum(len(ids) for ids in self.rule_ids.values())}
