"""Exact percentiles against ``percentile_approx`` (issue 16 point 1).

The rule suites of ``bench.contract`` (one p95 per copy of the columns) through ``run_contract``
twice, alternated so that a noisy machine slows both alike:

  E  as shipped: the exact percentile docs/semantics.md, 'The reference: DQX itself' asks for
     (DuckDB's ``QUANTILE_CONT``)
  Q  the same run with the percentile kind's aggregate swapped for Spark's ``percentile_approx``
     (default accuracy), for this measurement only

The target is E/Q ≤ 1.5. Before the suites, Spark's work alone on one column (hand-written
``df.agg``): the exact ``percentile`` (a sort), ``percentile_approx``, and the bracket with its
refining pass. Usage (from the repository root):

  python benchmarks/bench.py --only percentile --rows 5000000 --rounds 3 --rules 20
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from bench import COLUMN_COPIES, alternate, contract, dataset, method_a
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx.kinds import MetricKind
from dqx_gx.spark import quantiles
from dqx_gx.spark import text as S
from dqx_gx.spark.expressions import with_nan_flag
from dqx_gx.spark.kinds import SPARK, On
from dqx_gx.spark.text import Sql


def _approximate(on: On) -> Sql:
    return with_nan_flag(S.call("percentile_approx", on.column.cast("double"), float(on.metric.percentile or 0.0)))


@contextmanager
def approximate_percentiles() -> Iterator[None]:
    """The percentile kind computed by ``percentile_approx`` in the first pass, for the block only."""
    exact = SPARK[MetricKind.PERCENTILE]
    SPARK[MetricKind.PERCENTILE] = replace(exact, aggregate=_approximate, refine=None)  # type: ignore[index]
    try:
        yield
    finally:
        SPARK[MetricKind.PERCENTILE] = exact  # type: ignore[index]


def spark_work(spark: SparkSession, frame: DataFrame, rounds: int) -> None:
    """Spark's work alone on one column, hand-written: the exact percentile as the first pass held it
    before (a sort), percentile_approx, and the bracket plus its one refining pass (two df.agg)."""
    column = F.col("amount0")
    amount = S.named("amount0")

    def refined() -> Any:
        bounds = frame.agg(quantiles.bracket(amount, 0.95).column()).first()[0]  # type: ignore[index]
        return frame.agg(quantiles.order_statistics(amount, bounds, frame.schema["amount0"]).column()).first()

    methods: dict[str, Callable[[], Any]] = {
        "S": lambda: frame.agg(F.percentile(column, F.lit(0.95))).first(),
        "P": lambda: frame.agg(F.percentile_approx(column, F.lit(0.95))).first(),
        "R": refined,
    }
    results = alternate(spark, frame, methods, rounds)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    print(f"\none p95 alone, hand-written, {frame.count():,} rows, {rounds} rounds, medians:")
    for name, label in [("S", "exact percentile (sort)"), ("P", "percentile_approx"), ("R", "bracket + refining pass")]:
        print(f"  {name} {label:<26} {median[name]:8.3f} s")
    print(f"  S/P = {median['S'] / median['P']:.2f}   R/P = {median['R'] / median['P']:.2f}")


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    frame = dataset(spark, args.rows, COLUMN_COPIES)
    spark_work(spark, frame, args.rounds)
    for copies in [{20: 1, 60: 3}[rules] for rules in (args.rules or (20,))]:
        rules = contract(copies)

        def exact(rules: Any = rules) -> Any:
            return method_a(frame, rules)

        def approximate(rules: Any = rules) -> Any:
            with approximate_percentiles():
                return method_a(frame, rules)

        methods: dict[str, Callable[[], Any]] = {"E": exact, "Q": approximate}
        results = alternate(spark, frame, methods, args.rounds)
        median = {name: statistics.median(m.seconds) for name, m in results.items()}
        print(
            f"\npercentiles, {args.rows:,} rows, {len(rules.rules)} rules ({copies} percentile"
            f"{'s' if copies > 1 else ''}), {args.rounds} rounds, medians:"
        )
        for name, label in [("E", "exact (QUANTILE_CONT)"), ("Q", "percentile_approx")]:
            print(f"  {name} {label:<24} {median[name]:8.3f} s   jobs {statistics.median(results[name].jobs):4.0f}")
        print(f"  E/Q = {median['E'] / median['Q']:.2f} (target ≤ 1.5)")
