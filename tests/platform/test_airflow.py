"""The example DAG (examples/airflow) runs the translated orders project through the Great Expectations
Airflow provider's operator, in a new interpreter that imports nothing of dqx-gx itself: the verdicts are
those of ``dqx-gx validate`` on the same data.

Needs the ``airflow`` extra. Skipped without it, except under CI, where a missing extra is a failure.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from tests.conftest import EXAMPLES, ROOT

if importlib.util.find_spec("great_expectations_provider") is None:
    if os.environ.get("CI"):
        pytest.fail("CI runs the Airflow provider's tests: install the airflow extra (.[test,airflow])")
    pytest.skip("the airflow extra is not installed", allow_module_level=True)

DAG_FILE = EXAMPLES / "airflow" / "dqx_gx_orders.py"
ORDERS = EXAMPLES / "orders" / "orders.odcs.yaml"

RUN_DAG = """
    import importlib.util, json, sys
    from great_expectations_provider.common.errors import GXValidationFailed

    spec = importlib.util.spec_from_file_location("dqx_gx_orders", sys.argv[1])
    dag_file = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dag_file)  # as Airflow parses it
    dag = dag_file.dag

    class TaskInstance:  # what the operator uses of Airflow's: it pushes its result to XCom
        def xcom_push(self, key, value):
            self.pushed = value

    found = {"imported_before_run": "dqx_gx" in sys.modules}
    for task in dag.tasks:
        ti = TaskInstance()
        try:
            task.execute(context={"ti": ti, "params": {}})
            failed = False
        except GXValidationFailed:
            failed = True
        (suite,) = ti.pushed["validation_results"]
        found[task.task_id] = {
            "failed": failed,
            "rules": {e["kwargs"]["rule"]: e["success"] for e in suite["expectations"]},
        }
    print("RESULT" + json.dumps(found))
"""


@pytest.mark.slow
def test_the_example_dag_runs_the_translated_project_with_the_verdicts_of_validate(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copytree(ROOT / "gx", tmp_path / "gx", ignore=shutil.ignore_patterns("uncommitted"))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RUN_DAG), str(DAG_FILE)],
        cwd=tmp_path,
        env={
            **os.environ,
            "TZ": "Pacific/Kiritimati",
            "AIRFLOW_HOME": str(tmp_path / "airflow"),
            "DQX_GX_PROJECT": str(tmp_path),
            "DQX_GX_ORDERS_DATA": str(EXAMPLES / "orders" / "data"),
        },
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))[len("RESULT") :])
    assert found.pop("imported_before_run") is False
    assert sorted(found) == ["validate_bad_orders", "validate_good_orders"]
    for batch in ("good", "bad"):
        capsys.readouterr()
        with contextlib.suppress(SystemExit):
            main(
                [
                    "validate",
                    str(ORDERS),
                    "--data",
                    str(EXAMPLES / "orders" / "data" / f"{batch}.parquet"),
                    "--output",
                    "json",
                ]
            )
        report = json.loads(capsys.readouterr().out)
        expected = {r["assertion"]: r["status"] == "PASSED" for r in report["results"] if r["status"] != "SKIPPED"}
        task = found[f"validate_{batch}_orders"]
        assert task["rules"] == expected, batch
        assert task["failed"] is not all(expected.values())
    assert found["validate_bad_orders"]["failed"] is True
    assert len(found["validate_bad_orders"]["rules"]) == 20
    assert not found["validate_bad_orders"]["rules"]["SLA: Freshness check"]
