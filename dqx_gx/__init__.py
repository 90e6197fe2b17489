"""dqx-gx: run DQX data contracts on Great Expectations over Spark.

The path of a contract: load (``dqx_gx.contract``) → engine-neutral rules
(``dqx_gx.rules``) → GX expectations (``dqx_gx.expectations``) → checkpoint run →
DQX AssertionResults (``dqx_gx.run``).

Importing this package registers dqx-gx's expectations and checkpoint action
with GX, so suites and checkpoints written by dqx-gx can be loaded by plain GX
code afterwards.
"""

from dqx_gx.contract import Contract, load_contracts
from dqx_gx.errors import ContractValidationError, ContractWarning, SchemaValidationError
from dqx_gx.run import ContractRun, RuleResult, run_contract

__all__ = [
    "Contract",
    "ContractRun",
    "ContractValidationError",
    "ContractWarning",
    "RuleResult",
    "SchemaValidationError",
    "load_contracts",
    "run_contract",
]
