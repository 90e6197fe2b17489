"""Every corpus contract that loads translates, and runs to completion on a DataFrame of its declared schema."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractValidationError, ContractWarning, load_contracts, run_contract
from dqx_gx.contract.model import Property
from dqx_gx.expectations import build_suite
from tests.contract.test_corpus import FILES

_SIMPLE = {
    "string": "string",
    "integer": "bigint",
    "number": "double",
    "boolean": "boolean",
    "date": "date",
    "time": "string",
    "binary": "binary",
}


def ddl_type(prop: Property) -> str:
    """The Spark type a property declares (string when it declares none)."""
    lt = prop.logical_type
    if lt == "timestamp":
        return "timestamp_ntz" if prop.logical_type_options.get("timezone") is False else "timestamp"
    if lt in ("array", "vector"):
        return f"array<{ddl_type(prop.items) if prop.items else ('float' if lt == 'vector' else 'string')}>"
    if lt == "object":
        return "struct<" + ", ".join(f"{_quoted(p.column)}: {ddl_type(p)}" for p in prop.properties) + ">"
    if lt == "map":
        key = ddl_type(prop.map_key) if prop.map_key else "string"
        value = ddl_type(prop.map_value) if prop.map_value else "string"
        return f"map<{key}, {value}>"
    return _SIMPLE.get(lt or "string", "string")


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def null_row(spark: SparkSession, contract: Contract) -> DataFrame:
    """One all-NULL row of the declared schema, built in the JVM (3x faster per run than createDataFrame)."""
    columns = [f"CAST(NULL AS {ddl_type(p)}) AS {_quoted(p.column)}" for p in contract.properties]
    return spark.range(1).selectExpr(*(columns or ["CAST(NULL AS string) AS _no_columns_declared"]))


def loadable(path: Path) -> list[Contract]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        try:
            return load_contracts(path)
        except ContractValidationError:
            return []


@pytest.mark.slow  # every corpus contract run on Spark
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_corpus_contract_runs(spark: SparkSession, path: Path, corpus: Path) -> None:
    contracts = loadable(path)
    if not contracts:
        pytest.skip("refused or empty: covered by tests/contract/test_corpus.py")
    for contract in contracts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContractWarning)
            build = build_suite(contract)
            run = run_contract(contract, null_row(spark, contract))
        assert [r.rule.id for r in run.rule_results] == [rule.id for rule in contract.rules]
        for result in run.rule_results:
            if result.assertion.status != "PASSED":
                assert result.reason or result.observed is not None, result.rule.name
            assert not (result.reason or "").startswith("GX could not evaluate"), (result.rule.name, result.reason)
        assert set(build.skipped) == {r.rule.id for r in run.rule_results if r.assertion.status == "SKIPPED"}
