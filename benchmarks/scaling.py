"""Scaling (issue 50): a contract of every aggregate family against the plan a person would write for its
numbers, from 1,000 rows on a warm session to 20,000,000 rows, plotted.

The contract (``--contract families``, the default) is ``bench.contract(1)`` without its exact percentile
rule and its ``engine: greatExpectations`` rule, which add passes of their own by design (exact percentiles
are measured by ``--only percentile``): null counts, mean, min, max, standard deviation, sum, exact
distinct counts of one and of two columns, value sets, a pattern, lengths, the row count, freshness and the
columns' types. ``--contract template`` runs the whole of ``bench.contract(1)`` for comparison.

  A  ``run_contract`` of the contract (the session warm, the contract run again, as a service, a stream's
     micro-batches or a loop run it)
  H  the hand plan: one ``df.agg`` of the same numbers on the same session, with ``count_distinct`` for
     the distinct counts (a key of two columns as one struct, so tuples with NULL members count, as the
     duplicates rule counts them; one column's NULLs do not); then, only where that aggregation shows
     copies of a key (its row count above its distinct count), the one grouping a person needs for the rows
     the duplicates rule marks: the rows of keys occurring more than once. With the template it also takes
     the exact p95 (Spark's ``percentile``); the GX not-null rule's number is the null count of the
     required column it already has. This is the plan a person would write for the numbers the run reports.

Each size alternates A, H and G (``bench.alternate``; at 1,000 rows a round is each method's fastest of
``--repeat`` runs, 5 by default, taking turns) and prints every round's ratio, the medians, the Spark jobs
of each and, at 1,000 rows, how each method's wall time splits into time inside Spark's jobs and the rest
(Python and query planning). Usage (from the repository root):

  python benchmarks/bench.py --only scaling                          # 1,000 rows to 20,000,000: about an hour
  python benchmarks/bench.py --only scaling --sizes 1000,20000 --rounds 2 --plot /tmp/scaling.png
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import (
    COLUMN_COPIES,
    STATUSES,
    Measured,
    alternate,
    dataset,
    each_round,
    in_a_round,
    loaded,
    method_a,
    template,
)
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract
from dqx_gx.rules.rule import TypeRule

SIZES = (1_000, 500_000, 2_000_000, 8_000_000, 20_000_000)
SMALL = 1_000
"""The warm-session size: at least SMALL_ROUNDS rounds, and its wall time split into Spark's jobs and the rest."""
SMALL_ROUNDS = 15
SMALL_REPEAT = 5
"""Runs of each method in a round at the warm-session size (``--repeat`` sets it at every size): one run there
lasts under half a second, which a garbage collection or the scheduler lengthens by as much as the difference
measured; the round keeps each method's fastest."""
TARGET = 1.15
TARGET_SIZES = (1_000, 2_000_000)
PLOT = Path(__file__).resolve().parent / "scaling.png"
OWN_PASSES = ("amount0 p95", "status0 not null (GX)")
"""The template's rules that add passes of their own by design, left out of the families contract."""
KEYS = {"id unique": ("id",), "customer per day unique": ("customer_id", "day")}
"""The duplicates rules' keys, by rule name."""


def families() -> Contract:
    """``bench.contract(1)`` without the rules of ``OWN_PASSES``."""
    document = template(1)
    for table in document["schema"]:
        for holder in (table, *table["properties"]):
            holder["quality"] = [q for q in holder.get("quality", []) if q["name"] not in OWN_PASSES]
    return loaded(document)


def hand_plan(frame: DataFrame, percentile: bool, distinct_apart: bool = False) -> dict[str, Any]:
    """The numbers of the contract by hand: one aggregation (``distinct_apart``: the exact distinct counts in a second
    aggregation of their own), and a duplicates grouping only where it shows copies."""
    name, status, amount = F.col("name0"), F.col("status0"), F.col("amount0")
    aggregates: list[Column] = [
        F.count(F.lit(1)).alias("rows"),
        F.count_if(F.col("id").isNull()).alias("id nulls"),
        F.count_if(status.isNull()).alias("status0 nulls"),
        F.count_if(name.isNull()).alias("name0 nulls"),
        F.count_if(name.isNull() | name.isin("", "N/A")).alias("name0 missing"),
        F.count_if(name.isNull() | ~name.rlike("^user[0-9]+$")).alias("name0 pattern"),
        F.avg(F.length(name)).alias("name0 length"),
        F.count_if(status.isNotNull() & ~status.isin(*STATUSES)).alias("status0 valid"),
        F.min(amount).alias("amount0 min"),
        F.max(amount).alias("amount0 max"),
        F.avg(amount).alias("amount0 mean"),
        F.stddev_samp(amount).alias("amount0 stddev"),
        F.sum("price0").alias("price0 sum"),
        F.max(F.size("tags")).alias("tags max length"),
        F.max("ts").alias("newest"),
    ]
    distinct = [
        F.count_distinct(status).alias("status0 cardinality"),
        *(F.count_distinct(_key(key)).alias(f"{rule} distinct") for rule, key in KEYS.items()),
    ]
    if percentile:
        aggregates.append(F.percentile(amount, F.lit(0.95)).alias("amount0 p95"))
    if distinct_apart:
        numbers: dict[str, Any] = frame.agg(*aggregates).first().asDict()  # type: ignore[union-attr]
        numbers |= frame.agg(*distinct).first().asDict()  # type: ignore[union-attr]
    else:
        numbers = frame.agg(*aggregates, *distinct).first().asDict()  # type: ignore[union-attr]
    numbers["schema"] = frame.schema.simpleString()
    for rule, key in KEYS.items():
        numbers[rule] = numbers["rows"] - numbers.pop(f"{rule} distinct")
        if numbers[rule]:  # copies of the key: the rule marks the rows of keys occurring more than once
            marked = F.col("count") > 1
            if len(key) == 1:  # and, for one column, every NULL key, which its count counts as a copy
                marked |= F.col(key[0]).isNull()
            repeated = frame.groupBy(*key).count().where(marked)
            numbers[f"{rule} rows"] = repeated.agg(F.sum("count")).first()[0]  # type: ignore[index]
    return numbers


def _key(columns: tuple[str, ...]) -> Column:
    """A key as the duplicates rule counts it: one column's non-NULL values, or tuples of several (NULL members too)."""
    return F.col(columns[0]) if len(columns) == 1 else F.struct(*columns)


def same_numbers(run: Any, numbers: dict[str, Any]) -> list[str]:
    """The rules whose observed value the run and the hand plan both give, after checking they agree."""
    observed = {r.assertion: r.metric.value_or(None) for r in run}
    agreed = []
    for rule in ("rows", *KEYS, "status0 cardinality", "amount0 min", "amount0 max", "price0 sum", "tags max length"):
        if rule not in observed or observed[rule] is None:
            continue
        mine, theirs = float(numbers[rule]), float(observed[rule])
        assert abs(mine - theirs) <= 1e-9 * max(1.0, abs(mine)), f"{rule}: the run says {theirs}, by hand {mine}"
        agreed.append(rule)
    return agreed


def split(m: Measured) -> str:
    """A method's median wall time split into time inside Spark's jobs and the rest."""
    wall, in_jobs = statistics.median(m.seconds), statistics.median(m.in_jobs)
    rest = statistics.median(w - j for w, j in zip(m.seconds, m.in_jobs, strict=True))
    return f"wall {wall:.3f} s = in Spark's jobs {in_jobs:.3f} s + Python and planning {rest:.3f} s (medians)"


def sizes(text: str | None) -> tuple[int, ...]:
    if not text:
        return SIZES
    try:
        rows = tuple(int(part.replace("_", "")) for part in text.split(","))
    except ValueError:
        raise SystemExit(f"--sizes {text}: expected row counts separated by commas, e.g. 1000,2000000") from None
    if any(r < 1 for r in rows):
        raise SystemExit(f"--sizes {text}: every size must be at least 1 row")
    return rows


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    chosen = sizes(args.sizes)
    path = Path(args.plot) if args.plot else PLOT
    if importlib.util.find_spec("matplotlib") is None:
        raise SystemExit("--only scaling plots with matplotlib: pip install -e '.[bench]'")
    if not path.parent.is_dir():
        raise SystemExit(f"--plot {path}: no folder {path.parent}")
    whole = args.contract == "template"
    rules = loaded(template(1)) if whole else families()
    types = sum(isinstance(rule, TypeRule) for rule in rules.rules)
    print(
        f"\nscaling, contract '{args.contract}': {len(rules.rules)} rules ({len(rules.rules) - types} on values, "
        f"{types} type checks)"
        + ("" if whole else f"; bench.contract(1) without {' and '.join(OWN_PASSES)}, which add passes by design")
    )
    load = os.getloadavg()[0]  # before its own work: Spark's two busy cores alone keep the load near 2 while it runs
    measured = {rows: one_size(spark, rows, rules, args) for rows in chosen}
    plot(measured, path, f"{len(rules.rules)} rules ({args.contract})", load)


def one_size(spark: SparkSession, rows: int, rules: Contract, args: argparse.Namespace) -> dict[str, Measured]:
    """A and H alternated on ``rows`` rows, after checking they give the same numbers; their figures printed."""
    frame = dataset(spark, rows, COLUMN_COPIES)
    whole = args.contract == "template"
    rounds = max(args.rounds, SMALL_ROUNDS) if rows <= SMALL else args.rounds
    repeat = args.repeat or (SMALL_REPEAT if rows <= SMALL else 1)
    agreed = same_numbers(method_a(frame, rules), hand_plan(frame, whole))
    assert agreed == same_numbers(method_a(frame, rules), hand_plan(frame, whole, distinct_apart=True))
    methods: dict[str, Callable[[], Any]] = {
        "A": lambda: method_a(frame, rules),
        "H": lambda: hand_plan(frame, whole),
        "G": lambda: hand_plan(frame, whole, distinct_apart=True),
    }
    result = alternate(spark, frame, methods, rounds, repeat)
    a, h, g = result["A"], result["H"], result["G"]
    best = min((h, g), key=lambda m: statistics.median(m.seconds))
    result["best"] = best
    ratio = statistics.median(a.seconds) / statistics.median(best.seconds)
    target = f"   (target ≤ {TARGET}: {'met' if ratio <= TARGET else 'NOT met'})" if rows in TARGET_SIZES else ""
    counted = f"{rounds} round{'s' if rounds > 1 else ''}, {in_a_round(repeat)}"
    print(f"\n{rows:,} rows, {counted} (the run and the hand plan agree on {', '.join(agreed)}):")
    print(f"  A run_contract                     median {statistics.median(a.seconds):8.3f} s   Spark jobs {_jobs(a)}")
    print(f"  H by hand, one df.agg             median {statistics.median(h.seconds):8.3f} s   Spark jobs {_jobs(h)}")
    print(f"  G by hand, distinct counts apart  median {statistics.median(g.seconds):8.3f} s   Spark jobs {_jobs(g)}")
    print(
        f"  A/H = {statistics.median(a.seconds) / statistics.median(h.seconds):.2f}   "
        f"A/G = {statistics.median(a.seconds) / statistics.median(g.seconds):.2f}"
    )
    name = "H" if best is h else "G"
    print(f"  A/{name} (the faster hand plan) = {ratio:.2f}{target}")
    print(f"  each round's A/{name}: {each_round(a.seconds, best.seconds)}")
    if rows <= SMALL:
        print(f"  A {split(a)}")
        print(f"  H {split(h)}")
        print(f"  G {split(g)}")
    return result


def _jobs(m: Measured) -> str:
    """The Spark jobs of a method's runs and the tasks they ran: one figure each where every run made the same."""
    return f"{_span(m.jobs)} ({_span(m.tasks)} tasks)"


def _span(counts: list[int]) -> str:
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low}-{high}"


def plot(measured: dict[int, dict[str, Measured]], path: Path, contract: str, load: float) -> None:
    """Seconds of both methods and their ratio against rows, log scales, every round's ratio shown."""
    import matplotlib  # noqa: PLC0415 - the bench extra's; only this topic needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    rows = sorted(measured)
    figure, (seconds, ratios) = plt.subplots(2, 1, sharex=True, figsize=(7, 7), height_ratios=(3, 2))
    for name, label in (("A", "run_contract"), ("H", "by hand: one df.agg"), ("G", "by hand: df.agg + distinct apart")):
        seconds.plot(rows, [statistics.median(measured[r][name].seconds) for r in rows], "o-", label=label)
    seconds.set(yscale="log", ylabel="seconds (median)", title=f"{contract}, Spark local[2]")
    seconds.legend()
    highest = 2.0
    for r in rows:
        each = [a / h for a, h in zip(measured[r]["A"].seconds, measured[r]["best"].seconds, strict=True)]
        ratios.plot([r] * len(each), each, ".", color="grey", alpha=0.6)
        highest = max(highest, *each)
    medians = [
        statistics.median(measured[r]["A"].seconds) / statistics.median(measured[r]["best"].seconds) for r in rows
    ]
    ratios.plot(rows, medians, "o-", color="black", label="run ÷ the faster hand plan, medians (dots: rounds)")
    ratios.axhline(TARGET, color="red", linestyle="--", label=f"target {TARGET}")
    ratios.set(xscale="log", xlabel="rows", ylabel="run_contract / faster hand plan", ylim=(0, highest * 1.1))
    ratios.legend()
    if load >= 1:
        note = f"NOT QUIET: load average {load:.1f} when it began; not a measurement"
        figure.text(0.5, 0.005, note, ha="center", color="red")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    quiet = "" if load < 1 else f" (load average {load:.1f} when it began: marked not quiet)"
    print(f"\nplot written to {path}{quiet}")
