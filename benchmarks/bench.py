"""Benchmark: what a contract costs on Spark, against hand-written Spark and against plain GX.

Three ways to check the same rules on the same parquet data, on one SparkSession,
alternated A B C A B C … so that a noisy machine slows all three alike:

  A  dqx_gx.run_contract (GX checkpoint, dqx-gx's bundled metrics)
  B  a hand-written PySpark plan computing the same numbers with the fewest scans:
     one aggregate pass, plus one grouping per distinct-based metric
  C  the same rules as GX built-in expectations with GX's default settings

Medians are printed with the ratios A/B and C/A, the Spark jobs each launched, and
whether the caller's DataFrame was left cached. Usage (from the repository root):

  python benchmarks/bench.py                     # 5,000,000 rows, 20 and 60 rules, and 1,000 rows
  python benchmarks/bench.py --rows 1000000 --rounds 5 --rules 20
  python benchmarks/bench.py --only race          # against Databricks DQX and GX built-ins (race.py)
  python benchmarks/bench.py --only memory        # 50 runs in one process (memory.py)
  python benchmarks/bench.py --only draft --rows 2000000   # dqx-gx draft against one aggregation (draft.py)
  python benchmarks/bench.py --only lanes --rounds 5   # validate in each CI version lane / the default (lanes.py)
  python benchmarks/bench.py --only service       # dqx-gx serve: a warm run against validate, polls (service.py)
  python benchmarks/bench.py --only checks --rows 2000000  # a contract with 10 hand-written assertions (checks.py)
  python benchmarks/bench.py --only scaling       # 1,000 to 20,000,000 rows against the hand plan, plotted (scaling.py)
  python benchmarks/bench.py --only race --rows 200000 --small-batch-bytes 33554432  # one partition below 32 MiB
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import importlib
import itertools
import os
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import great_expectations as gx
import great_expectations.expectations as gxe
from great_expectations.data_context.types.base import ProgressBarsConfig
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

import dqx_gx
from dqx_gx import Contract, ContractWarning
from dqx_gx.rows import split_annotated
from dqx_gx.rows.choices import Output
from dqx_gx.rows.gate import gated
from dqx_gx.rows.outputs import write_outputs
from dqx_gx.spark import small_batch

DATA = Path(__file__).resolve().parent / "data"
NOW = dt.datetime(2026, 11, 22, 12, tzinfo=dt.UTC)
STATUSES = ["pending", "processing", "shipped", "delivered", "cancelled"]


# --- data ----------------------------------------------------------------------------------------------


def dataset(spark: SparkSession, rows: int, copies: int) -> DataFrame:
    """Deterministic data (hashes of the row number, no randomness), written once to parquet."""
    path = DATA / f"rows-{rows}-copies-{copies}.parquet"
    if not path.exists():
        h = F.abs(F.xxhash64(F.col("id")))
        columns: list[Column] = [
            F.col("id"),
            (F.col("id") % 1000).cast("int").alias("customer_id"),
            F.date_add(F.lit(dt.date(2026, 1, 1)), (h % 325).cast("int")).alias("day"),
            F.timestamp_seconds(F.lit(1_763_000_000) + h % 1_000_000).alias("ts"),
            F.array(*[F.lit(t) for t in ("a", "b")]).alias("tags"),
        ]
        for copy in range(copies):
            k = F.abs(F.xxhash64(F.col("id"), F.lit(copy)))
            columns += [
                F.when(k % 97 == 0, None)
                .when(k % 101 == 0, "N/A")
                .otherwise(F.concat(F.lit("user"), (k % 50_000).cast("string")))
                .alias(f"name{copy}"),
                F.element_at(F.array(*[F.lit(s) for s in STATUSES]), (k % 5 + 1).cast("int")).alias(f"status{copy}"),
                ((k % 1_000_000) / 1000.0).alias(f"amount{copy}"),
                ((k % 100_000) / 100).cast("decimal(12,2)").alias(f"price{copy}"),
                F.when(k % 20 == 0, None).otherwise((k % 10_000) / 100.0).alias(f"score{copy}"),
            ]
        spark.range(rows).select(*columns).write.mode("overwrite").parquet(str(path))
    return spark.read.parquet(str(path))


# --- the rules, three ways ---------------------------------------------------------------------------------


def contract(copies: int) -> Contract:
    """About 20 rules per copy of the columns, touching every kind of metric."""
    return loaded(template(copies))


def template(copies: int) -> dict[str, Any]:
    """The ODCS document of :func:`contract`, for benchmarks that run a variant of it."""
    properties: list[dict[str, Any]] = [
        {
            "name": "id",
            "logicalType": "integer",
            "required": True,
            "quality": [{"name": "id unique", "metric": "duplicateValues", "mustBe": 0}],
        },
        {"name": "customer_id", "logicalType": "integer"},
        {"name": "day", "logicalType": "date"},
        {"name": "ts", "logicalType": "timestamp"},
        {"name": "tags", "logicalType": "array", "items": {"logicalType": "string"}},
    ]
    for c in range(copies):
        properties += [
            {
                "name": f"name{c}",
                "logicalType": "string",
                "quality": [
                    {"name": f"name{c} nulls", "metric": "nullValues", "mustBeLessThan": 5, "unit": "percent"},
                    {
                        "name": f"name{c} missing",
                        "metric": "missingValues",
                        "arguments": {"missingValues": [None, "", "N/A"]},
                        "mustBeLessThan": 5,
                        "unit": "percent",
                    },
                    {
                        "name": f"name{c} pattern",
                        "metric": "invalidValues",
                        "arguments": {"pattern": "^user[0-9]+$"},
                        "mustBeLessThan": 5,
                        "unit": "percent",
                    },
                    dqx(
                        f"name{c} length",
                        {"check": "avg_length", "column": f"name{c}", "column_type": "string"},
                        mustBeBetween=[3, 20],
                    ),
                ],
            },
            {
                "name": f"status{c}",
                "logicalType": "string",
                "required": True,
                "quality": [
                    {
                        "name": f"status{c} valid",
                        "metric": "invalidValues",
                        "arguments": {"validValues": STATUSES},
                        "mustBe": 0,
                    },
                    dqx(
                        f"status{c} cardinality",
                        {"check": "cardinality", "column": f"status{c}"},
                        mustBeLessOrEqualTo=10,
                    ),
                    {
                        "name": f"status{c} not null (GX)",
                        "type": "custom",
                        "engine": "greatExpectations",
                        "implementation": {"type": "expect_column_values_to_not_be_null"},
                    },
                ],
            },
            {
                "name": f"amount{c}",
                "logicalType": "number",
                "quality": [
                    dqx(f"amount{c} min", {"check": "min", "column": f"amount{c}"}, mustBeGreaterOrEqualTo=0),
                    dqx(f"amount{c} max", {"check": "max", "column": f"amount{c}"}, mustBeLessOrEqualTo=1000),
                    dqx(f"amount{c} mean", {"check": "mean", "column": f"amount{c}"}, mustBeBetween=[100, 900]),
                    dqx(f"amount{c} stddev", {"check": "stddev", "column": f"amount{c}"}, mustBeLessThan=1000),
                    dqx(
                        f"amount{c} p95",
                        {"check": "percentile", "column": f"amount{c}", "percentile": 0.95},
                        mustBeLessOrEqualTo=1000,
                    ),
                ],
            },
            {
                "name": f"price{c}",
                "logicalType": "number",
                "quality": [dqx(f"price{c} sum", {"check": "sum", "column": f"price{c}"}, mustBeGreaterThan=0)],
            },
            {"name": f"score{c}", "logicalType": "number"},
        ]
    quality = [
        {"name": "rows", "metric": "rowCount", "mustBeGreaterOrEqualTo": 1},
        {
            "name": "customer per day unique",
            "metric": "duplicateValues",
            "arguments": {"properties": ["customer_id", "day"]},
            "mustBeGreaterOrEqualTo": 0,
        },
        dqx(
            "tags max length", {"check": "max_length", "column": "tags", "column_type": "list"}, mustBeLessOrEqualTo=10
        ),
    ]
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "benchmark",
        "name": "benchmark",
        "version": "1",
        "status": "active",
        "slaProperties": [{"property": "latency", "value": 5000, "unit": "d", "element": "batch.ts"}],
        "schema": [{"name": "batch", "properties": properties, "quality": quality}],
    }


def loaded(document: dict[str, Any]) -> Contract:
    """The one contract of a benchmark's ODCS document, its lint warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (rules,) = Contract.from_odcs(document)
    return rules


def dqx(name: str, implementation: dict[str, Any], **operator: Any) -> dict[str, Any]:
    return {"name": name, "type": "custom", "engine": "dqx", "implementation": {**implementation, **operator}}


def method_a(frame: DataFrame, rules: Contract) -> Any:
    return dqx_gx.run_contract(rules, frame, now=NOW).results


def method_b(frame: DataFrame, copies: int) -> dict[str, Any]:
    """The same numbers by hand: one aggregate pass, one grouping per distinct-based metric."""
    aggregates: list[Column] = [F.count(F.lit(1)).alias("rows"), F.count_if(F.col("id").isNull()).alias("id_nulls")]
    for c in range(copies):
        name, status, amount = F.col(f"name{c}"), F.col(f"status{c}"), F.col(f"amount{c}")
        aggregates += [
            F.count_if(name.isNull()).alias(f"n{c}"),
            F.count_if(name.isin("", "N/A")).alias(f"m{c}"),
            F.count_if(name.rlike("^user[0-9]+$")).alias(f"p{c}"),
            F.avg(F.length(name)).alias(f"l{c}"),
            F.count_if(status.isin(*STATUSES)).alias(f"v{c}"),
            F.count_if(status.isNull()).alias(f"sn{c}"),
            F.min(amount).alias(f"min{c}"),
            F.max(amount).alias(f"max{c}"),
            F.avg(amount).alias(f"mean{c}"),
            F.stddev_samp(amount).alias(f"sd{c}"),
            F.percentile(amount, F.lit(0.95)).alias(f"p95{c}"),
            F.sum(F.col(f"price{c}")).alias(f"sum{c}"),
        ]
    aggregates += [F.max(F.size("tags")).alias("tags"), F.max("ts").alias("newest")]
    numbers = frame.agg(*aggregates).first().asDict()  # type: ignore[union-attr]
    numbers["id_distinct"] = frame.select("id").distinct().count()
    numbers["key_distinct"] = frame.select(F.struct("customer_id", "day")).distinct().count()
    for c in range(copies):
        numbers[f"status{c}_distinct"] = (
            frame.select(f"status{c}").where(F.col(f"status{c}").isNotNull()).distinct().count()
        )
    numbers["schema"] = frame.schema.simpleString()
    return numbers


def method_c(frame: DataFrame, copies: int) -> Any:
    """The rules as GX built-ins, written as a GX user would, with GX's defaults."""
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)  # output only
    batch = (
        context.data_sources.add_spark("spark").add_dataframe_asset("batch").add_batch_definition_whole_dataframe("all")
    )
    expectations: list[Any] = [
        gxe.ExpectTableRowCountToBeBetween(min_value=1),
        gxe.ExpectColumnValuesToBeUnique(column="id"),
        gxe.ExpectColumnValuesToNotBeNull(column="id"),
        gxe.ExpectCompoundColumnsToBeUnique(column_list=["customer_id", "day"], mostly=0.0),
        gxe.ExpectColumnMaxToBeBetween(column="ts", min_value=dt.datetime(2000, 1, 1)),
    ]
    for name, lt in [("id", "LongType"), ("day", "DateType"), ("ts", "TimestampType")]:
        expectations.append(gxe.ExpectColumnValuesToBeOfType(column=name, type_=lt))
    for c in range(copies):
        expectations += [
            gxe.ExpectColumnValuesToNotBeNull(column=f"name{c}", mostly=0.95),
            gxe.ExpectColumnValuesToNotBeInSet(column=f"name{c}", value_set=["", "N/A"], mostly=0.95),
            gxe.ExpectColumnValuesToMatchRegex(column=f"name{c}", regex="^user[0-9]+$", mostly=0.95),
            gxe.ExpectColumnValueLengthsToBeBetween(column=f"name{c}", min_value=3, max_value=20, mostly=0.9),
            gxe.ExpectColumnValuesToBeInSet(column=f"status{c}", value_set=STATUSES),
            gxe.ExpectColumnUniqueValueCountToBeBetween(column=f"status{c}", max_value=10),
            gxe.ExpectColumnValuesToNotBeNull(column=f"status{c}"),
            gxe.ExpectColumnMinToBeBetween(column=f"amount{c}", min_value=0),
            gxe.ExpectColumnMaxToBeBetween(column=f"amount{c}", max_value=1000),
            gxe.ExpectColumnMeanToBeBetween(column=f"amount{c}", min_value=100, max_value=900),
            gxe.ExpectColumnStdevToBeBetween(column=f"amount{c}", max_value=1000),
            gxe.ExpectColumnQuantileValuesToBeBetween(
                column=f"amount{c}", quantile_ranges={"quantiles": [0.95], "value_ranges": [[0, 1000]]}
            ),
            gxe.ExpectColumnSumToBeBetween(column=f"price{c}", min_value=0),
            gxe.ExpectColumnValuesToBeOfType(column=f"amount{c}", type_="DoubleType"),
        ]
    suite = context.suites.add(gx.ExpectationSuite(name="c", expectations=expectations))
    validation = context.validation_definitions.add(gx.ValidationDefinition(name="c", data=batch, suite=suite))
    return validation.run(batch_parameters={"dataframe": frame})


# --- measuring --------------------------------------------------------------------------------------------


_GROUPS = itertools.count()
"""Spark job groups are never reused: a group's job list covers every job ever run in it."""


@dataclass
class Measured:
    seconds: list[float]
    jobs: list[int]
    left_cached: bool = False
    cpu: list[float] = field(default_factory=list)
    """CPU seconds the local JVM spent (all of Spark's work here): less sensitive than wall time to a
    machine shared with other loads."""
    in_jobs: list[float] = field(default_factory=list)
    """Seconds during which any of Spark's jobs ran (submission to completion): the part of a run no code
    around Spark can take away (query planning before a job is not counted)."""
    compiled: list[int] = field(default_factory=list)
    """Classes Spark generated and compiled during the run: none when its code cache (100 entries by
    default, ``spark.sql.codegen.cache.maxEntries``) still holds the run's plans from the round before."""
    tasks: list[int] = field(default_factory=list)
    """Tasks the run's Spark jobs ran (a stage whose shuffle output an earlier job of the query wrote is skipped,
    its tasks not run)."""

    def keep_fastest(self, runs: Measured) -> None:
        keep_fastest(self, runs, runs.seconds)
        self.left_cached = self.left_cached or runs.left_cached


def keep_fastest(figures: Any, runs: Any, wall: list[float]) -> None:
    """Add the fastest of ``runs`` (by its ``wall`` times; the least disturbed by the machine, as ``timeit``
    advises) to ``figures`` as one figure, with that run's own jobs, CPU and the rest: every list field of the
    two dataclasses."""
    fastest = wall.index(min(wall))
    for each in dataclasses.fields(figures):
        if isinstance(mine := getattr(figures, each.name), list):
            mine.append(getattr(runs, each.name)[fastest])


def jvm_cpu_seconds(spark: SparkSession) -> float:
    """User + system CPU time of the JVM a local session started (0 where /proc or the JVM is not at hand)."""
    pid = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    stat = Path(f"/proc/{getattr(pid, 'pid', 0)}/stat")
    if pid is None or not stat.exists():
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def compilations_of(spark: SparkSession) -> Any:
    """Spark's histogram of code compilations (its count: classes compiled so far in this JVM)."""
    jvm: Any = spark._jvm
    return jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()


def measure(spark: SparkSession, frame: DataFrame, label: str, run: Callable[[], Any], record: Measured) -> None:
    group = in_new_group(spark, label)
    compilations = compilations_of(spark)
    compiled = compilations.getCount()
    cpu = jvm_cpu_seconds(spark)
    started = time.perf_counter()
    run()
    record.seconds.append(time.perf_counter() - started)
    record.cpu.append(jvm_cpu_seconds(spark) - cpu)
    record.compiled.append(compilations.getCount() - compiled)
    jobs = jobs_of(spark, group)
    record.jobs.append(len(jobs))
    record.in_jobs.append(job_seconds(spark, jobs))
    record.tasks.append(tasks_of(spark, jobs))
    record.left_cached = record.left_cached or frame.is_cached
    frame.unpersist()  # the next method starts from the same uncached data


def in_new_group(spark: SparkSession, label: str) -> str:
    """Put the Spark jobs this thread starts from now on into a job group of their own, and name it."""
    group = f"bench-{label}-{next(_GROUPS)}"
    spark.sparkContext.setJobGroup(group, label)
    return group


def jobs_of(spark: SparkSession, group: str) -> list[int]:
    """The ids of the Spark jobs run in ``group``, which this thread leaves (a new job goes elsewhere)."""
    spark.sparkContext.setJobGroup("bench-idle", "idle")
    tracker = spark.sparkContext.statusTracker()
    jobs = tracker.getJobIdsForGroup(group)
    for _ in range(20):  # the tracker is updated asynchronously
        time.sleep(0.05)
        latest = tracker.getJobIdsForGroup(group)
        if len(latest) == len(jobs):
            break
        jobs = latest
    return list(jobs)


def each_round(top: list[float], bottom: list[float]) -> str:
    """Every round's ratio (its two runs measured one after the other), in round order."""
    return " ".join(f"{t / b:.2f}" for t, b in zip(top, bottom, strict=True))


COLUMN_COPIES = 3
"""Every dataset holds three copies of the varied columns, so 20 and 60 rules read the same data."""


def job_seconds(spark: SparkSession, jobs: list[int]) -> float:
    """How long any of ``jobs`` was running (the union of their spans, so jobs that overlap count once),
    from Spark's status store, which its listener fills a moment after each job ends."""
    store: Any = spark.sparkContext._jsc.sc().statusStore()  # type: ignore[union-attr]
    for _ in range(40):
        spans = [store.job(job) for job in jobs]
        if all(s.completionTime().isDefined() for s in spans):
            break
        time.sleep(0.05)
    else:
        print(f"  (some of jobs {jobs} had not ended after 2 s: their time is not counted)")
    ended = sorted(
        (s.submissionTime().get().getTime(), s.completionTime().get().getTime())
        for s in spans
        if s.submissionTime().isDefined() and s.completionTime().isDefined()
    )
    total, reached = 0, None
    for start, end in ended:
        if reached is None or start > reached:
            total, reached = total + end - start, end
        elif end > reached:
            total, reached = total + end - reached, end
    return total / 1000


def tasks_of(spark: SparkSession, jobs: list[int]) -> int:
    """The tasks ``jobs`` ran, from Spark's status store (once :func:`job_seconds` has waited for them to end)."""
    store: Any = spark.sparkContext._jsc.sc().statusStore()  # type: ignore[union-attr]
    return sum(store.job(job).numCompletedTasks() for job in jobs)


def alternate(
    spark: SparkSession, frame: DataFrame, methods: dict[str, Callable[[], Any]], rounds: int, repeat: int = 1
) -> dict[str, Measured]:
    """Each method once to warm up (JIT, caches, imports), then ``rounds`` rounds taking turns, so a
    noisy machine's drift falls on every method alike. In a round each method runs ``repeat`` times, the
    methods still taking turns (A B A B …), and the round's figure of each is its fastest run: a run of
    well under a second is lengthened at random by a garbage collection or the scheduler, never shortened."""
    results = {name: Measured([], []) for name in methods}
    for name, run in methods.items():
        measure(spark, frame, f"warmup-{name}", run, Measured([], []))
    for _ in range(rounds):
        runs = {name: Measured([], []) for name in methods}
        for _ in range(repeat):
            for name, run in methods.items():
                measure(spark, frame, name, run, runs[name])
        for name, measured in runs.items():
            results[name].keep_fastest(measured)
    return results


def in_a_round(repeat: int) -> str:
    """How a round's figure of each method was taken, for the printed heading."""
    return "one run of each method" if repeat == 1 else f"each method's fastest of {repeat} runs, taking turns"


def compare(spark: SparkSession, rows: int, copies: int, rounds: int, repeat: int = 1) -> dict[str, Measured]:
    frame = dataset(spark, rows, COLUMN_COPIES)
    rules = contract(copies)
    methods: dict[str, Callable[[], Any]] = {
        "A": lambda: method_a(frame, rules),
        "B": lambda: method_b(frame, copies),
        "C": lambda: method_c(frame, copies),
    }
    results = alternate(spark, frame, methods, rounds, repeat)
    distinct = sum(r.metric.kind.value in ("duplicate_count", "cardinality") for r in rules.metric_rules)
    a, b, c = (statistics.median(results[m].seconds) for m in "ABC")
    print(
        f"\n{rows:,} rows × {len(frame.columns)} columns, {len(rules.rules)} rules ({distinct} distinct-based), "
        f"{rounds} rounds ({in_a_round(repeat)}), medians:"
    )
    for name, label in [("A", "run_contract"), ("B", "hand-written Spark"), ("C", "GX built-ins, defaults")]:
        m = results[name]
        print(
            f"  {name} {label:<24} {statistics.median(m.seconds):8.3f} s   jobs {statistics.median(m.jobs):4.0f}   "
            f"left the DataFrame cached: {'yes' if m.left_cached else 'no'}"
        )
    print(
        f"  A/B = {a / b:.2f}   C/A = {c / a:.2f}   jobs(A) ≤ 2 + {distinct} distinct-based: "
        f"{'yes' if statistics.median(results['A'].jobs) <= 2 + distinct else 'NO'}"
    )
    return results


# --- the row gate -----------------------------------------------------------------------------------------


def row_rules() -> Contract:
    """Five row-level rules, as a quarantine job would have (the same five run against Databricks DQX):
    not-null, in-list, regex, range and uniqueness; the regex fails on the 1% 'N/A' names."""
    properties: list[dict[str, Any]] = [
        {"name": "id", "logicalType": "integer", "unique": True},
        {
            "name": "status0",
            "logicalType": "string",
            "required": True,
            "quality": [
                {
                    "name": "status valid",
                    "metric": "invalidValues",
                    "arguments": {"validValues": STATUSES},
                    "mustBe": 0,
                    "severity": "error",
                },
            ],
        },
        {
            "name": "name0",
            "logicalType": "string",
            "quality": [
                {
                    "name": "name pattern",
                    "metric": "invalidValues",
                    "arguments": {"pattern": "^user[0-9]+$"},
                    "mustBe": 0,
                    "severity": "error",
                },
            ],
        },
        {"name": "amount0", "logicalType": "number", "logicalTypeOptions": {"minimum": 0, "maximum": 1000}},
    ]
    document = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "gate",
        "name": "gate",
        "version": "1",
        "status": "active",
        "schema": [{"name": "batch", "properties": properties}],
    }
    return loaded(document)


def gate(spark: SparkSession, rows: int, rounds: int, repeat: int = 1) -> None:
    """The gate against a plain copy, and a failing run's samples against none."""
    frame = dataset(spark, rows, COLUMN_COPIES)
    rules = row_rules()
    out = DATA / "out"

    verdict = dqx_gx.run_contract(rules, frame, now=NOW, samples=0)  # the command's run, unmeasured

    def split_and_write() -> None:  # as the command does after its run: marked once, placed, written
        with gated(rules, frame, cache=False) as marked:
            valid, quarantine = split_annotated(marked.annotated(verdict))
            write_outputs(
                [(valid, Output(str(out / "valid"))), (quarantine, Output(str(out / "quarantine")))],
                "parquet",
                overwrite=True,
            )

    methods: dict[str, Callable[[], Any]] = {
        "G": split_and_write,
        "P": lambda: frame.write.mode("overwrite").parquet(str(out / "copy")),
        "S": lambda: dqx_gx.run_contract(rules, frame, now=NOW, samples=5),
        "N": lambda: dqx_gx.run_contract(rules, frame, now=NOW, samples=0),
    }
    out.mkdir(parents=True, exist_ok=True)
    results = alternate(spark, frame, methods, rounds, repeat)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    cpu = {name: statistics.median(m.cpu) for name, m in results.items()}
    print(
        f"\nrow gate, {rows:,} rows, 5 row-level rules (1% of rows quarantined), {rounds} rounds "
        f"({in_a_round(repeat)}), medians:"
    )
    for name, label in [
        ("G", "annotate + split + write both"),
        ("P", "plain read + write"),
        ("S", "failing run, samples=5"),
        ("N", "failing run, samples=0"),
    ]:
        print(
            f"  {name} {label:<30} {median[name]:8.3f} s   JVM CPU {cpu[name]:7.3f} s   "
            f"jobs {statistics.median(results[name].jobs):4.0f}"
        )
    print(
        f"  G/P = {median['G'] / median['P']:.2f} (target ≤ 1.5; JVM CPU {cpu['G'] / cpu['P']:.2f})   "
        f"S/N = {median['S'] / median['N']:.2f} (target ≤ 1.2; JVM CPU {cpu['S'] / cpu['N']:.2f})"
    )
    print(f"  each round: G/P {each_round(results['G'].seconds, results['P'].seconds)}")
    print(f"  each round: S/N {each_round(results['S'].seconds, results['N'].seconds)}")


TOPICS = (
    "startup",
    "completeness",
    "race",
    "memory",
    "percentile",
    "fixedcost",
    "foreignkey",
    "draft",
    "lanes",
    "checks",
    "service",
    "scaling",
)
"""Benchmarks kept in modules of their own beside this script, run with ``--only TOPIC``."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5_000_000, help="rows of the large dataset (default 5,000,000)")
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds of A B C (default 3)")
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="runs of each method in a round, taking turns; the round keeps each method's fastest "
        "(default 1; scaling: 5 at 1,000 rows, 1 above)",
    )
    parser.add_argument("--rules", type=int, choices=(20, 60), action="append", help="suite size(s) (default both)")
    parser.add_argument("--skip-small", action="store_true", help="skip the 1,000-row fixed-cost run")
    parser.add_argument(
        "--only",
        choices=("rules", "gate", *TOPICS),
        help="run only the rule suites, the row gate or one topic: " + ", ".join(TOPICS),
    )
    parser.add_argument(
        "--sizes", metavar="ROWS,ROWS,…", help="scaling: the row counts (default 1000,500000,2000000,8000000,20000000)"
    )
    parser.add_argument(
        "--contract",
        choices=("families", "template"),
        default="families",
        help="scaling: the template without its exact percentile and GX-engine rules (default), or all of it",
    )
    parser.add_argument(
        "--plot", metavar="PNG", help="scaling: where to write the plot (default benchmarks/scaling.png)"
    )
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting of the session (repeatable)"
    )
    parser.add_argument(
        "--small-batch-bytes",
        type=int,
        metavar="BYTES",
        help="read a batch in one partition below this estimate of Spark's "
        f"(dqx_gx/spark/small_batch.py; default {small_batch.SMALL_BATCH_BYTES:,}; 0: never), for the runs in "
        "this process (startup, lanes and service start processes of their own, which keep the default)",
    )
    args = parser.parse_args()
    if args.repeat is not None and args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: a round takes at least one run of each method")
    if args.small_batch_bytes is not None:
        if args.small_batch_bytes < 0:
            parser.error(f"--small-batch-bytes {args.small_batch_bytes}: a size in bytes, 0 or more")
        small_batch.SMALL_BATCH_BYTES = args.small_batch_bytes  # read at each run: every topic's runs use it
        below = f"under {args.small_batch_bytes:,} bytes of Spark's estimate" if args.small_batch_bytes else "never"
        print(f"a batch read in one partition: {below} (--small-batch-bytes)")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("dqx-gx-benchmark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.shuffle.partitions", "8")
    )
    for setting in args.conf:
        key, equals, value = setting.partition("=")
        if not equals:
            parser.error(f"--conf {setting}: expected KEY=VALUE")
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if args.only in TOPICS:
        # a sibling module of this script (benchmarks/<topic>.py), each with run(spark, args)
        importlib.import_module(args.only).run(spark, args)
        return
    if args.only != "rules":
        gate(spark, args.rows, args.rounds, args.repeat or 1)
    if args.only == "gate":
        return
    sizes = {20: 1, 60: 3}
    large: dict[int, dict[str, Measured]] = {}
    for rules in args.rules or (20, 60):
        large[rules] = compare(spark, args.rows, sizes[rules], args.rounds, args.repeat or 1)
    if 20 in large and 60 in large:
        for method in "AB":
            ratio = statistics.median(large[60][method].seconds) / statistics.median(large[20][method].seconds)
            print(f"\n{method} with 60 rules / {method} with 20 rules at {args.rows:,} rows = {ratio:.2f}")
    if not args.skip_small:
        small = compare(spark, 1_000, 1, max(args.rounds, 5), args.repeat or 1)
        print(f"\n1,000 rows, 20 rules, warm session: A = {statistics.median(small['A'].seconds):.3f} s")


if __name__ == "__main__":
    main()
