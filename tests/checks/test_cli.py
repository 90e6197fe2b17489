"""``--checks`` on the command line: validate runs a contract and hand-written checks as one run with one exit code,
translate stores them in the GX project so its stored checkpoint runs them without the Python file, coverage lists
them; a --checks that names no check is one line, exit 2."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import great_expectations as gx
import pytest
from pyspark.sql import SparkSession

from dqx_gx import run_contract
from dqx_gx.checks.loading import load_checks
from dqx_gx.contract import load_contracts
from tests.conftest import EXAMPLES
from tests.run.test_cli import run

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
GOOD = str(EXAMPLES / "orders" / "data" / "good.parquet")
CHECKS = str(EXAMPLES / "orders" / "orders_checks.py")
NOW = "2026-11-22T12:00:00Z"


def test_validate_runs_the_checks_beside_the_contract(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", ORDERS, "--data", GOOD, "--now", NOW, "--checks", CHECKS)
    assert code == 0
    lines = out.splitlines()
    assert any(line.split()[:3] == ["PASSED", "P0", "At"] and line.endswith("num_rows() ≥ 100") for line in lines)
    assert any(line.endswith("null_count(status)/num_rows() < 0.05") for line in lines)
    assert lines[-1] == "Contract: orders_contract on orders_tbl: 24 passed, 0 failed, 1 skipped → passed_with_warnings"

    code, out, _ = run(
        capsys,
        "validate",
        ORDERS,
        "--data",
        GOOD,
        "--now",
        NOW,
        "--checks",
        f"{CHECKS}:order_values",
        "--output",
        "json",
    )
    hand_written = [r for r in json.loads(out)["results"] if r["check"] == "Orders by hand"]
    assert [(r["assertion"], r["expression"]) for r in hand_written][:2] == [
        ("At least 100 orders", "x_1 ≥ 100"),  # the AssertionResult is dqlib's
        ("Status mostly given", "x_2/x_1 < 0.05"),
    ]
    assert code == 0


def test_a_module_name_and_a_list_of_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "quality"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "orders.py").write_text(
        textwrap.dedent(
            """
            from dqx.api import check

            @check(name="one", datasets=["orders_tbl"])
            def one(mp, ctx):
                ctx.assert_that(mp.num_rows()).config(name="rows").is_positive()

            @check(name="two")
            def two(mp, ctx):
                ctx.assert_that(mp.null_count("status")).config(name="nulls").is_zero()

            ALL = [two, one]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert [c.__name__ for c in load_checks("quality.orders")] == ["one", "two"]
    assert [c.__name__ for c in load_checks("quality.orders:ALL")] == ["two", "one"]
    assert [c.__name__ for c in load_checks(f"{package / 'orders.py'}:one")] == ["one"]


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("missing_checks.py", "error: --checks missing_checks.py: no such file"),
        (
            "no_such_package.checks",
            "error: --checks no_such_package.checks: no module 'no_such_package.checks' (give a module on the path or a .py file)",
        ),
        (
            f"{CHECKS}:nothing",
            f"error: --checks {CHECKS}:nothing: {CHECKS} has no 'nothing' (its @check functions: 'order_values')",
        ),
        (
            f"{CHECKS}:MetricProvider",
            f"error: --checks {CHECKS}:MetricProvider: MetricProvider is the class MetricProvider, not a @check function (dqx.api.check) or a list of them",
        ),
        ("{raising}", "error: --checks {raising}: importing it raised ZeroDivisionError: division by zero"),
        (
            "{other}",
            "error: check 'elsewhere' is for dataset(s) 'customers', and this run checks 'orders_tbl'; give it the contract of that dataset",
        ),
    ],
)
def test_checks_that_cannot_be_had_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str, message: str
) -> None:
    raising = tmp_path / "raising.py"
    raising.write_text("1 / 0\n")
    other = tmp_path / "other.py"
    other.write_text(
        "from dqx.api import check\n\n@check(name='elsewhere', datasets=['customers'])\n"
        "def elsewhere(mp, ctx):\n    ctx.assert_that(mp.num_rows()).config(name='rows').noop()\n"
    )
    reference, message = (text.format(raising=raising, other=other) for text in (reference, message))
    for command in (["validate", ORDERS, "--data", GOOD], ["translate", ORDERS, "--gx-dir", str(tmp_path / "gx")]):
        code, out, err = run(capsys, *command, "--checks", reference)
        assert (code, out, err.strip().splitlines()) == (2, "", [message])


def test_translate_stores_the_checks_and_the_stored_checkpoint_runs_them(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "translate", ORDERS, "--gx-dir", str(tmp_path), "--checks", CHECKS)
    assert code == 0 and "(24 expectations)" in out
    frame = spark.read.parquet(GOOD)
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    result = context.checkpoints.get("orders_contract.orders_tbl").run(batch_parameters={"dataframe": frame})
    stored = {
        evr.expectation_config.meta["dqx"]["rule_id"]: (evr.success, evr.result.get("observed_value"))
        for suite in result.run_results.values()
        for evr in suite.results
    }
    (contract,) = load_contracts(ORDERS)
    in_process = run_contract(contract, frame, now=NOW, checks=load_checks(CHECKS))
    hand_written = [r for r in in_process.rule_results if r.rule.id.startswith("checks/")]
    assert len(hand_written) == 4
    for result_ in hand_written:
        assert stored[result_.rule.id] == (result_.assertion.status == "PASSED", result_.observed)


def test_coverage_lists_the_hand_written_assertions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checks = tmp_path / "with_sql.py"
    checks.write_text(
        "from dqx.api import check\n\n@check(name='by hand')\ndef by_hand(mp, ctx):\n"
        "    ctx.assert_that(mp.num_rows()).config(name='rows').is_positive()\n"
        "    ctx.assert_that(mp.custom_sql('SUM(total_amount)')).config(name='total').is_positive()\n"
    )
    code, out, _ = run(capsys, "coverage", ORDERS, "--checks", str(checks), "--output", "json")
    elements = {e["path"]: e for e in json.loads(out)["elements"]}
    assert code == 0
    assert elements["check:by hand/rows"]["status"] == "enforced"
    assert elements["check:by hand/rows"]["expectations"] == [{"type": "expect_dqx_check_assertion", "rule": "rows"}]
    assert elements["check:by hand/total"]["status"] == "skipped"
    assert elements["check:by hand/total"]["reason"].startswith("its custom_sql metric runs only when SQL is allowed")
    code, out, _ = run(capsys, "coverage", ORDERS, "--checks", str(checks), "--allow-sql", "--output", "json")
    assert {e["path"]: e["status"] for e in json.loads(out)["elements"]}["check:by hand/total"] == "enforced"


@pytest.mark.slow  # plain GX in a fresh interpreter
def test_a_platform_runs_the_stored_checks_without_their_file(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.platform.test_stored_checkpoints import platform_run  # noqa: PLC0415 - its subprocess helper

    bad = str(EXAMPLES / "orders" / "data" / "bad.parquet")
    assert run(capsys, "translate", ORDERS, "--gx-dir", str(tmp_path), "--checks", CHECKS)[0] == 0
    found = platform_run([(tmp_path, "orders_contract.orders_tbl", {"good": Path(GOOD), "bad": Path(bad)})], "UTC")
    for name, data in (("good", GOOD), ("bad", bad)):
        _, out, _ = run(capsys, "validate", ORDERS, "--data", data, "--checks", CHECKS, "--output", "json")
        by_hand = {
            r["rule_id"]: r["status"] == "PASSED" for r in json.loads(out)["results"] if r["check"] == "Orders by hand"
        }
        assert len(by_hand) == 4
        assert {rule: found["outcomes"][name][rule] for rule in by_hand} == by_hand, name
