"""Spark's code cache in a JVM the command starts: big enough for many contracts, the user's --conf first."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

KEY = "spark.sql.codegen.cache.maxEntries"
SESSION = f"""
import sys
from dqx_gx.session import Target, start_session
spark = start_session(Target(master="local[1]"), dict(a.split("=", 1) for a in sys.argv[2:]), 0)
compiled = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
run = lambda plus: spark.range(3).selectExpr(f"id * 3 + {{plus}}").collect()
run(1)
for plus in range(2, 2 + int(sys.argv[1])):  # other queries, each its own generated class
    run(plus)
before = compiled.getCount()
run(1)
print(spark.conf.get("{KEY}"), compiled.getCount() - before)
"""


@pytest.mark.slow  # three fresh interpreters and JVMs
@pytest.mark.compat
def test_a_jvm_the_command_starts_keeps_1000_generated_classes_unless_the_user_says_otherwise() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SPARK_REMOTE", "PYSPARK_GATEWAY_PORT", "SPARK_CONNECT_MODE_ENABLED")
    }
    cases = {(): 120, (f"{KEY}=7",): 120, ("spark.sql.shuffle.partitions=3",): 0}  # 120: more than Spark's 100 keep
    started = [
        subprocess.Popen(
            [sys.executable, "-c", SESSION, str(others), *given],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for given, others in cases.items()
    ]  # fresh interpreters: this one's JVM has its settings fixed already
    try:
        seen = {}
        for given, process in zip(cases, started, strict=True):
            out, err = process.communicate(timeout=600)
            assert process.returncode == 0, err
            size, compiled_again = out.split()
            seen[given] = (size, int(compiled_again) > 0)
    finally:
        for process in started:
            process.kill()
    assert seen == {
        (): ("1000", False),  # the first query's class is still kept after the 120 others
        (f"{KEY}=7",): ("7", True),  # the user's size: pushed out and compiled again
        ("spark.sql.shuffle.partitions=3",): ("1000", False),
    }
