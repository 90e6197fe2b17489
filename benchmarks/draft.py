"""Benchmark: ``dqx-gx draft``'s measuring against one hand-written aggregation of the same statistics.

On the rule benchmark's parquet data (bench.py's ``dataset``: 20 columns of ids, dates, timestamps,
arrays, strings, doubles and decimals), alternated A B A B …:

  A  dqx_gx.draft.drafting.draft_contract: the statistics aggregation, the narrow exact one for the
     columns that may be keys or have few values, and the document built from them
  B  the one ``df.agg`` a data engineer would write for the same numbers: the row count, each
     column's NULL count, min and max, NaN count, longest string, and an exact ``count(DISTINCT)``
     of every column a key could be (B lists no values: it does less than A)

Prints medians, A/B (target ≤ 1.2) and the Spark jobs each launched. The issue's size is 2,000,000
rows: ``python benchmarks/bench.py --only draft --rows 2000000`` (a shared machine: run it when quiet).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, DoubleType, FloatType, MapType, NumericType, StringType, StructType

from dqx_gx.draft.document import DraftOptions
from dqx_gx.draft.drafting import draft_contract


def hand_written(frame: DataFrame) -> Any:
    """Every statistic the draft keeps, in one aggregation, with exact distinct counts."""
    aggregates: list[Column] = [F.count(F.lit(1))]
    for field in frame.schema.fields:
        c, dt = F.col(field.name), field.dataType
        aggregates.append(F.count_if(c.isNull()))
        if isinstance(dt, ArrayType | MapType | StructType):
            continue
        if not isinstance(dt, StringType):
            aggregates += [F.min(c), F.max(c)]
        if isinstance(dt, DoubleType | FloatType):
            aggregates.append(F.count_if(F.isnan(c)))
        if isinstance(dt, StringType):
            aggregates.append(F.max(F.length(c)))
        if isinstance(dt, StringType | NumericType):
            aggregates.append(F.count_distinct(c))
    return frame.agg(*aggregates).first()


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    from bench import COLUMN_COPIES, alternate, dataset  # noqa: PLC0415 - bench.py runs as __main__ and imports this

    frame = dataset(spark, args.rows, COLUMN_COPIES)
    options = DraftOptions(name="bench", source="the benchmark's parquet data")
    methods: dict[str, Callable[[], Any]] = {
        "A": lambda: draft_contract(frame, options),
        "B": lambda: hand_written(frame),
    }
    results = alternate(spark, frame, methods, args.rounds)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    print(f"\ndraft, {args.rows:,} rows × {len(frame.columns)} columns, {args.rounds} rounds, medians:")
    for name, label in (("A", "draft_contract"), ("B", "one hand-written df.agg")):
        print(f"  {name} {label:<26} {median[name]:8.3f} s   jobs {statistics.median(results[name].jobs):4.0f}")
    print(f"  A/B = {median['A'] / median['B']:.2f} (target ≤ 1.2)")
