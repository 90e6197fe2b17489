"""Start-up (issue 16 point 3): a whole ``dqx-gx validate`` on a 1,000-row parquet file against a bare
PySpark script that starts a local session, reads the same file and counts it, each in a fresh process;
and the wall time of ``dqx-gx --help``. Targets: validate ≤ 1.3× the bare script, help ≤ 1 s.

Run: ``python benchmarks/bench.py --only startup [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "orders" / "orders.odcs.yaml"
ROWS = 1_000
BARE = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[*]").appName("bare").getOrCreate()
print(spark.read.parquet(sys.argv[1]).count())
"""


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """Alternate the two processes ``rounds`` times (after one warm-up each) and print medians and ratios."""
    rounds = args.rounds
    with tempfile.TemporaryDirectory(prefix="dqx-gx-startup-") as folder:
        data = str(Path(folder) / "orders.parquet")
        _orders(spark, ROWS).write.parquet(data)
        validate = [sys.executable, "-m", "dqx_gx.cli", "validate", str(CONTRACT), "--data", data]
        validate += ["--now", "2026-11-22T12:00:00Z", "--output-file", str(Path(folder) / "report.txt")]
        commands = {
            "bare": [sys.executable, "-c", BARE, data],
            "validate": validate,
            "help": [sys.executable, "-m", "dqx_gx.cli", "--help"],
        }
        seconds: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():  # warm-up: the OS's file cache, Python's bytecode cache
            _timed(command)
        phases = ""
        for _ in range(rounds):
            for name, command in commands.items():
                took, stderr = _timed(command + (["-v"] if name == "validate" else []))
                seconds[name].append(took)
                print(f"  {name} {took:.2f} s", flush=True)
                phases = next((line for line in stderr.splitlines() if line.startswith("time:")), phases)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"\nStart-up, {ROWS:,}-row parquet file, fresh processes, medians of {rounds}:")
    for name, values in seconds.items():
        print(f"  {name:9} {median[name]:6.2f} s   ({', '.join(f'{v:.2f}' for v in values)})")
    print(f"  dqx-gx validate -v, last round: {phases}")
    print(f"dqx-gx validate / bare PySpark read+count = {median['validate'] / median['bare']:.2f} (target ≤ 1.3)")
    print(f"dqx-gx --help = {median['help']:.2f} s (target ≤ 1 s)")


def _timed(command: list[str]) -> tuple[float, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("SPARK_REMOTE", None)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command[:4])} exited {done.returncode}:\n{done.stderr}")
    return took, done.stderr


def _orders(spark: SparkSession, rows: int) -> DataFrame:
    """Rows shaped like examples/orders (the contract's columns and types), mostly valid."""
    statuses = F.array(*(F.lit(s) for s in ("pending", "shipped", "delivered", "cancelled")))
    return spark.range(1, rows + 1).select(
        F.col("id").alias("order_id"),
        F.element_at(statuses, (F.col("id") % 4 + 1).cast("int")).alias("status"),
        (F.col("id") % 500 + 10.5).alias("total_amount"),
        F.concat(F.lit("product "), (F.col("id") % 37).cast("string")).alias("product_name"),
        F.date_sub(F.lit("2026-11-21").cast("date"), (F.col("id") % 3).cast("int")).alias("order_date"),
    )
