"""Benchmark: hand-written DQX checks beside a contract, against the contract alone.

On the benchmark's parquet data (``bench.py``'s dataset, ``--rows`` rows) and its 20-rule contract:

  A  dqx_gx.run_contract(contract, frame)
  B  dqx_gx.run_contract(contract, frame, checks=[ten assertions])

alternated A B A B …. The ten assertions (one @check) read the metrics a team adds by hand: shares, ratios,
a duplicate count over two columns, a distinct count, a mean against a maximum. They share the contract's
Spark passes, so B/A should stay near 1 (target ≤ 1.1). Prints medians, B/A, the Spark jobs and JVM CPU of
each, and checks first that B's results are A's plus the ten. Run through
``bench.py --only checks --rows 2000000``.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from dqx.api import check
from pyspark.sql import SparkSession

import dqx_gx

ASSERTIONS = 10


@check(name="By hand", datasets=["batch"])
def by_hand(mp: Any, ctx: Any) -> None:
    a = ctx.assert_that
    a(mp.num_rows()).config(name="rows", severity="P0").is_positive()
    a(mp.null_count("name0") / mp.num_rows()).config(name="names given").is_lt(0.05)
    a(mp.null_count("score0") / mp.num_rows()).config(name="scores given").is_lt(0.1)
    a(mp.average("amount0") / mp.maximum("amount0")).config(name="mean below max").is_between(0.2, 0.8)
    a(mp.minimum("amount0")).config(name="no negative amount", severity="P0").is_geq(0)
    a(mp.sum("price0") / mp.num_rows()).config(name="mean price").is_gt(1)
    a(mp.count_values("status0", ["pending", "processing"])).config(name="open orders").noop()
    a(mp.duplicate_count(["customer_id", "day"])).config(name="customer days repeated").is_geq(0)
    a(mp.unique_count("status1")).config(name="statuses").is_leq(10)
    a(mp.variance("score1")).config(name="score spread", severity="P2").is_positive()


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    from bench import COLUMN_COPIES, alternate, contract, dataset  # noqa: PLC0415 - bench.py runs as __main__

    frame = dataset(spark, args.rows, COLUMN_COPIES)
    rules = contract(1)

    def alone() -> Any:
        return dqx_gx.run_contract(rules, frame, samples=0)

    def with_checks() -> Any:
        return dqx_gx.run_contract(rules, frame, samples=0, checks=[by_hand])

    a, b = alone().results, with_checks().results
    assert [(r.assertion, r.status) for r in b[: len(a)]] == [(r.assertion, r.status) for r in a]
    assert len(b) == len(a) + ASSERTIONS and all(r.status != "SKIPPED" for r in b[len(a) :]), b[len(a) :]
    results = alternate(spark, frame, {"A": alone, "B": with_checks}, args.rounds)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    print(f"\nhand-written checks, {args.rows:,} rows, {len(a)} rules, {args.rounds} rounds, medians:")
    for name, label in (("A", "the contract alone"), ("B", f"the contract and {ASSERTIONS} assertions")):
        jobs, cpu = statistics.median(results[name].jobs), statistics.median(results[name].cpu)
        print(f"  {name} {label:<36} {median[name]:8.3f} s   jobs {jobs:4.0f}   JVM CPU {cpu:6.2f} s")
    print(f"  B/A = {median['B'] / median['A']:.2f} (target ≤ 1.1)")
