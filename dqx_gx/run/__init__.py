"""Running contracts: GX artefacts, the checkpoint run, and DQX results."""

from dqx_gx.rules.severity import Outcome
from dqx_gx.run.results import RuleResult
from dqx_gx.run.runner import ContractRun, run_checks, run_contract

__all__ = ["ContractRun", "Outcome", "RuleResult", "run_checks", "run_contract"]
