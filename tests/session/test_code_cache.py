"""Spark's code cache in a JVM the command starts: big enough for many contracts, the user's --conf first."""

from __future__ import annotations

import os
import subprocess
import sys

KEY = "spark.sql.codegen.cache.maxEntries"
SESSION = f"""
import sys
from dqx_gx.session import Target, start_session
spark = start_session(Target(master="local[1]"), dict(a.split("=", 1) for a in sys.argv[1:]), 0)
print(spark.conf.get("{KEY}"), spark.sparkContext.getConf().get("{KEY}"))
"""


def test_a_jvm_the_command_starts_keeps_1000_generated_classes_unless_the_user_says_otherwise() -> None:
    env = {**os.environ}
    env.pop("SPARK_REMOTE", None)
    started = {
        given: subprocess.Popen(
            [sys.executable, "-c", SESSION, *given], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for given in [(), (f"{KEY}=7",), ("spark.sql.shuffle.partitions=3",)]
    }  # fresh interpreters: this one's JVM has its settings fixed already
    seen = {}
    for given, process in started.items():
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        seen[given] = out.split()
    assert seen == {
        (): ["1000", "1000"],  # Spark's own default is 100
        (f"{KEY}=7",): ["7", "7"],
        ("spark.sql.shuffle.partitions=3",): ["1000", "1000"],
    }
