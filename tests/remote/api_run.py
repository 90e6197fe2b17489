"""The Python API's answers for one contract and dataset, as JSON: ``run_contract``'s report and the
rows ``annotate_rows`` marks and ``split_rows`` sends each way.

Called in the tests' process on their local session, and run as ``python -m tests.remote.api_run
sc://HOST:PORT CONTRACT DATA NOW`` over Spark Connect in a process of its own: with a Connect
session in the tests' process, GX would take it for every later run (``SparkDFExecutionEngine``
asks Spark Connect's builder first).
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractWarning, annotate_rows, load_contracts, report, run_contract, split_rows
from dqx_gx.rows import ERRORS, WARNINGS
from tests.documents import odcs_document

FOREIGN_KEY = [{"name": "order_id"}, {"name": "status", "relationships": [{"to": "statuses.code"}]}]


def answers(spark: SparkSession, contract_path: str, data_path: str, now: str) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = load_contracts(contract_path)
        frame = spark.read.parquet(data_path)
        run = run_contract(contract, frame, now=now, allow_sql=True)
        marked = annotate_rows(contract, frame).select("order_id", ERRORS, WARNINGS)
        valid, quarantine = split_rows(contract, frame)
        # a foreign key: the referenced dataset is made in the same session and given to the run
        references = {"statuses": spark.createDataFrame([("pending",), ("shipped",)], "code string")}
        (keyed,) = Contract.from_odcs(odcs_document([{"name": "orders", "properties": FOREIGN_KEY}]))
        keyed_run = run_contract(keyed, frame, now=now, references=references)
        keyed_marks = annotate_rows(keyed, frame, references=references).select("order_id", WARNINGS)
    return {
        "report": json.loads(report.to_json(run)),
        "marks": _rows(marked),
        "valid": _rows(valid),
        "quarantine": _rows(quarantine),
        "foreign_key": {"report": json.loads(report.to_json(keyed_run)), "marks": _rows(keyed_marks)},
    }


def _rows(frame: DataFrame) -> list[str]:
    """Rows as sorted JSON lines (order and engine-specific Row types left out)."""
    return sorted(json.dumps(row.asDict(recursive=True), sort_keys=True, default=str) for row in frame.collect())


if __name__ == "__main__":
    url, contract_path, data_path, now = sys.argv[1:]
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("dqx_gx").setLevel(logging.INFO)  # each run's line, which counts its Spark jobs where it can
    session = SparkSession.builder.remote(url).getOrCreate()
    print(json.dumps(answers(session, contract_path, data_path, now)))
