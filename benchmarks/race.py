"""The race (issue 16 point 4): dqx-gx against the tools a Spark user would otherwise pick.

Row gate: the five row-level rules of ``bench.row_rules`` (not-null, in-list, regex, range,
uniqueness) through Databricks Labs DQX's ``DQEngineCore.apply_checks_and_split`` and through
dqx-gx's ``split_rows``, both outputs written as parquet:

  D  DQX: apply_checks_and_split, then write "good" and "bad" (two jobs, as its docs show)
  E  DQX as its own save path does it: apply_checks cached, then write the valid and invalid rows
  O  dqx-gx: split_rows' annotation written by ``write_split`` (both outputs in one job)

Batch verdict: the 20-rule template (``bench.contract``) through ``run_contract`` (A) and as GX
built-in expectations with GX's defaults (C), as bench.py's rule suites measure them.

Before timing, both engines must mark the same rows: the same valid and quarantined ids. Where
the semantics differ it is said: DQX puts rows with warnings in both outputs (its "bad" output
holds errors and warnings), dqx-gx quarantines only rows with an error (P0) and keeps warned rows
valid; the range rule is a warning in both, and no row of the benchmark data breaks it, so the
counts agree. dqx-gx's pattern rule (ODCS ``invalidValues``) marks a NULL, DQX's ``regex_match``
does not: DQX gets an ``is_not_null`` check on that column too, so both mark the same rows.

No Databricks workspace is needed: DQEngineCore only checks that its client has a config and
calls ``clusters.select_spark_version()``; a stand-in answers both and is never contacted.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from bench import (
    COLUMN_COPIES,
    DATA,
    STATUSES,
    alternate,
    contract,
    dataset,
    each_round,
    in_a_round,
    method_a,
    method_c,
    row_rules,
)
from databricks.labs.dqx import check_funcs
from databricks.labs.dqx.engine import DQEngineCore
from databricks.labs.dqx.rule import DQDatasetRule, DQRowRule, DQRule
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import dqx_gx
from dqx_gx.rows import ERRORS
from dqx_gx.rows.choices import Output
from dqx_gx.rows.outputs import write_split

SPLIT_TARGET = 1.0
BATCH_TARGET = 0.3


def dqx_checks() -> list[DQRule]:
    """The rules of ``bench.row_rules`` as DQX checks, with the same criticality (P0 → error, P1 → warn)."""
    return [
        DQDatasetRule(criticality="error", check_func=check_funcs.is_unique, columns=["id"]),
        DQRowRule(criticality="error", check_func=check_funcs.is_not_null, column="status0"),
        DQRowRule(
            criticality="error",
            check_func=check_funcs.is_in_list,
            column="status0",
            check_func_kwargs={"allowed": [F.lit(s) for s in STATUSES]},  # a bare string would be a column
        ),
        # dqx-gx's pattern rule counts a NULL as invalid (ODCS invalidValues); DQX's regex_match lets it pass
        DQRowRule(criticality="error", check_func=check_funcs.is_not_null, column="name0"),
        DQRowRule(
            criticality="error",
            check_func=check_funcs.regex_match,
            column="name0",
            check_func_kwargs={"regex": "^user[0-9]+$"},
        ),
        DQRowRule(
            criticality="warn",
            check_func=check_funcs.is_in_range,
            column="amount0",
            check_func_kwargs={"min_limit": 0, "max_limit": 1000},
        ),
    ]


def standin_workspace() -> Any:
    """What DQEngineCore reads of a WorkspaceClient: ``config`` (it tags ``_product_info``) and
    ``clusters.select_spark_version()`` (its connectivity check). Telemetry calls ``config.copy()``,
    which the stand-in lacks: DQX swallows that failure, so nothing is ever sent."""
    return SimpleNamespace(
        config=SimpleNamespace(_product_info=("dqx", "benchmark")),
        clusters=SimpleNamespace(select_spark_version=lambda *args, **kwargs: "local"),
    )


def same_rows(spark: SparkSession, frame: DataFrame) -> tuple[int, int]:
    """The valid and quarantined row counts, after checking both engines put the same ids in each."""
    engine = DQEngineCore(standin_workspace(), spark)
    good, bad = engine.apply_checks_and_split(frame, dqx_checks())  # type: ignore[misc]
    bad_errors = bad.where(F.col("_errors").isNotNull())  # DQX's bad output holds warned rows too
    valid, quarantine = dqx_gx.split_rows(row_rules(), frame)
    counts = {
        "dqx good": good.count(),
        "dqx bad (errors)": bad_errors.count(),
        "dqx bad (warnings only)": bad.where(F.col("_errors").isNull()).count(),
        "dqx-gx valid": valid.count(),
        "dqx-gx quarantine": quarantine.count(),
    }
    print("  rows: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    assert counts["dqx good"] == counts["dqx-gx valid"], counts
    assert counts["dqx bad (errors)"] == counts["dqx-gx quarantine"], counts
    assert bad_errors.select("id").exceptAll(quarantine.select("id")).isEmpty(), "different rows quarantined"
    assert quarantine.where(F.col(ERRORS).isNull()).isEmpty()
    return counts["dqx-gx valid"], counts["dqx-gx quarantine"]


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """Time the row gate (D, E, O) and the batch verdict (A, C), alternated, and print every ratio."""
    frame = dataset(spark, args.rows, COLUMN_COPIES)
    out = DATA / "race"
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"\nthe race, {args.rows:,} rows, 5 row-level rules; {args.rounds} rounds "
        f"({in_a_round(args.repeat or 1)}), medians:"
    )
    valid_rows, quarantined = same_rows(spark, frame)
    rules = row_rules()
    template = contract(1)
    checks = dqx_checks()
    engine = DQEngineCore(standin_workspace(), spark)

    def dqx_split() -> None:
        good, bad = engine.apply_checks_and_split(frame, checks)  # type: ignore[misc]
        good.write.mode("overwrite").parquet(str(out / "dqx-good"))
        bad.write.mode("overwrite").parquet(str(out / "dqx-bad"))

    def dqx_cached() -> None:
        checked = engine.apply_checks(frame, checks)
        assert isinstance(checked, DataFrame)
        checked.persist()
        try:
            engine.get_valid(checked).write.mode("overwrite").parquet(str(out / "dqx-good"))
            engine.get_invalid(checked).write.mode("overwrite").parquet(str(out / "dqx-bad"))
        finally:
            checked.unpersist()

    def ours() -> None:
        annotated = dqx_gx.annotate_rows(rules, frame)
        write_split(annotated, Output(str(out / "valid")), Output(str(out / "quarantine")), "parquet", overwrite=True)

    methods: dict[str, Callable[[], Any]] = {
        "D": dqx_split,
        "E": dqx_cached,
        "O": ours,
        "A": lambda: method_a(frame, template),
        "C": lambda: method_c(frame, 1),
    }
    results = alternate(spark, frame, methods, args.rounds, args.repeat or 1)
    median = {name: statistics.median(m.seconds) for name, m in results.items()}
    cpu = {name: statistics.median(m.cpu) for name, m in results.items()}
    written = spark.read.parquet(str(out / "valid")).count(), spark.read.parquet(str(out / "quarantine")).count()
    assert written == (valid_rows, quarantined), written
    for name, label in [
        ("D", "DQX apply_checks_and_split + write"),
        ("E", "DQX cached, as its save path"),
        ("O", "dqx-gx split_rows + write_split"),
        ("A", "run_contract, 20-rule template"),
        ("C", "GX built-ins, the same rules"),
    ]:
        m = results[name]
        print(
            f"  {name} {label:<36} {median[name]:8.3f} s   JVM CPU {cpu[name]:8.2f} s   "
            f"jobs {statistics.median(m.jobs):4.0f} ({statistics.median(m.tasks):4.0f} tasks)   "
            f"classes compiled {statistics.median(m.compiled):4.0f}"
        )
    in_jobs = statistics.median(results["A"].in_jobs)
    print(
        f"  A's Spark jobs alone ran {in_jobs:.3f} s: {in_jobs / median['C']:.2f} of C's wall time, the least A/C "
        "could be with nothing around Spark's jobs"
    )
    if statistics.median(results["A"].compiled):
        print(
            "  A's jobs include compiling its plans again each round: the other methods' plans pushed them out of "
            "Spark's code cache (--conf spark.sql.codegen.cache.maxEntries=2000 keeps them)"
        )
    for measure_name, of in (("wall time", median), ("JVM CPU time", cpu)):
        if not all(of.values()):
            continue
        split, best = of["O"] / of["D"], of["O"] / min(of["D"], of["E"])
        batch = of["A"] / of["C"]
        print(
            f"  {measure_name}: O/D = {split:.2f}, O/E = {of['O'] / of['E']:.2f}, "
            f"O/min(D,E) = {best:.2f} (target ≤ {SPLIT_TARGET}: {_met(best <= SPLIT_TARGET)}); "
            f"A/C = {batch:.2f} (target ≤ {BATCH_TARGET}: {_met(batch <= BATCH_TARGET)})"
        )
    print(f"  each round's wall time: A/C {each_round(results['A'].seconds, results['C'].seconds)}")


def _met(met: bool) -> str:
    return "met" if met else "NOT met"
