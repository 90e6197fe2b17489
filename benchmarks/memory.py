"""Memory and repetition (issue 16 point 5): 50 run_contract calls in one process, one GX context.

Reports the per-run time (first run, then medians of the first and last ten), the resident memory
of the driver — the Python process and, in a local session, the JVM it started — after the first,
tenth and last run, the JVM's live heap after a full collection and its threads, and what the runs
left in the GX context (datasources, assets, suites, validation definitions, checkpoints, stored
validation results) and in Spark's cache.

Spark itself keeps the history of past jobs, stages and queries in the JVM heap (UI or not), up to
``spark.ui.retainedJobs``, ``spark.ui.retainedStages`` and ``spark.sql.ui.retainedExecutions`` (1,000
each by default, more than 50 runs make): to see dqx-gx's own growth, bound them
(``--conf spark.ui.retainedJobs=20 --conf spark.ui.retainedStages=20 --conf spark.sql.ui.retainedExecutions=20``).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path
from typing import Any

import great_expectations as gx
from bench import COLUMN_COPIES, NOW, contract, dataset
from great_expectations.data_context.types.base import ProgressBarsConfig
from pyspark.sql import SparkSession

import dqx_gx

RUNS = 50
ROWS = 1_000
IDLE = 65


def rss_mib(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB: psutil when installed, else /proc (Linux); None elsewhere."""
    try:
        import psutil  # type: ignore[import-untyped]  # noqa: PLC0415  # optional, not a dependency

        return float(psutil.Process(pid).memory_info().rss) / 2**20
    except ImportError:
        pass
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


def jvm_pid(spark: SparkSession) -> int | None:
    """The pid of the JVM a local session started (None when the session is remote)."""
    process = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    return getattr(process, "pid", None)


def jvm_live_mib(spark: SparkSession) -> float:
    """The JVM heap its live objects hold, in MiB, after a full collection: what a leak would make grow (the
    JVM's resident memory also grows while its heap expands towards ``spark.driver.memory``, leak or not)."""
    jvm: Any = spark._jvm
    jvm.java.lang.System.gc()
    runtime = jvm.java.lang.Runtime.getRuntime()
    return float(runtime.totalMemory() - runtime.freeMemory()) / 2**20


def jvm_threads(spark: SparkSession) -> int:
    """Live JVM threads: Spark's block-manager pools grow to 100 threads each while it cleans up broadcasts."""
    jvm: Any = spark._jvm
    return int(jvm.java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount())


def kept_history(spark: SparkSession) -> str:
    """The settings that bound what Spark keeps of past jobs and queries (in the JVM heap, UI or not)."""
    names = ("spark.ui.retainedJobs", "spark.ui.retainedStages", "spark.sql.ui.retainedExecutions")
    return ", ".join(f"{name}={spark.conf.get(name, '1000')}" for name in names)


def left_behind(context: Any, spark: SparkSession) -> dict[str, int]:
    sources = context.data_sources.all()
    assets = [asset for source in sources.values() for asset in source.assets]
    return {
        "datasources": len(sources),
        "assets": len(assets),
        "suites": len(context.suites.all()),
        "validation definitions": len(context.validation_definitions.all()),
        "checkpoints": len(context.checkpoints.all()),
        "stored validation results": len(context.validation_results_store.list_keys()),
        "persisted RDDs": spark.sparkContext._jsc.getPersistentRDDs().size(),
    }


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """Run the 20-rule template ``RUNS`` times on 1,000 rows in one GX context and print the growth."""
    del args  # fixed size: the point is repetition, not volume
    frame = dataset(spark, ROWS, COLUMN_COPIES)
    rules = contract(1)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    processes = {"python": os.getpid(), "jvm": jvm_pid(spark)}
    memory: dict[str, list[float | None]] = {name: [] for name in processes}
    seconds = []
    live: list[float] = []
    threads: list[int] = []
    for _ in range(RUNS):
        started = time.perf_counter()
        dqx_gx.run_contract(rules, frame, now=NOW, context=context)
        seconds.append(time.perf_counter() - started)
        for name, pid in processes.items():
            memory[name].append(rss_mib(pid) if pid is not None else None)
        live.append(jvm_live_mib(spark))
        threads.append(jvm_threads(spark))
    print(f"\n{RUNS} run_contract calls, one GX context, {ROWS:,} rows, {len(rules.rules)} rules:")
    print(
        f"  per run: first {seconds[0]:.3f} s, median of runs 2–11 {statistics.median(seconds[1:11]):.3f} s, "
        f"median of the last 10 {statistics.median(seconds[-10:]):.3f} s"
    )
    for name, values in memory.items():
        first, tenth, last = values[0], values[9], values[-1]
        if first is None or tenth is None or last is None:
            print(f"  {name} RSS: not measurable here")
            continue
        print(
            f"  {name} RSS: {first:.0f} MiB after run 1, {tenth:.0f} after run 10, {last:.0f} after run {RUNS}; "
            f"growth over the last {RUNS - 10} runs {last - tenth:+.0f} MiB "
            f"({(last - tenth) / (RUNS - 10) * 1024:+.0f} KiB/run)"
        )
    print(
        f"  JVM live heap after a full GC: {live[0]:.0f} MiB after run 1, {live[9]:.0f} after run 10, "
        f"{live[29]:.0f} after run 30, {live[-1]:.0f} after run {RUNS}; growth over the last {RUNS - 10} runs "
        f"{live[-1] - live[9]:+.0f} MiB, over the last {RUNS - 30} {live[-1] - live[29]:+.0f} MiB"
    )
    time.sleep(IDLE)
    gc.collect()  # Python's proxies of JVM objects in garbage cycles, which keep those alive
    print(
        f"  JVM threads: {threads[0]} after run 1, {threads[9]} after run 10, {threads[-1]} after run {RUNS}, "
        f"{jvm_threads(spark)} after {IDLE} s idle (Spark's cached pools let an idle thread go after 60 s); "
        f"JVM live heap then {jvm_live_mib(spark):.0f} MiB"
    )
    print(f"  Spark's own history (bounded by these settings): {kept_history(spark)}")
    print(
        "  left in the context and Spark's cache: "
        + ", ".join(f"{k} {v}" for k, v in left_behind(context, spark).items())
    )
