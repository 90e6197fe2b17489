"""Start-up and the commands that need no Spark (issue 25), each in fresh processes, against its baseline or target:

- ``dqx-gx validate`` of the README example on a 1,000-row parquet file against a bare PySpark script that starts a
  local session, reads the same file and counts it (target ≤ 1.2×), alternated round by round: with the JVM's class
  archive mapped (as from a machine's third command on), without it, and once the run that writes it;
- ``dqx-gx --help`` (target ≤ 0.3 s), beside a bare ``python -c pass``;
- ``lint`` and ``coverage`` of the README example and every input error of ``validate`` (target ≤ 1 s each), each
  checked to exit as it should without importing PySpark or starting a JVM; ``lint`` of a large contract too (about
  550 property objects in arrays of objects, as a JSON-Schema import gives: :func:`_large_contract`).

Each process runs under a small reaper (Linux: a child subreaper), so its time lasts until every process it started
has ended (the JVM ends after Python, as a shell capturing the output waits for it), and its CPU seconds are
counted for Python and for the rest (the JVMs) apart: on a shared machine CPU seconds are the steadier figure.

Run: ``python benchmarks/bench.py --only startup [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx.session.class_archive import SETTING

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "orders" / "orders.odcs.yaml"  # the README example: no servers
NOW = "2026-11-22T12:00:00Z"
ROWS = 1_000
BARE = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[*]").appName("bare").getOrCreate()
print(spark.read.parquet(sys.argv[1]).count())
"""
# The command in this interpreter, saying on its last line whether it imported PySpark.
CLI = """
import atexit, runpy, sys
atexit.register(lambda: print("imported pyspark:", "pyspark" in sys.modules, file=sys.stderr))
sys.argv[0] = "dqx-gx"
runpy.run_module("dqx_gx.cli", run_name="__main__", alter_sys=True)
"""
# Runs argv[2:] as a child subreaper: the JVM, orphaned when Python exits, is reaped here too.
REAPER = """
import ctypes, json, os, resource, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
start = time.perf_counter()
with open(sys.argv[1], "w") as err:
    child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)
    _, status, own = os.wait4(child.pid, 0)
others = 0
while True:
    try:
        os.wait()
        others += 1
    except ChildProcessError:
        break
wall = time.perf_counter() - start
every = resource.getrusage(resource.RUSAGE_CHILDREN)
python = own.ru_utime + own.ru_stime
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "wall": wall, "python": python,
                  "rest": every.ru_utime + every.ru_stime - python, "others": others}))
"""


@dataclass(frozen=True)
class Took:
    """One process: its exit code, wall seconds until every process it started ended, CPU seconds."""

    code: int
    wall: float
    python: float  # CPU seconds of the Python process
    rest: float  # CPU seconds of the processes it started (the JVMs)
    others: int  # processes that outlived it (a JVM)
    stderr: str

    @property
    def cpu(self) -> float:
        return self.python + self.rest


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    rounds = args.rounds
    with tempfile.TemporaryDirectory(prefix="dqx-gx-startup-") as folder:
        here = Path(folder)
        data = str(here / "orders.parquet")
        _orders(spark, ROWS).write.parquet(data)
        _validate_against_bare(here, data, rounds)
        _without_spark(here, data, rounds)


def _validate_against_bare(here: Path, data: str, rounds: int) -> None:
    """validate as a machine runs it from its third command on (the JVM's class archive mapped), and without
    the archive, against the bare script; the run that writes the archive is timed once, until its JVM ends."""
    validate = _cli("validate", str(CONTRACT), "--data", data, "--now", NOW, "-v")
    validate += ["--output-file", str(here / "report.txt")]
    archive = {SETTING: str(here / "jvm")}
    commands = {
        "bare": ([sys.executable, "-c", BARE, data], {}),
        "validate": (validate, archive),
        "no archive": (validate, {SETTING: "off"}),
    }
    for command, environ in commands.values():  # warm-up: the OS's file cache, Python's bytecode cache
        _timed(command, here, environ)
    writing = _timed(validate, here, archive)  # the second command: its JVM writes the archive
    took: dict[str, list[Took]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (command, environ) in commands.items():
            took[name].append(_timed(command, here, environ))
            print(f"  {name:10} {took[name][-1].wall:6.2f} s, CPU {took[name][-1].cpu:6.2f} s", flush=True)
    bare, ours, plain = took["bare"], took["validate"], took["no archive"]
    print(f"\nStart-up, the README example on a {ROWS:,}-row parquet file, fresh processes, medians of {rounds}:")
    for name, values in took.items():
        print(
            f"  {name:10} {_median(values, 'wall'):6.2f} s   CPU {_median(values, 'cpu'):6.2f} s "
            f"(Python {_median(values, 'python'):5.2f}, JVM {_median(values, 'rest'):5.2f})   "
            f"rounds: {', '.join(f'{t.wall:.2f}' for t in values)}"
        )
    print(f"  the run that writes the archive (once), until its JVM ended: {writing.wall:.2f} s, CPU {writing.cpu:.2f}")
    phases = next((line for line in ours[-1].stderr.splitlines() if line.startswith("time:")), "")
    print(f"  dqx-gx validate -v, last round: {phases}")
    for label, values in (("validate", ours), ("validate, no class archive", plain)):
        wall = _median(values, "wall") / _median(bare, "wall")
        cpu = _median(values, "cpu") / _median(bare, "cpu")
        print(f"dqx-gx {label} / bare PySpark read+count = {wall:.2f} (target ≤ 1.2; CPU seconds {cpu:.2f})")
    print()


def _without_spark(here: Path, data: str, rounds: int) -> None:
    """--help, lint, coverage and each input error: the target, exit code, and no PySpark or JVM."""
    empty = here / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    keyed = here / "keyed.yaml"  # the example with one foreign key, to statuses
    keyed.write_text(
        CONTRACT.read_text().replace(
            "      - name: status\n", "      - name: status\n        relationships:\n          - to: statuses.code\n", 1
        )
    )
    validate = ("validate", str(CONTRACT), "--now", NOW)
    commands: dict[str, tuple[list[str], int, float]] = {  # the command, its exit code, the target in seconds
        "python -c pass (baseline)": ([sys.executable, "-c", "pass"], 0, 0.3),
        "--help": (_cli("--help"), 0, 0.3),
        "lint": (_cli("lint", str(CONTRACT)), 0, 1.0),
        "lint, 550 fields": (_cli("lint", str(_large_contract(here))), 0, 1.0),
        "coverage": (_cli("coverage", str(CONTRACT)), 0, 1.0),
        "missing --data path": (_cli(*validate, "--data", str(here / "missing.parquet")), 2, 1.0),
        "no servers": (_cli(*validate), 2, 1.0),
        "empty folder": (_cli(*validate, "--data", str(empty)), 2, 1.0),
        "misspelt --format": (_cli(*validate, "--data", data, "--format", "parqet"), 2, 1.0),
        "unused --reference": (
            _cli("validate", str(keyed), "--data", data, "--reference", "customers=x.csv"),
            2,
            1.0,
        ),
        "--delimiter on parquet": (_cli(*validate, "--data", data, "--delimiter", ";"), 2, 1.0),
        "parquet read as csv": (_cli(*validate, "--data", data, "--format", "csv"), 2, 1.0),
        "existing --valid": (_cli(*validate, "--data", data, "--valid", str(empty)), 2, 1.0),
    }
    for command, _, _ in commands.values():
        _timed(command, here)
    took: dict[str, list[Took]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (command, _, _) in commands.items():
            took[name].append(_timed(command, here))
    print(f"Without Spark, fresh processes, medians of {rounds}:")
    for name, (_, code, target) in commands.items():
        values = took[name]
        wall = _median(values, "wall")
        problems = [f"exit {t.code}, expected {code}" for t in values if t.code != code]
        problems += ["started a process that outlived it (a JVM)" for t in values if t.others]
        problems += ["imported PySpark" for t in values if "imported pyspark: True" in t.stderr]
        problems += ["no 'error:' line" for t in values if code == 2 and "error: " not in t.stderr]
        verdict = "met" if wall <= target else "NOT met"
        print(
            f"  {name:26} {wall:5.2f} s   CPU {_median(values, 'cpu'):5.2f} s   target ≤ {target} s: {verdict}"
            + (f"   PROBLEM: {'; '.join(sorted(set(problems)))}" if problems else "")
        )


def _large_contract(here: Path) -> Path:
    """The README example with five arrays of objects beside its columns, 110 fields each, every tenth a date
    with a format and every twentieth an array of ten more objects: 556 property objects, about 90 KB."""

    def field(name: str, i: int) -> dict[str, object]:
        if i % 20 == 19:
            inner = [field(f"{name}_{k}", k) for k in range(10)]
            return {"name": name, "logicalType": "array", "items": {"logicalType": "object", "properties": inner}}
        if i % 10 == 9:
            return {"name": name, "logicalType": "date", "logicalTypeOptions": {"format": "yyyy-MM-dd"}}
        return {"name": name, "logicalType": "string", "physicalType": "string", "description": f"The {name}."}

    document = yaml.safe_load(CONTRACT.read_text())
    for a in range(5):
        fields = [field(f"field_{a}_{i}", i) for i in range(100)]
        document["schema"][0]["properties"].append(
            {"name": f"content_{a}", "logicalType": "array", "items": {"logicalType": "object", "properties": fields}}
        )
    path = here / "large.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", CLI, *args]


def _timed(command: list[str], here: Path, environ: dict[str, str] | None = None) -> Took:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(environ or {})}
    environment.pop("SPARK_REMOTE", None)
    stderr = here / "stderr.txt"
    done = subprocess.run(
        [sys.executable, "-c", REAPER, str(stderr), *command],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    measured = json.loads(done.stdout)
    text = stderr.read_text()
    if measured["code"] not in (0, 1, 2):
        raise RuntimeError(f"{' '.join(command[:4])} exited {measured['code']}:\n{text}")
    return Took(stderr=text, **measured)


def _median(values: list[Took], field: str) -> float:
    return statistics.median(getattr(t, field) for t in values)


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
