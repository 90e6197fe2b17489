"""``dqx-gx validate`` of the README example in each lane of CI's version matrix against the default install
(issue 45: no combination more than 1.1× the default install's time).

Each lane's virtualenv (``.ci/lanes/NAME.txt``: its PySpark, GX and Python) is made once by ``.ci/lane-venv`` under
``benchmarks/data/lanes/NAME`` (pip, minutes each) and kept for later runs; the default install is this
interpreter's. Every command is a fresh process timed until the JVM it started has ended, the installs alternated
round by round, after two warm-up runs each (the second writes the JVM's class archive of that install's Spark);
the ratios are of medians, wall and CPU seconds.

Run: ``python benchmarks/bench.py --only lanes [--rounds N]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession
from startup import CONTRACT, NOW, ROOT, Took, _median, _timed

from dqx_gx.session.class_archive import SETTING

LANES = ROOT / ".ci" / "lanes"
VENVS = Path(__file__).resolve().parent / "data" / "lanes"
DATA = ROOT / "examples" / "orders" / "data" / "good.parquet"
TARGET = 1.1


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    del spark  # each command starts its own
    installs = {"default": Path(sys.executable).parent / "dqx-gx"}
    for lane in sorted(LANES.glob("*.txt")):
        venv = VENVS / lane.stem
        if not (venv / "bin" / "dqx-gx").exists():
            print(f"making {venv} (.ci/lane-venv {lane.stem}) ...", flush=True)
            subprocess.run(["bash", str(ROOT / ".ci" / "lane-venv"), lane.stem, str(venv)], check=True)
        installs[lane.stem] = venv / "bin" / "dqx-gx"
    with tempfile.TemporaryDirectory(prefix="dqx-gx-lanes-") as folder:
        here = Path(folder)
        readme = ["validate", str(CONTRACT), "--data", str(DATA), "--now", NOW]
        commands = {
            name: [str(dqx_gx), *readme, "--output-file", str(here / f"{name}.txt")]
            for name, dqx_gx in installs.items()
        }
        archive = {SETTING: str(here / "jvm")}
        for command in commands.values():
            for _ in range(2):
                _timed(command, here, archive)
        took: dict[str, list[Took]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                took[name].append(_timed(command, here, archive))
                print(f"  {name:28} {took[name][-1].wall:6.2f} s, CPU {took[name][-1].cpu:6.2f} s", flush=True)
    default = took["default"]
    print(f"\ndqx-gx validate of the README example, fresh processes, medians of {args.rounds}:")
    for name, values in took.items():
        wall = _median(values, "wall") / _median(default, "wall")
        cpu = _median(values, "cpu") / _median(default, "cpu")
        verdict = "" if name == "default" else f"   {name} / default = {wall:.2f} (target ≤ {TARGET}; CPU {cpu:.2f})"
        print(f"  {name:28} {_median(values, 'wall'):6.2f} s   CPU {_median(values, 'cpu'):6.2f} s{verdict}")
