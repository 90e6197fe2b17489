"""dqx-gx: run DQX data contracts on Great Expectations over Spark.

The path of a contract: load (``dqx_gx.contract``) → engine-neutral rules
(``dqx_gx.rules``, built from the kinds of ``dqx_gx.kinds``) → GX expectations
(``dqx_gx.expectations``) → checkpoint run → DQX AssertionResults (``dqx_gx.run``).

The names below are bound on first use, so ``import dqx_gx`` (and loading or
linting a contract) imports neither GX nor Spark. A process that has imported
GX gets dqx-gx's expectations and checkpoint action registered with it by
``import dqx_gx``, in whichever order the two are imported, so suites and
checkpoints written by dqx-gx load in plain GX code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dqx_gx.lazy import lazy_exports
from dqx_gx.registration import register_with_gx_when_imported

if TYPE_CHECKING:
    from dqx_gx.contract import Contract, load_contracts
    from dqx_gx.errors import ChecksError, ContractValidationError, ContractWarning, SchemaValidationError
    from dqx_gx.expectations import expectation_suite
    from dqx_gx.rows import RowGateError, annotate_rows, split_rows
    from dqx_gx.run import ContractRun, RuleResult, run_checks, run_contract
    from dqx_gx.sources.choices import SourceError
    from dqx_gx.sources.reader import read_data, read_references
    from dqx_gx.stream import BatchVerdict, gate_each_batch

_WHERE = {
    "Contract": "dqx_gx.contract",
    "load_contracts": "dqx_gx.contract",
    "ChecksError": "dqx_gx.errors",
    "ContractValidationError": "dqx_gx.errors",
    "ContractWarning": "dqx_gx.errors",
    "SchemaValidationError": "dqx_gx.errors",
    "expectation_suite": "dqx_gx.expectations",
    "ContractRun": "dqx_gx.run",
    "RuleResult": "dqx_gx.run",
    "run_checks": "dqx_gx.run",
    "run_contract": "dqx_gx.run",
    "annotate_rows": "dqx_gx.rows",
    "split_rows": "dqx_gx.rows",
    "RowGateError": "dqx_gx.rows",
    "gate_each_batch": "dqx_gx.stream",
    "BatchVerdict": "dqx_gx.stream",
    "read_data": "dqx_gx.sources.reader",
    "read_references": "dqx_gx.sources.reader",
    "SourceError": "dqx_gx.sources.choices",
}

__all__ = [
    "BatchVerdict",
    "ChecksError",
    "Contract",
    "ContractRun",
    "ContractValidationError",
    "ContractWarning",
    "RowGateError",
    "RuleResult",
    "SchemaValidationError",
    "SourceError",
    "annotate_rows",
    "expectation_suite",
    "gate_each_batch",
    "load_contracts",
    "read_data",
    "read_references",
    "run_checks",
    "run_contract",
    "split_rows",
]


__getattr__ = lazy_exports(globals(), _WHERE)


register_with_gx_when_imported()
