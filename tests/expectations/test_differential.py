"""Differential test: every metric computed by GX on Spark equals what DQX computes on DuckDB (docs/semantics.md, 'The reference: DQX itself').

For each dataset, one contract holds a no-operator rule per (column, metric) —
the rule records its observed value — and runs once through a GX checkpoint.
The same rows go to dqlib (or, for metrics dqlib lacks, to the DuckDB SQL of
docs/semantics.md, 'The reference: DQX itself'). Counts must be equal; other values equal within 1e-6 relative
(dqlib stores values as float32). Where DQX cannot compute a metric (NULL,
NaN, infinity, an empty batch for a ratio), the rule must be FAILED with a reason.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from returns.result import Failure, Success

from dqx_gx import Contract, RuleResult, run_contract
from dqx_gx.spark import quantiles
from dqx_gx.spark import text as S
from dqx_gx.spark.small_batch import is_small
from tests.documents import odcs_document
from tests.expectations.test_orders_contract import NOW
from tests.reference import Failed, Reference, dqx_metric, duckdb_value, epoch_hours_before
from tests.spark_plans import executed_plans

UTC = dt.UTC
NAN = float("nan")


@dataclass(frozen=True)
class Col:
    name: str
    spark: str
    arrow: pa.DataType
    kind: str


COLUMNS = [
    Col("i", "bigint", pa.int64(), "int"),
    Col("d", "double", pa.float64(), "double"),
    Col("dn", "double", pa.float64(), "double"),
    Col("dec", "decimal(38,18)", pa.decimal128(38, 18), "decimal"),
    Col("s", "string", pa.string(), "string"),
    Col("l", "array<string>", pa.list_(pa.string()), "list"),
    Col("m", "map<string,bigint>", pa.map_(pa.string(), pa.int64()), "map"),
    Col("day", "date", pa.date32(), "date"),
    Col("ts", "timestamp", pa.timestamp("us", tz="UTC"), "ts"),
    Col("ntz", "timestamp_ntz", pa.timestamp("us"), "ntz"),
    Col("k1", "string", pa.string(), "key"),
    Col("k2", "bigint", pa.int64(), "key"),
]


def row(*values: Any) -> tuple[Any, ...]:
    """One row, in COLUMNS order."""
    assert len(values) == len(COLUMNS)
    return values


MIXED = [
    row(
        1,
        1.5,
        1.0,
        Decimal("1.000000000000000001"),
        "a",
        ["x", "y"],
        {"a": 1},
        dt.date(2026, 11, 20),
        dt.datetime(2026, 11, 21, 6, 30, tzinfo=UTC),
        dt.datetime(2026, 11, 21, 6, 30),
        "p",
        1,
    ),
    row(
        1,
        -2.25,
        NAN,
        Decimal("-5.5"),
        "é",
        [],
        {},
        dt.date(2026, 11, 21),
        dt.datetime(2026, 11, 22, 1, 0, tzinfo=UTC),
        dt.datetime(2026, 11, 22, 1, 0),
        "p",
        1,
    ),
    row(None, 0.0, 2.0, None, "日本語", None, {"a": 1, "b": 2}, None, None, None, "p", None),
    row(
        7,
        -0.0,
        None,
        Decimal("123456789012.123456789012345678"),
        "😀",
        ["z"],
        None,
        dt.date(2026, 1, 1),
        dt.datetime(2025, 3, 30, 1, 30, tzinfo=UTC),
        dt.datetime(2025, 3, 30, 1, 30),
        None,
        None,
    ),
    row(
        7,
        1.5,
        3.0,
        Decimal("0"),
        "e\u0301",
        [None, "w"],
        {"c": None},
        dt.date(2026, 11, 21),
        dt.datetime(2026, 11, 22, 11, 59, 59, 999999, tzinfo=UTC),
        dt.datetime(2026, 11, 22, 11, 59, 59, 999999),
        "q",
        2,
    ),
    row(
        2**62,
        None,
        4.0,
        Decimal("99.5"),
        "",
        ["x", "y"],
        {"a": 1},
        dt.date(2024, 2, 29),
        dt.datetime(2024, 10, 27, 1, 0, tzinfo=UTC),
        dt.datetime(2024, 10, 27, 1, 0),
        None,
        None,
    ),
    row(-3, 1e300, 5.0, Decimal("99.5"), None, ["x"], {"zz": 3}, None, None, None, "q", 2),
    row(
        None,
        2.5,
        6.0,
        Decimal("-0.000000000000000001"),
        "a",
        [],
        {},
        dt.date(2026, 11, 21),
        dt.datetime(2026, 11, 21, 23, 0, tzinfo=UTC),
        dt.datetime(2026, 11, 21, 23, 0),
        "p",
        1,
    ),
]
ONE_ROW = MIXED[:1]
EMPTY: list[tuple[Any, ...]] = []
ALL_NULL = [row(*([None] * 12)) for _ in range(3)]

DATASETS = {"mixed": MIXED, "one_row": ONE_ROW, "empty": EMPTY, "all_null": ALL_NULL}

WHITE = ["a", "é", "😀"]
SENTINELS = ["", "N/A"]
PATTERN = "^[a-z]+$"

Probe = tuple[str, dict[str, Any], Callable[[pa.Table], Reference], bool]
"""(rule suffix, rule fields, reference, is a count)."""


def dqx_rule(check: str, column: str | None = None, **extra: Any) -> dict[str, Any]:
    implementation = {"check": check, **({"column": column} if column else {}), **extra}
    return {"type": "custom", "engine": "dqx", "implementation": implementation}


def probes(col: Col) -> list[Probe]:
    c = col.name
    found: list[Probe] = [
        ("null_count", dqx_rule("missing", c), lambda t: dqx_metric(t, lambda mp: mp.null_count(c)), True),
        (
            "null_fraction",
            dqx_rule("missing", c, **{"return": "pct"}),
            lambda t: dqx_metric(t, lambda mp: mp.null_count(c) / mp.num_rows()),
            False,
        ),
        ("count", dqx_rule("count", c), lambda t: dqx_metric(t, lambda mp: mp.num_rows() - mp.null_count(c)), True),
    ]
    if col.kind != "map":
        found += [
            (
                "duplicates",
                dqx_rule("duplicates", c),
                lambda t: dqx_metric(t, lambda mp: mp.duplicate_count([c])),
                True,
            ),
            ("cardinality", dqx_rule("cardinality", c), lambda t: dqx_metric(t, lambda mp: mp.unique_count(c)), True),
        ]
    if col.kind in ("int", "double", "decimal"):
        found += [
            ("min", dqx_rule("min", c), lambda t: dqx_metric(t, lambda mp: mp.minimum(c)), False),
            ("max", dqx_rule("max", c), lambda t: dqx_metric(t, lambda mp: mp.maximum(c)), False),
            ("mean", dqx_rule("mean", c), lambda t: dqx_metric(t, lambda mp: mp.average(c)), False),
            ("sum", dqx_rule("sum", c), lambda t: dqx_metric(t, lambda mp: mp.sum(c)), False),
            ("variance", dqx_rule("variance", c), lambda t: dqx_metric(t, lambda mp: mp.variance(c)), False),
            ("stddev", dqx_rule("stddev", c), lambda t: duckdb_value(t, f"STDDEV_SAMP({c})"), False),
            *(
                (
                    f"p{round(q * 100)}",
                    dqx_rule("percentile", c, percentile=q),
                    lambda t, q=q: duckdb_value(t, f"QUANTILE_CONT({c}, {q})"),
                    False,
                )
                for q in (0.5, 0.95, 0.0, 1.0)
            ),
        ]
    lengths = {"string": ("string", "LENGTH"), "list": ("list", "LEN"), "map": ("map", "CARDINALITY")}
    if col.kind in lengths:
        column_type, length = lengths[col.kind]
        found += [
            (
                "min_length",
                dqx_rule("min_length", c, column_type=column_type),
                lambda t: dqx_metric(t, lambda mp: mp.min_length(c, column_type)),
                True,
            ),
            (
                "max_length",
                dqx_rule("max_length", c, column_type=column_type),
                lambda t: dqx_metric(t, lambda mp: mp.max_length(c, column_type)),
                True,
            ),
            (
                "avg_length",
                dqx_rule("avg_length", c, column_type=column_type),
                lambda t: duckdb_value(t, f"AVG({length}({c}))"),
                False,
            ),
        ]
    if col.kind == "string":
        found += [
            (
                "whitelist",
                dqx_rule("whitelist", c, values=WHITE),
                lambda t: dqx_metric(t, lambda mp: mp.num_rows() - mp.count_values(c, WHITE)),
                True,
            ),
            (
                "blacklist",
                dqx_rule("blacklist", c, values=WHITE),
                lambda t: dqx_metric(t, lambda mp: mp.count_values(c, WHITE)),
                True,
            ),
            (
                "missing_sentinels",
                {
                    "metric": "missingValues",
                    "arguments": {"missingValues": [None, *SENTINELS]},
                    "mustBeGreaterOrEqualTo": 0,
                },
                lambda t: dqx_metric(t, lambda mp: mp.null_count(c) + mp.count_values(c, SENTINELS)),
                True,
            ),
            (
                "invalid_pattern",
                {"metric": "invalidValues", "arguments": {"pattern": PATTERN}, "mustBeGreaterOrEqualTo": 0},
                lambda t: duckdb_value(t, f"COUNT(*) - COUNT_IF(regexp_matches({c}, '{PATTERN}'))"),
                True,
            ),
            (
                "invalid_percent",
                {
                    "metric": "invalidValues",
                    "arguments": {"validValues": WHITE},
                    "unit": "percent",
                    "mustBeGreaterOrEqualTo": 0,
                },
                lambda t: duckdb_value(t, f"100.0 * (COUNT(*) - COUNT_IF({c} IN ('a', 'é', '😀'))) / COUNT(*)"),
                False,
            ),
        ]
    if col.kind == "int":
        found.append(
            (
                "whitelist_ints",
                dqx_rule("whitelist", c, values=[1, 7]),
                lambda t: dqx_metric(t, lambda mp: mp.num_rows() - mp.count_values(c, [1, 7])),
                True,
            )
        )
    if col.kind in ("date", "ts", "ntz"):
        found.append(
            ("freshness", {"_freshness": c}, lambda t: epoch_hours_before(NOW, t, c, temporal=col.kind), False)
        )
    return found


TABLE_PROBES: list[Probe] = [
    (
        "num_rows",
        {"metric": "rowCount", "mustBeGreaterOrEqualTo": 0},
        lambda t: dqx_metric(t, lambda mp: mp.num_rows()),
        True,
    ),
    ("num_rows_dqx", dqx_rule("num_rows"), lambda t: dqx_metric(t, lambda mp: mp.num_rows()), True),
    (
        "duplicates_k1_k2",
        {"metric": "duplicateValues", "arguments": {"properties": ["k1", "k2"]}, "mustBeGreaterOrEqualTo": 0},
        lambda t: dqx_metric(t, lambda mp: mp.duplicate_count(["k1", "k2"])),
        True,
    ),
    (
        "duplicates_k1_k2_pct",
        {
            "metric": "duplicateValues",
            "arguments": {"properties": ["k1", "k2"]},
            "unit": "percent",
            "mustBeGreaterOrEqualTo": 0,
        },
        lambda t: duckdb_value(t, "100.0 * (COUNT(*) - COUNT(DISTINCT (k1, k2))) / COUNT(*)"),
        False,
    ),
]


def contract_for() -> tuple[Contract, dict[str, tuple[Callable[[pa.Table], Reference], bool]]]:
    references: dict[str, tuple[Callable[[pa.Table], Reference], bool]] = {}
    properties = []
    for col in COLUMNS:
        quality = []
        for suffix, fields, reference, is_count in probes(col):
            name = f"{col.name}:{suffix}"
            references[name] = (reference, is_count)
            if "_freshness" not in fields:
                quality.append({"name": name, **fields})
        properties.append({"name": col.name, "quality": quality})
    table_quality = []
    for suffix, fields, reference, is_count in TABLE_PROBES:
        references[suffix] = (reference, is_count)
        table_quality.append({"name": suffix, **fields})
    freshness = [
        {"property": "latency", "value": 1, "unit": "h", "element": f"batch.{col.name}"}
        for col in COLUMNS
        if col.kind in ("date", "ts", "ntz")
    ]
    schema = [{"name": "batch", "properties": properties, "quality": table_quality}]
    (contract,) = Contract.from_odcs(odcs_document(schema, name="differential", slaProperties=freshness))
    return contract, references


def _results_by_probe(run_results: tuple[RuleResult, ...]) -> dict[str, RuleResult]:
    by_name: dict[str, RuleResult] = {}
    freshness = [r for r in run_results if r.rule.name.startswith("SLA: Freshness check")]
    for result in freshness:
        by_name[f"{result.rule.column}:freshness"] = result
    for result in run_results:
        by_name.setdefault(result.rule.name, result)
    return by_name


@pytest.fixture(scope="module")
def differential() -> tuple[Contract, dict[str, tuple[Callable[[pa.Table], Reference], bool]]]:
    return contract_for()


@pytest.mark.parametrize("batch", ["unsized", "small"])
@pytest.mark.parametrize("dataset", list(DATASETS))
def test_spark_equals_dqx(spark: SparkSession, dataset: str, batch: str, differential: Any, tmp_path: Path) -> None:
    """Every metric as DQX computes it, on a batch Spark cannot size (a list's rows: partitions kept) and on a small
    one (a file under dqx_gx.spark.small_batch's size: read in one partition, keys grouped by ``inline``)."""
    contract, references = differential
    rows = DATASETS[dataset]
    frame = spark.createDataFrame(rows, ", ".join(f"`{c.name}` {c.spark}" for c in COLUMNS))
    if batch == "small":
        frame.write.parquet(str(tmp_path / "batch"))
        frame = spark.read.parquet(str(tmp_path / "batch"))
        assert is_small(frame)
    table = pa.table({c.name: pa.array([r[i] for r in rows], type=c.arrow) for i, c in enumerate(COLUMNS)})
    results = _results_by_probe(run_contract(contract, frame, now=NOW).rule_results)
    mismatches = []
    for name, (reference_of, is_count) in references.items():
        ours = results[name]
        expected = reference_of(table)
        problem = _compare(ours, expected, is_count)
        if problem:
            mismatches.append(f"{name}: {problem}")
    assert not mismatches, f"{dataset}: {len(mismatches)} metrics differ from DQX:\n" + "\n".join(mismatches)
    assert len(references) > 60


def _compare(ours: RuleResult, expected: Reference, is_count: bool) -> str | None:
    metric = ours.assertion.metric
    if ours.reason and ours.reason.startswith("GX could not evaluate"):
        return f"the expectation raised: {ours.reason}"
    if isinstance(expected, Failed):
        if ours.assertion.status == "FAILED" and isinstance(metric, Failure) and ours.reason:
            return None
        return f"DQX cannot compute it ({expected.reason}) but we report {ours.assertion.status} {metric}"
    if not isinstance(metric, Success):
        return f"expected {expected!r}, got failure {ours.reason}"
    value = metric.unwrap()
    if is_count:
        return None if value == expected else f"expected {expected!r}, got {value!r}"
    return (
        None if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-12) else f"expected {expected!r}, got {value!r}"
    )


# --- percentiles: exact QUANTILE_CONT by a bracket and one more pass (dqx_gx.spark.quantiles) -------------

INF = float("inf")
D = S.named("d")
FRACTIONS = [0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.999, 1.0]
SMALL_VALUES = {
    "ties": [1.0, 1.0, 1.0, 2.0, 2.0, None, 3.5, 1.0, 2.0, None],
    "inf": [-INF, 1.0, INF, INF, None, 2.0, -INF, 1e300, -1e300, 0.0],
    "nan": [NAN, 1.0, 2.0, NAN, None, INF, -INF, 2.0, NAN, -0.0],
    "only_nan": [NAN, None, NAN, NAN, None, None, NAN, None, NAN, NAN],
    "one_value": [None, None, None, 4.25, None, None, None, None, None, None],
    "zeros": [0.0, -0.0, 0.0, -0.0, None, -0.0, 0.0, 0.0, -0.0, 0.0],
}


def _percentile_rules(columns: list[str]) -> Contract:
    properties = [
        {"name": c, "quality": [{"name": f"{c}:{p}", **dqx_rule("percentile", c, percentile=p)} for p in FRACTIONS]}
        for c in columns
    ]
    (contract,) = Contract.from_odcs(odcs_document([{"name": "batch", "properties": properties}], name="pct"))
    return contract


def _quantile_cont(connection: Any, column: str, p: float) -> float | None:
    (value,) = connection.execute(f"SELECT CAST(QUANTILE_CONT({column}, {p}) AS DOUBLE) FROM batch").fetchone()
    return None if value is None else float(value)


def _differences(contract: Contract, frame: Any, table: pa.Table) -> list[str]:
    """Every percentile rule's observed value against DuckDB's, bit for bit (decimals too: DuckDB
    interpolates them in units of their scale); NaN and NULL as the reasons that say so."""
    connection = duckdb.connect()
    connection.register("batch", table)
    found = []
    results = [r for r in run_contract(contract, frame, now=NOW).rule_results if ":" in r.rule.name]
    assert len(results) == len(contract.metric_rules)
    for result in results:
        column, p = result.rule.name.split(":")
        expected = _quantile_cont(connection, column, float(p))
        if expected is None:
            ok = result.observed is None and "has no value" in (result.reason or "")
        elif math.isnan(expected):
            ok = "is NaN" in (result.reason or "")
        else:
            ok = result.observed == expected
        if not ok:
            found.append(f"{result.rule.name}: DuckDB {expected!r}, ours {result.observed!r} ({result.reason})")
    connection.close()
    return found


def test_percentiles_equal_quantile_cont_on_ties_nan_and_infinities(spark: SparkSession) -> None:
    """Ties, NULLs, NaN (greater than +inf in both engines), ±inf, -0.0, a single value, only NaN."""
    names = list(SMALL_VALUES)
    rows = list(zip(*SMALL_VALUES.values(), strict=True))
    frame = spark.createDataFrame(rows, ", ".join(f"{n} double" for n in names)).repartition(3)
    table = pa.table({n: pa.array(v, type=pa.float64()) for n, v in SMALL_VALUES.items()})
    assert not _differences(_percentile_rules(names), frame, table)


def test_the_brackets_leave_the_shared_first_pass_which_keeps_sparks_generated_code(spark: SparkSession) -> None:
    """``percentile_approx`` in the shared first ``df.agg`` would make the whole pass an object hash aggregate
    (no whole-stage generated code; every aggregate's projections generated again in each task): the
    brackets have a ``df.agg`` of their own, every other first-pass aggregate keeps Spark's generated code,
    and the values stay DuckDB's."""
    names = list(SMALL_VALUES)
    rows = list(zip(*SMALL_VALUES.values(), strict=True))
    frame = spark.createDataFrame(rows, ", ".join(f"{n} double" for n in names)).repartition(3)
    table = pa.table({n: pa.array(v, type=pa.float64()) for n, v in SMALL_VALUES.items()})
    with executed_plans(spark, "percentiles and the shared first pass") as plans:
        assert not _differences(_percentile_rules(names), frame, table)
    brackets = [p for p in plans if "percentile_approx" in p]
    shared = [p for p in plans if "HashAggregate" in p and "percentile_approx" not in p and "collect_list" not in p]
    assert len(brackets) == 1 and "ObjectHashAggregate" in brackets[0]
    assert shared and not [p for p in shared if "ObjectHashAggregate" in p]


@pytest.mark.slow  # a 240,000-row batch
def test_percentiles_equal_quantile_cont_on_a_large_batch(spark: SparkSession) -> None:
    """Enough rows over enough partitions that percentile_approx's summary is compressed (approximate):
    the bracket decides every percentile exactly (no fallback), equal to DuckDB bit for bit."""
    h = F.abs(F.xxhash64("id"))
    frame = (
        spark.range(240_000, numPartitions=4)
        .select(
            F.when(h % 97 == 0, None)
            .when(h % 89 == 0, F.lit(NAN))
            .when(h % 83 == 0, F.lit(INF))
            .when(h % 79 == 0, F.lit(-INF))
            .otherwise((h % 5_000) / 8.0)
            .alias("d"),
            F.when(h % 7 == 0, None).otherwise(h % 300).alias("i"),
            ((h % 100_000) / 100).cast("decimal(12,2)").alias("dec"),
        )
        .cache()
    )
    table = frame.toArrow()
    assert not _differences(_percentile_rules(["d", "i", "dec"]), frame, table)
    undecided = []
    for p in FRACTIONS:
        bounds = frame.agg(quantiles.bracket(D, p).column()).first()[0]  # type: ignore[index]
        found = frame.agg(quantiles.order_statistics(D, bounds, frame.schema["d"]).column())
        statistics = [*found.first()[0]]  # type: ignore[index]
        assert len(statistics[6]) < 240_000 // 100, (p, len(statistics[6]))  # few collected: ties are counted
        if quantiles.quantile_cont(p, statistics) is quantiles.UNDECIDED:
            undecided.append(p)
    frame.unpersist()
    assert not undecided


def test_a_bracket_that_misses_is_undecided_and_the_exact_aggregate_answers(spark: SparkSession) -> None:
    """The bracket is a hint only: ranks outside what was collected are never guessed."""
    frame = spark.createDataFrame([(float(v),) for v in range(1, 101)], "d double")
    found = [*frame.agg(quantiles.order_statistics(D, [80.0, 90.0], frame.schema["d"]).column()).first()[0]]  # type: ignore[index]
    assert found[:4] == [100, 0, 79, 79.0]
    assert quantiles.quantile_cont(0.5, found) is quantiles.UNDECIDED
    value, is_nan = quantiles.quantile_cont(0.85, found)  # type: ignore[misc]  # ranks 84 and 85: 85.0 and 86.0
    assert math.isclose(value, 85.15) and not is_nan
    value, is_nan = frame.agg(quantiles.exact(D, 0.5).column()).first()[0]  # type: ignore[index]
    assert (value, is_nan) == (50.5, False)
