"""Benchmark: a foreign key (ODCS ``relationships``) against the anti-join a data engineer would write.

On the same parquet data (orders with ``--rows`` rows, customers with a tenth as many, about 1% of
the orders naming no customer and 1% with no customer at all):

  A  dqx_gx.run_contract with the foreign key only (GX checkpoint, the kind's own join query)
  B  orders LEFT ANTI JOIN customers on the key, keys not NULL, counted

alternated A B A B …. Prints medians, A/B (target ≤ 1.5) and the Spark jobs each launched. Both
count the same rows, checked before timing. Run through ``bench.py --only foreignkey``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import dqx_gx
from dqx_gx import Contract

DATA = Path(__file__).resolve().parent / "data"
FOREIGN_KEY = "foreign key customer_id → customers.id"


def datasets(spark: SparkSession, rows: int) -> tuple[DataFrame, DataFrame]:
    """Deterministic orders and customers: keys 0 … rows/10 − 1; orders name keys up to 1% beyond them."""
    customers_count = max(1, rows // 10)
    orders_path, customers_path = DATA / f"fk-orders-{rows}.parquet", DATA / f"fk-customers-{rows}.parquet"
    if not orders_path.exists():
        key = (F.col("id") * 7919) % F.lit(int(customers_count * 1.01) + 1)
        customer = F.when(F.col("id") % 100 == 0, F.lit(None)).otherwise(key)
        spark.range(rows).select(F.col("id").alias("order_id"), customer.alias("customer_id")).write.mode(
            "overwrite"
        ).parquet(str(orders_path))
        spark.range(customers_count).select(F.col("id"), (F.col("id") % 50).alias("region")).write.mode(
            "overwrite"
        ).parquet(str(customers_path))
    return spark.read.parquet(str(orders_path)), spark.read.parquet(str(customers_path))


def contract() -> Contract:
    properties = [
        {"name": "order_id", "logicalType": "integer"},
        {"name": "customer_id", "logicalType": "integer", "relationships": [{"to": "customers.id"}]},
    ]
    document = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "bench",
        "name": "bench",
        "version": "1.0.0",
        "status": "active",
        "schema": [{"name": "orders", "properties": properties}],
    }
    (loaded,) = Contract.from_odcs(document)
    # the foreign key alone: the type rules would add GX's passes beside it
    return dataclasses.replace(loaded, rules=tuple(r for r in loaded.rules if r.name == FOREIGN_KEY))


def anti_join(orders: DataFrame, customers: DataFrame) -> int:
    missing = orders.join(customers, orders["customer_id"] == customers["id"], "left_anti")
    return missing.where(F.col("customer_id").isNotNull()).count()


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    from bench import alternate  # noqa: PLC0415 - here: bench.py runs as __main__ and imports this module

    orders, customers = datasets(spark, args.rows)
    rules = contract()
    references = {"customers": customers}

    def ours() -> int:
        (result,) = dqx_gx.run_contract(rules, orders, references=references, samples=0).rule_results
        return int(result.observed)

    counted = {ours(), anti_join(orders, customers)}
    assert len(counted) == 1, f"the two count different rows: {counted}"
    results = alternate(spark, orders, {"A": ours, "B": lambda: anti_join(orders, customers)}, args.rounds)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    print(f"\nforeign key, {args.rows:,} orders, {max(1, args.rows // 10):,} customers, {counted.pop():,} missing, "
          f"{args.rounds} rounds, medians:")  # fmt: skip
    for name, label in (("A", "run_contract (foreign key only)"), ("B", "LEFT ANTI JOIN, counted")):
        jobs = statistics.median(results[name].jobs)
        print(f"  {name} {label:<32} {median[name]:8.3f} s   jobs {jobs:4.0f}")
    print(f"  A/B = {median['A'] / median['B']:.2f} (target ≤ 1.5)")
