"""Validate the example orders data through the Great Expectations Airflow provider.

The checkpoint is the one ``dqx-gx translate examples/orders/orders.odcs.yaml --gx-dir .`` stored in the
repository's ``gx/`` project. The worker needs dqx-gx installed (``pip install 'dqx-gx[airflow]'``, and
Java 17 for Spark) but this file imports nothing of it: opening the project does, because the project's
``great_expectations.yml`` names ``dqx_gx.expectations.store`` as its expectations store's module. No
parameters are passed: freshness is measured from the moment the task runs, in UTC.

A P1-P3 failure fails the task too: the provider fails on GX's all-or-nothing ``success``. Let a
P0-only gate through with ``dqx-gx validate`` (exit 1 only when a P0 rule failed) instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pendulum
from airflow.sdk import DAG
from great_expectations_provider.operators.validate_checkpoint import GXValidateCheckpointOperator

PROJECT = Path(os.environ.get("DQX_GX_PROJECT", Path(__file__).resolve().parents[2]))
"""The folder holding the GX project ``gx/`` (default: this repository)."""
DATA = Path(os.environ.get("DQX_GX_ORDERS_DATA", PROJECT / "examples" / "orders" / "data"))
CHECKPOINT = "orders_contract.orders_tbl"


def open_project() -> Any:
    import great_expectations as gx  # noqa: PLC0415 - Airflow parses this file often: GX loads when a task runs

    return gx.get_context(mode="file", project_root_dir=str(PROJECT))


class ValidateParquet(GXValidateCheckpointOperator):
    """The provider's checkpoint operator on a parquet dataset read when the task runs: a Spark DataFrame
    cannot be an argument fixed when Airflow parses this file."""

    def __init__(self, *, path: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path = path

    def execute(self, context: Any) -> None:
        from pyspark.sql import SparkSession  # noqa: PLC0415 - as GX

        spark = SparkSession.builder.config("spark.ui.enabled", "false").getOrCreate()
        self.batch_parameters = {"dataframe": spark.read.parquet(self.path)}
        super().execute(context)


with DAG(
    dag_id="dqx_gx_orders",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    tags=["dqx-gx"],
) as dag:
    for batch in ("good", "bad"):
        ValidateParquet(
            task_id=f"validate_{batch}_orders",
            path=str(DATA / f"{batch}.parquet"),
            context_type="file",
            configure_file_data_context=open_project,
            configure_checkpoint=lambda context: context.checkpoints.get(CHECKPOINT),
        )
