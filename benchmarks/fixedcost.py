"""Benchmark: the fixed cost per rule (issue 25).

Two ratios, each from alternated runs on one SparkSession (medians, and the spread of one round's ratio;
the small one takes at least SMALL_ROUNDS rounds):

  small   1,000 rows: run_contract with 60 rules / with 20 rules (target ≤ 1.3), the contract run
          again (its aggregate expressions kept from its own untimed run just before, as on a stream's
          micro-batches) and as a first run (``expectations.built`` emptied before each run), both in
          the same rounds as the queries replayed below (in two phases, a first phase's runs were
          ~0.1 s slower each than the second's, so the two ratios were not comparable); beside it the same
          ratio for the same numbers by hand (bench.method_b on one and on three copies of the
          columns), and dqx-gx's own Spark queries of each run replayed alone (each query's plan
          captured from a run, then planned and run afresh, no GX, no Python around it): what
          Spark alone costs for the added rules, so what is left per rule is GX's and dqx-gx's
  large   --rows rows: run_contract with 20 rules / the same numbers by hand — one df.agg plus
          its distinct counts (bench.method_b) (target ≤ 1.15)

Besides wall time it prints CPU seconds of this Python process and of Spark's JVM (read from
/proc), which a shared, loaded machine distorts less than wall time, the Spark code compilations
and the calls through Spark's gateway (py4j commands) per run, without py4j's deletes of dropped objects: its
finalizer thread sends those whenever Python collects them, so a run would count its predecessor's; and the
Spark jobs per run. Every ratio prints each round's beside the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import (
    COLUMN_COPIES,
    compilations_of,
    contract,
    dataset,
    each_round,
    in_a_round,
    in_new_group,
    jobs_of,
    keep_fastest,
    method_a,
    method_b,
)
from py4j.clientserver import ClientServerConnection
from pyspark.sql import SparkSession
from pyspark.sql.classic.dataframe import DataFrame

from dqx_gx import Contract
from dqx_gx.expectations.built import BUILT

SMALL_TARGET = 1.3
SMALL_ROUNDS = 15
"""At least, at 1,000 rows: one round's 60/20 ratio varies by about ±0.1 on an idle 2-core machine."""
LARGE_TARGET = 1.15
DELETE = "m\nd\n"
"""py4j's command that drops a Java object Python no longer holds."""


@dataclass
class Costs:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    compiles: list[int] = field(default_factory=list)
    commands: list[int] = field(default_factory=list)
    jobs: list[int] = field(default_factory=list)

    def line(self, label: str) -> str:
        wall, cpu = statistics.median(self.wall), statistics.median(self.cpu)
        return (
            f"  {label:<44} wall {wall:7.3f} s   cpu {cpu:7.3f} s   Spark compilations {max(self.compiles)}"
            f"   gateway calls {statistics.median(self.commands):6.0f}   Spark jobs {statistics.median(self.jobs):3.0f}"
        )


class Meter:
    """Wall time, CPU time of Python and of Spark's JVM, Spark's code compilations and jobs around a call."""

    def __init__(self, spark: SparkSession, compilations: Any) -> None:
        self.spark = spark
        jvm: Any = spark._jvm
        self.pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.compilations = compilations
        self.commands = 0
        send = ClientServerConnection.send_command

        def counted(connection: ClientServerConnection, command: str) -> Any:
            if not command.startswith(DELETE):
                self.commands += 1
            return send(connection, command)

        ClientServerConnection.send_command = counted  # type: ignore[method-assign]

    def jvm_cpu(self) -> float:
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def measure(self, run: Callable[[], Any], costs: Costs) -> None:
        group = in_new_group(self.spark, "fixedcost")  # before the counting starts: a gateway call of its own
        compiled, cpu, jvm, wall = (
            self.compilations.getCount(),
            time.process_time(),
            self.jvm_cpu(),
            time.perf_counter(),
        )
        commands = self.commands
        run()
        costs.wall.append(time.perf_counter() - wall)
        costs.cpu.append(time.process_time() - cpu + self.jvm_cpu() - jvm)
        costs.commands.append(self.commands - commands)
        costs.compiles.append(self.compilations.getCount() - compiled)
        costs.jobs.append(len(jobs_of(self.spark, group)))


def alternate(
    meter: Meter,
    methods: dict[str, Callable[[], Any]],
    rounds: int,
    before: dict[str, Callable[[], Any]] | None = None,
    repeat: int = 1,
) -> dict[str, Costs]:
    """Each method measured ``repeat`` times per round, the methods in turn, the round keeping each one's fastest
    run (as ``bench.alternate``); ``before`` a method, untimed, what sets its run up."""
    costs = {name: Costs() for name in methods}
    for run in methods.values():  # warm-up: imports, JIT, Spark's code cache
        run()
        run()
    for _ in range(rounds):
        runs = {name: Costs() for name in methods}
        for _ in range(repeat):
            for name, run in methods.items():
                (before or {}).get(name, lambda: None)()
                meter.measure(run, runs[name])
        for name, measured in runs.items():
            keep_fastest(costs[name], measured, measured.wall)
    return costs


def ratio(costs: dict[str, Costs], top: str, bottom: str, target: float | None = None) -> str:
    """The ratio of the medians (beside its ``target``, if any), how much one round's ratio (the two measured
    one after the other) varies, and every round's."""
    wall = statistics.median(costs[top].wall) / statistics.median(costs[bottom].wall)
    cpu = statistics.median(costs[top].cpu) / statistics.median(costs[bottom].cpu)
    each = [t / b for t, b in zip(costs[top].wall, costs[bottom].wall, strict=True)]
    aim = "" if target is None else f"   (target ≤ {target})"
    if len(each) < 2:
        return f"wall {wall:.2f}, cpu {cpu:.2f}{aim}"
    low, _, high = statistics.quantiles(each, n=4)
    return (
        f"wall {wall:.2f} (a round's ratio {low:.2f}-{high:.2f} between its quartiles), cpu {cpu:.2f}{aim}\n"
        f"    each round's wall: {each_round(costs[top].wall, costs[bottom].wall)}"
    )


def queries_of(spark: SparkSession, run: Callable[[], Any]) -> list[Any]:
    """The logical plans of the Spark queries ``run`` collects, in order. Every query of a contract run
    ends in ``collect`` (``first`` too); one run through ``count``, ``isEmpty`` or a write would be
    missed, and its time counted as the run's own."""
    plans: list[Any] = []
    collect = DataFrame.collect

    def captured(frame: DataFrame) -> Any:
        plans.append(frame._jdf.queryExecution().logical())
        return collect(frame)

    DataFrame.collect = captured  # type: ignore[method-assign]
    try:
        run()
    finally:
        DataFrame.collect = collect  # type: ignore[method-assign]
    return plans


def replay(spark: SparkSession, plans: list[Any]) -> Callable[[], None]:
    """Plan and run each query afresh (a new Dataset of the same logical plan: no shuffle output of the
    run before is reused), one after the other, as the run did."""
    jvm: Any = spark._jvm
    datasets = jvm.org.apache.spark.sql.classic.Dataset

    def again() -> None:
        for plan in plans:
            DataFrame(datasets.ofRows(spark._jsparkSession, plan), spark).collect()

    return again


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    meter = Meter(spark, compilations_of(spark))
    rounds, repeat = max(args.rounds, SMALL_ROUNDS), args.repeat or 1
    small = dataset(spark, 1_000, COLUMN_COPIES)
    twenty, sixty = contract(1), contract(3)

    def ran_once(rules: Contract) -> Callable[[], Any]:
        """The kept expressions emptied, then the contract run once: its next run is a run again of it alone."""
        return lambda: (BUILT.clear(), method_a(small, rules))

    methods = {"20": lambda: method_a(small, twenty), "60": lambda: method_a(small, sixty)}
    own = {name: queries_of(spark, methods[name]) for name in ("20", "60")}
    # replayed, the run's queries use the code the run generated, and take no place of it
    replays = {f"{name} alone": replay(spark, plans) for name, plans in own.items()}
    # all in the same rounds, so each figure's runs meet the same state of the JVM and of Python
    costs = alternate(
        meter,
        {**methods, "20 first": methods["20"], "60 first": methods["60"], **replays},
        rounds,
        before={"20": ran_once(twenty), "60": ran_once(sixty), "20 first": BUILT.clear, "60 first": BUILT.clear},
        repeat=repeat,
    )
    # apart: the hand-written plans' generated code would take places in Spark's code cache between the contract's runs
    hand = {"20": lambda: method_b(small, 1), "60": lambda: method_b(small, 3)}
    by_hand = alternate(meter, hand, rounds, repeat=repeat)
    print(f"\nfixed cost per rule, 1,000 rows, {rounds} rounds ({in_a_round(repeat)}), medians:")
    print(costs["20"].line(f"run_contract, {len(twenty.rules)} rules, run again"))
    print(costs["60"].line(f"run_contract, {len(sixty.rules)} rules, run again"))
    print(costs["20 first"].line(f"run_contract, {len(twenty.rules)} rules, first run"))
    print(costs["60 first"].line(f"run_contract, {len(sixty.rules)} rules, first run"))
    print(f"  60 rules / 20 rules, run again: {ratio(costs, '60', '20', SMALL_TARGET)}")
    print(f"  60 rules / 20 rules, first run: {ratio(costs, '60 first', '20 first', SMALL_TARGET)}")
    print(by_hand["20"].line("hand-written df.agg + distinct counts, 1 copy"))
    print(by_hand["60"].line("hand-written df.agg + distinct counts, 3 copies"))
    print(f"  3 copies / 1 copy by hand (one distinct count per key): {ratio(by_hand, '60', '20')}")
    print(costs["20 alone"].line(f"its own {len(own['20'])} Spark queries alone, {len(twenty.rules)} rules"))
    print(costs["60 alone"].line(f"its own {len(own['60'])} Spark queries alone, {len(sixty.rules)} rules"))
    print(f"  60 rules / 20 rules, their Spark queries alone: {ratio(costs, '60 alone', '20 alone')}")
    added = len(sixty.rules) - len(twenty.rules)
    run_ms = 1000 * (statistics.median(costs["60"].wall) - statistics.median(costs["20"].wall))
    spark_ms = 1000 * (statistics.median(costs["60 alone"].wall) - statistics.median(costs["20 alone"].wall))
    print(
        f"  {added} added rules, run again: {run_ms:.0f} ms, of which Spark's queries {spark_ms:.0f} ms;"
        f" the rest {(run_ms - spark_ms) / added:.1f} ms per rule"
    )

    large = dataset(spark, args.rows, COLUMN_COPIES)
    large_methods = {"A": lambda: method_a(large, twenty), "B": lambda: method_b(large, 1)}
    costs = alternate(meter, large_methods, args.rounds, repeat=repeat)
    print(f"\nfixed cost per rule, {args.rows:,} rows, {args.rounds} rounds ({in_a_round(repeat)}), medians:")
    print(costs["A"].line(f"run_contract, {len(twenty.rules)} rules"))
    print(costs["B"].line("hand-written df.agg + distinct counts"))
    print(f"  run_contract / hand-written: {ratio(costs, 'A', 'B', LARGE_TARGET)}")
