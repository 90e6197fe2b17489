"""Failed-row samples: only for failing row-level rules, taken in the run's pass (Spark 4.2 on) or by one extra Spark
job, the same rows either way, sensitive values never shown."""

from __future__ import annotations

import json
import operator
import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from dqx_gx import Contract, ContractWarning, run_contract
from dqx_gx.cli import main
from dqx_gx.expectations.built import BUILT
from dqx_gx.kinds import Value
from dqx_gx.kinds.kind import Reach
from dqx_gx.report import to_json, to_junit, to_table
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.kinds import On, count_of, marks_of
from dqx_gx.spark.marks import RowRule, row_rules
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.samples import OVERSAMPLE, failed_row_samples
from dqx_gx.spark.text import Sql
from dqx_gx.spark_versions import BOTTOM_K
from tests.conftest import shown
from tests.documents import odcs_document
from tests.rows.test_gate import DDL, awkward_rows, every_row_level_kind, statuses
from tests.spark_plans import executed_plans

NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)
SECRET = "s3cr3t.person@example.org"
SALARY = 987654.25


def contract_document() -> dict[str, Any]:
    properties = [
        {"name": "id", "logicalType": "integer", "primaryKey": True},
        {
            "name": "email",
            "logicalType": "string",
            "classification": "Restricted",
            "logicalTypeOptions": {"pattern": "^[a-z]+@example\\.com$"},
            "quality": [{"name": "email nulls", "metric": "nullValues", "mustBe": 0, "severity": "error"}],
        },
        {
            "name": "salary",
            "logicalType": "number",
            "customProperties": [{"property": "pii", "value": True}],
            "quality": [
                {
                    "name": "salary cap",
                    "type": "custom",
                    "engine": "dqx",
                    "severity": "error",
                    "implementation": {"check": "max", "column": "salary", "mustBeLessThan": 500000},
                }
            ],
        },
        {
            "name": "status",
            "logicalType": "string",
            "quality": [
                {
                    "name": "status valid",
                    "metric": "invalidValues",
                    "arguments": {"validValues": ["new", "done"]},
                    "mustBe": 0,
                    "severity": "error",
                }
            ],
        },
    ]
    return odcs_document([{"name": "people", "properties": properties}])


@pytest.fixture(scope="module")
def contract() -> Contract:
    (loaded,) = Contract.from_odcs(contract_document())
    return loaded


def people(spark: SparkSession, bad: int) -> DataFrame:
    """1,000 good rows and ``bad`` rows breaking the pattern, the cap and the status list (id 5000+)."""
    good = [(i, f"p{chr(97 + i % 26)}@example.com", 1000.0 + i, "new") for i in range(1000)]
    broken = [
        (5000 + i, SECRET if i == 0 else f"x{i}@bad.org", SALARY if i == 0 else 600000.0, "gone") for i in range(bad)
    ]
    return spark.createDataFrame(good + broken, "id int, email string, salary double, status string")


@contextmanager
def jobs(spark: SparkSession, group: str) -> Iterator[list[int]]:
    counted: list[int] = []
    spark.sparkContext.setJobGroup(group, group)
    try:
        yield counted
    finally:
        # the tracker reads Spark's status store, which its listener bus fills later: a busy machine lagged
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
        counted.append(len(spark.sparkContext.statusTracker().getJobIdsForGroup(group)))
        spark.sparkContext.setJobGroup("none", "none")


@pytest.mark.compat
def test_samples_cost_one_job_when_rules_fail_first_and_none_when_they_fail_again_from_spark_4_2(
    spark: SparkSession, contract: Contract
) -> None:
    """The failing rules here mark rows by the row alone: from Spark 4.2, once they have failed, the next run of the
    same contract takes their samples in its pass; a run passing again pays nothing for that."""
    failing, passing = people(spark, 3), people(spark, 0)
    counts = {}
    for name, frame, samples in (
        ("pass0", passing, 0),  # nothing failed before the runs below
        ("fail5 first", failing, 5),
        ("fail0", failing, 0),
        ("fail5", failing, 5),
        ("pass5", passing, 5),
    ):
        with jobs(spark, name) as counted:
            run = run_contract(contract, frame, samples=samples)
        counts[name] = counted[0]
        assert all(shown(r, "failed rows") is None for r in run.rule_results) == (not name.startswith("fail5")), name
    assert counts["fail5 first"] == counts["fail0"] + 1
    assert counts["fail5"] == counts["fail0"] + (0 if BOTTOM_K.available else 1)
    assert counts["pass5"] == counts["pass0"]


def test_samples_show_the_key_and_the_rules_columns_of_rows_marked(spark: SparkSession, contract: Contract) -> None:
    run = run_contract(contract, people(spark, 3), samples=2)
    results = {r.rule.name: r for r in run.rule_results}
    status = shown(results["status valid"], "failed rows")
    assert status is not None and status.columns == ("id", "status")
    assert len(status.rows) == 2 and all(int(i) >= 5000 and s == "gone" for i, s in status.rows)
    cap = shown(results["salary cap"], "failed rows")
    assert cap is not None and cap.columns == ("id", "salary")
    assert len(cap.rows) == 2 and all(salary == "***" for _, salary in cap.rows)
    pattern = results["email pattern ^[a-z]+@example\\.com$"]
    pattern_rows = shown(pattern, "failed rows")
    assert pattern_rows is not None and {row[1] for row in pattern_rows.rows} == {"***"}
    assert results["email nulls"].details == ()  # passed


def test_every_report_renders_the_samples_from_the_one_details_channel(spark: SparkSession, contract: Contract) -> None:
    run = run_contract(contract, people(spark, 2), samples=2)
    (status,) = [r for r in run.rule_results if r.rule.name == "status valid"]
    assert [d.title for d in status.details] == ["failed rows"]
    rows = [", ".join(map(str, row)) for row in status.details[0].rows]
    assert sorted(rows) == ["5000, gone", "5001, gone"]
    table = [line.strip() for line in to_table(run).splitlines()]
    heading = table.index("↳ failed rows (id, status):")
    assert table[heading + 1 : heading + 3] == rows
    case = ET.fromstring(to_junit(run)).find(".//testcase[@name='status valid']/failure")
    assert case is not None and case.text is not None
    assert case.text.endswith("failed rows (id, status):\n" + "\n".join(f"  {row}" for row in rows))
    (shown_json,) = [r["details"] for r in json.loads(to_json(run))["results"] if r["assertion"] == "status valid"]
    assert shown_json == [status.details[0].to_dict()]
    assert shown_json[0]["columns"] == ["id", "status"] and shown_json[0]["total"] is None
    assert not shown_json[0]["one_line"]


def test_many_failed_rows_still_give_exactly_the_asked_samples(spark: SparkSession, contract: Contract) -> None:
    frame = people(spark, 0).withColumn("status", F.when(F.col("id") % 3 == 0, "gone").otherwise(F.col("status")))
    run = run_contract(contract, frame, samples=5)
    (status,) = [r for r in run.rule_results if r.rule.name == "status valid"]
    assert status.rows_marked == 334 and status.observed == 334
    samples = shown(status, "failed rows")
    assert samples is not None and len(samples.rows) == 5
    assert all(int(i) % 3 == 0 and s == "gone" for i, s in samples.rows)


def test_the_rows_shown_do_not_depend_on_the_order_spark_gives(spark: SparkSession, contract: Contract) -> None:
    frame = people(spark, 0).withColumn("status", F.when(F.col("id") % 3 == 0, "gone").otherwise(F.col("status")))
    seen = set()
    for shuffled in (frame, frame.orderBy(F.col("id").desc()), frame.repartition(3, "email")):
        (status,) = [
            r for r in run_contract(contract, shuffled, samples=5).rule_results if r.rule.name == "status valid"
        ]
        samples = shown(status, "failed rows")
        assert samples is not None and len(samples.rows) == 5
        seen.add(samples.rows)
    assert len(seen) == 1  # the 5 marked rows with the lowest hash, in that order


def test_the_pass_samples_only_rules_that_failed_before_and_only_when_samples_are_asked(
    spark: SparkSession, contract: Contract
) -> None:
    """Spark generates no code for ``min_by`` with a count (the whole first pass leaves whole-stage code generation):
    a contract that has not failed keeps its pass as is."""
    passing, failing = people(spark, 0), people(spark, 3)
    run_contract(contract, passing, samples=0)  # whatever earlier tests' runs of this contract failed
    for step, (frame, samples, in_pass) in enumerate(
        (
            (passing, 5, False),
            (failing, 5, False),  # failing for the first time: the query after the run
            (failing, 0, False),
            (failing, 5, BOTTOM_K.available),
            (passing, 5, BOTTOM_K.available),  # expected to fail again, it did not: its samples are dropped
            (passing, 5, False),
        )
    ):
        with executed_plans(spark, f"samples {samples}, step {step}") as plans:
            run_contract(contract, frame, samples=samples)
        assert plans and any("min_by(" in plan for plan in plans) == in_pass
        (shared,) = [plan for plan in plans if "count(1)" in plan and "RLIKE" in plan]  # the run's first pass
        assert _generated_aggregates(shared) == (not in_pass)


def _generated_aggregates(plan: str) -> bool:
    """Whether an aggregate of a formatted physical plan runs in Spark's whole-stage generated code (only the
    final plan's nodes carry a codegen id)."""
    return bool(re.search(r"^\(\d+\) \w*Aggregate \[codegen id : \d+\]$", plan, re.MULTILINE))


def many_broken(spark: SparkSession) -> DataFrame:
    """Every rule of the contract failing on hundreds of rows, NULLs among the values shown."""
    frame = people(spark, 400)
    return frame.withColumn("status", F.when(F.col("id") % 7 == 0, None).otherwise(F.col("status")))


@pytest.mark.compat
def test_the_pass_shows_the_rows_the_query_after_the_run_shows(spark: SparkSession, contract: Contract) -> None:
    """The samples taken in the run's pass (Spark 4.2 on) and those of the query after it are the same rows in the
    same order, whatever the plan's row order: one definition of the rows shown (docs/semantics.md)."""
    frame = many_broken(spark)
    for limit in (1, 5):
        first = run_contract(contract, frame.repartition(3, "email"), samples=limit)  # the query after the run
        again = run_contract(contract, frame.repartition(3, "email"), samples=limit)  # in the pass, from 4.2
        failing = {r.rule.id: r.rows_marked for r in again.rule_results if r.assertion.status == "FAILED"}
        assert len(failing) == 3 and all(marks and marks > OVERSAMPLE * limit for marks in failing.values())
        after = failed_row_samples(contract, frame.orderBy(F.col("id").desc()), failing, limit)  # no pass asked
        for run in (first, again):
            for result in run.rule_results:
                if result.rule.id in failing:
                    assert shown(result, "failed rows") == after[result.rule.id], result.rule.name
                    assert len(after[result.rule.id].rows) == limit
    status = after[next(r.rule.id for r in run.rule_results if r.rule.name == "status valid")]
    assert any(s is None for _, s in status.rows)  # a NULL status is marked and shown as none


@pytest.mark.compat
def test_every_row_level_kind_shows_the_same_rows_from_the_pass_and_from_the_query_after(spark: SparkSession) -> None:
    """Each kind's marks in the pass are the gate's (a moment, an interval, array items, a nested field), and the
    duplicates and foreign keys, which need the query after the run, show theirs beside."""
    contract, frame, references = every_row_level_kind(), spark.createDataFrame(awkward_rows(), DDL), statuses(spark)
    first = run_contract(contract, frame, references=references, now=NOW, samples=3)
    with executed_plans(spark, "again") as plans:
        run = run_contract(contract, frame, references=references, now=NOW, samples=3)
    assert any("min_by(" in plan for plan in plans) == BOTTOM_K.available
    failing = {r.rule.id: r.rows_marked for r in run.rule_results if r.assertion.status == "FAILED" and r.rows_marked}
    assert len(failing) >= 10
    after = failed_row_samples(contract, frame, failing, 3, references, now=NOW)
    assert set(after) == set(failing)
    for result, before in zip(run.rule_results, first.rule_results, strict=True):
        if result.rule.id in failing:
            assert shown(result, "failed rows") == after[result.rule.id] == shown(before, "failed rows"), (
                result.rule.name
            )


def test_a_contract_run_again_on_its_warm_session_takes_the_samples_each_run_asks(
    spark: SparkSession, contract: Contract
) -> None:
    """The pass's expressions are kept between runs (expectations.built): keyed on the limit too."""
    frame = many_broken(spark)
    for limit in (2, 4, 0, 2):
        run = run_contract(contract, frame, samples=limit)
        status = shown(next(r for r in run.rule_results if r.rule.name == "status valid"), "failed rows")
        assert (len(status.rows) if status is not None else 0) == limit


def test_samples_taken_in_the_pass_hide_sensitive_values_and_leave_gx_results_alone(
    spark: SparkSession, contract: Contract
) -> None:
    run_contract(contract, people(spark, 3), samples=5)  # the rules fail: the next run samples them in its pass
    run = run_contract(contract, people(spark, 3), samples=5)
    by_name = {r.rule.name: r for r in run.rule_results}
    cap = shown(by_name["salary cap"], "failed rows")
    pattern = shown(by_name["email pattern ^[a-z]+@example\\.com$"], "failed rows")
    assert cap is not None and sorted(cap.rows) == [("5000", "***"), ("5001", "***"), ("5002", "***")]
    assert pattern is not None and sorted(pattern.rows) == [("5000", "***"), ("5001", "***"), ("5002", "***")]
    stored = json.dumps(run.checkpoint_result.describe_dict(), default=str)
    assert SECRET not in stored and str(SALARY) not in stored and "600000" not in stored
    assert stored.count('"failed rows"') == 3  # the failing rules' samples only, as the run reports them
    assert by_name["email nulls"].details == ()


def test_statistics_of_sensitive_columns_are_judged_but_never_shown(spark: SparkSession, contract: Contract) -> None:
    run = run_contract(contract, people(spark, 1))
    (cap,) = [r for r in run.rule_results if r.rule.name == "salary cap"]
    assert cap.assertion.status == "FAILED" and cap.observed == "***"
    assert cap.rows_marked == 1


def test_no_output_of_a_run_shows_a_sensitive_value(spark: SparkSession, tmp_path: Path) -> None:
    data = tmp_path / "people.parquet"
    people(spark, 3).write.parquet(str(data))
    contract_file = tmp_path / "people.odcs.json"
    contract_file.write_text(json.dumps(contract_document()))
    project = tmp_path / "project"
    for output in ("table", "json", "junit"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContractWarning)
            code = main(
                [
                    "validate",
                    str(contract_file),
                    "--data",
                    str(data),
                    "--output",
                    output,
                    "--output-file",
                    str(tmp_path / f"report.{output}"),
                    "--gx-dir",
                    str(project),
                    "--data-docs",
                    "--quarantine",
                    str(tmp_path / f"q-{output}"),
                ]
            )
        assert code == 1
    written = [p for p in [*tmp_path.glob("report.*"), *project.rglob("*")] if p.is_file()]
    assert any(p.suffix == ".html" for p in written) and any("validations" in p.parts for p in written)
    for path in written:
        text = path.read_text(errors="replace")
        assert SECRET not in text and "987654" not in text, path
    assert "***" in (tmp_path / "report.table").read_text()
    html = "".join(p.read_text() for p in written if p.suffix == ".html" and "validations" in p.parts)
    assert "***" in html and "gone" in html  # the samples table is in data docs
    quarantined = spark.read.parquet(str(tmp_path / "q-table"))
    assert quarantined.filter(F.col("email") == SECRET).count() == 1  # the data itself is the data


def test_sensitive_elements_of_arrays_are_never_shown(spark: SparkSession) -> None:
    """An array whose items are sensitive, or whose items hold a sensitive field, shows them when shown whole."""
    properties = [
        {"name": "id", "logicalType": "integer", "primaryKey": True},
        {
            "name": "phones",
            "logicalType": "array",
            "items": {
                "logicalType": "string",
                "classification": "PII",
                "quality": [{"name": "phone nulls", "metric": "nullValues", "mustBe": 0, "severity": "error"}],
            },
        },
        {
            "name": "contacts",
            "logicalType": "array",
            "logicalTypeOptions": {"maxItems": 1},
            "items": {
                "logicalType": "object",
                "properties": [{"name": "email", "logicalType": "string", "classification": "confidential"}],
            },
        },
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = Contract.from_odcs(odcs_document([{"name": "people", "properties": properties}]))
    assert contract.sensitive_columns == {"phones", "contacts"}
    frame = spark.createDataFrame(
        [(1, ["555-0100"], [("a@x",)]), (2, ["555-SECRET", None], [("b@x",), ("leak@secret.org",)])],
        "id int, phones array<string>, contacts array<struct<email: string>>",
    )
    run = run_contract(contract, frame, samples=5)
    results = {r.rule.name: r for r in run.rule_results}
    phones = shown(results["phone nulls"], "failed rows")
    assert results["phone nulls"].observed == 1
    assert phones is not None and phones.columns == ("id", "phones") and phones.rows == (("2", "***"),)
    (items,) = [r for r in run.rule_results if r.rule.name.startswith("contacts maxItems")]
    contacts = shown(items, "failed rows")
    assert items.observed == 1
    assert contacts is not None and contacts.rows == (("2", "***"),)
    recorded = [evr.result for suite in run.checkpoint_result.run_results.values() for evr in suite.results]
    assert "SECRET" not in repr(recorded) and "secret.org" not in repr(recorded)
    assert "SECRET" not in to_table(run) and "secret.org" not in to_json(run)


def test_a_gx_declared_rule_on_a_sensitive_column_is_skipped_not_shown(spark: SparkSession) -> None:
    """GX writes a built-in expectation's result itself (observed and unexpected values): it cannot be masked."""
    gx_max = {
        "type": "custom",
        "engine": "greatExpectations",
        "name": "salary max (GX)",
        "severity": "warning",
        "implementation": {"type": "expect_column_max_to_be_between", "kwargs": {"max_value": 10}},
    }
    gx_pair = {
        "type": "custom",
        "engine": "greatExpectations",
        "name": "pair (GX)",
        "implementation": {
            "type": "expect_column_pair_values_a_to_be_greater_than_b",
            "kwargs": {"column_A": "id", "column_B": "Salary"},
        },
    }
    properties = [
        {"name": "id", "logicalType": "integer", "quality": [gx_pair]},
        {
            "name": "Salary",
            "physicalName": "salary",
            "logicalType": "number",
            "classification": "confidential",
            "quality": [gx_max],
        },
        {
            "name": "code",
            "logicalType": "string",
            "quality": [
                {
                    **gx_max,
                    "name": "code max (GX)",
                    "implementation": {
                        "type": "expect_column_value_lengths_to_be_between",
                        "kwargs": {"max_value": 10},
                    },
                }
            ],
        },
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ContractWarning)
        (contract,) = Contract.from_odcs(odcs_document([{"name": "pay", "properties": properties}]))
    assert sorted(str(w.message).split(":")[0] for w in caught) == [
        "Quality rule 'pair (GX)'",
        "Quality rule 'salary max (GX)'",
    ]
    assert "it reads the sensitive column(s) salary, and GX's own result" in str(caught[0].message)
    frame = spark.createDataFrame([(1, 98765.0, "a"), (2, 5.0, "b")], "id int, salary double, code string")
    run = run_contract(contract, frame)
    status = {r.rule.name: r.assertion.status for r in run.rule_results}
    assert status["salary max (GX)"] == status["pair (GX)"] == "SKIPPED"
    assert status["code max (GX)"] == "PASSED"  # a GX rule on a column that is not sensitive runs as written
    (skipped,) = [r for r in run.rule_results if r.rule.name == "salary max (GX)"]
    assert "write it as a library metric or an engine: dqx rule" in skipped.reason
    recorded = [evr.result for suite in run.checkpoint_result.run_results.values() for evr in suite.results]
    assert "98765" not in repr(recorded) and "98765" not in to_table(run) and "98765" not in to_json(run)


@pytest.mark.compat
@pytest.mark.skipif(not BOTTOM_K.available, reason="samples are taken in the pass from Spark 4.2 on")
def test_a_pass_taking_a_pattern_rules_samples_computes_its_predicate_once_below_the_aggregate(
    spark: SparkSession, contract: Contract
) -> None:
    """Spark's interpreted aggregate (``min_by`` with a count has no generated code) evaluates a ``FILTER`` apart
    from its update: the rule's predicate is a column of the generated projection below it, which the count and the
    samples' filter both read; the run without samples keeps its pass as it was."""
    frame = people(spark, 3)
    run_contract(contract, frame, samples=5)  # it fails: its next run takes the samples in the pass
    with executed_plans(spark, "in the pass") as plans:
        run_contract(contract, frame, samples=5)
    (shared,) = [plan for plan in plans if "min_by(" in plan]
    node = re.search(r"^\(\d+\) Project \[codegen id : \d+\]\nOutput \[\d+\]: \[(.*)\]$", shared, re.MULTILINE)
    assert node is not None and re.search(r"RLIKE\(email#\d+, [^)]*\) AS (_dqx_once_\w+)#", node.group(1))
    once = re.search(r"RLIKE\(email#\d+, [^)]*\) AS (_dqx_once_\w+)#", shared)
    assert once is not None and shared.count("RLIKE") == 1  # the final plan's node and nowhere else
    assert f"FILTER (WHERE NOT coalesce({once.group(1)}#" in shared and f"sum(cast({once.group(1)}#" in shared
    with executed_plans(spark, "no samples") as plans:
        run_contract(contract, frame, samples=0)
    (shared,) = [plan for plan in plans if "count(1)" in plan and "RLIKE" in plan]
    assert "_dqx_once_" not in shared and "Project" not in shared


def test_a_count_read_from_its_predicate_computed_below_equals_the_kinds_own_aggregate(spark: SparkSession) -> None:
    """What the pass relies on: for every kind whose predicate is computed once (:meth:`On.once`), its count and marks
    read from that column equal its own aggregate and marks, NULLs (a count of no value is NULL) and arrays too, on
    awkward rows, on a batch of NULLs only and on an empty one."""
    contract = every_row_level_kind()
    rows = awkward_rows()
    batches = {
        "awkward": spark.createDataFrame(rows, DDL),
        "nulls": spark.createDataFrame([(i, *([None] * (len(rows[0]) - 1))) for i in range(3)], DDL),
        "empty": spark.createDataFrame([], DDL),
    }
    columns = Columns.of(batches["awkward"])
    applied: set[str] = set()
    below: dict[str, Sql] = {}
    counts, marks = [], []
    for check in row_rules(contract, columns):
        if not isinstance(check, RowRule) or check.kind.value is not Value.ROWS or check.marks.reach is not Reach.ROW:
            continue
        on = On(check.rule.metric, check.fields, tuple(S.col(f) for f in check.fields), now=NOW)
        asked: dict[str, Sql] = {}
        projected = (count_of(check.kind, replace(on, below=asked)), marks_of(check.kind, replace(on, below=asked)))
        if not asked:
            continue
        applied.add(check.kind.name + (" items" if check.rule.metric.items else ""))
        below |= asked
        counts.append((check.rule.name, count_of(check.kind, on), projected[0]))
        marks.append((check.rule.name, marks_of(check.kind, on), projected[1]))
    assert applied >= {
        "invalid_count",
        "missing_count",
        "count_values",
        "unlisted_count",
        "pattern_invalid_count",
        "pattern_invalid_count items",
        "violation_count",
        "length_outside_count",
        "future_count",
    }, applied
    for name, batch in batches.items():
        with own_expressions():
            frame = batch.select("*", *(value.column().alias(column) for column, value in below.items()))
            (row,) = frame.agg(*(c.column() for _, own, read in counts for c in (own, read))).collect()
            differing = frame.where(
                reduce(operator.or_, [~own.column().eqNullSafe(read.column()) for _, own, read in marks])
            )
        assert [row[2 * i] for i in range(len(counts))] == [row[2 * i + 1] for i in range(len(counts))], name
        assert differing.count() == 0, name
        if name == "nulls":  # the kinds' own NULLs survive the column below
            assert None in [row[2 * i] for i in range(len(counts))]


@pytest.mark.compat
def test_a_run_computing_predicates_once_gives_what_it_gave_computing_them_in_the_aggregate(
    spark: SparkSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same run with the predicates computed below the aggregate and inside it: the same verdicts, counts and
    rows shown."""
    contract, frame, references = every_row_level_kind(), spark.createDataFrame(awkward_rows(), DDL), statuses(spark)

    def outcome() -> list[tuple[Any, ...]]:
        run = run_contract(contract, frame, references=references, now=NOW, samples=3)
        return [
            (r.rule.id, r.assertion.status, r.observed, r.rows_marked, shown(r, "failed rows"))
            for r in run.rule_results
        ]

    outcome()  # its failing rules' samples are taken in the pass from the next run on
    with executed_plans(spark, "once") as plans:
        once = outcome()
    assert any("_dqx_once_" in plan for plan in plans) == BOTTOM_K.available
    monkeypatch.setattr(On, "once", lambda self, value: value)
    BUILT.clear()  # the columns built with the predicates below
    try:
        with executed_plans(spark, "inside") as plans:
            inside = outcome()
    finally:
        BUILT.clear()
    assert not any("_dqx_once_" in plan for plan in plans)
    assert once == inside
    assert sum(1 for r in once if r[4] is not None) >= 10
