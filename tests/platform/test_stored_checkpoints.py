"""A project dqx-gx writes runs on a GX platform: no parameters passed, nothing of dqx-gx imported by the
caller, the same verdicts as ``dqx-gx validate``, and freshness measured in UTC whatever the machine's zone."""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from dqx_gx.rules.timestamps import from_local_wall_clock
from tests.conftest import EXAMPLES, ROOT, dedent
from tests.recording import closed_port, recording_server

ORDERS = EXAMPLES / "orders" / "orders.odcs.yaml"
BATCHES = {"good": EXAMPLES / "orders" / "data" / "good.parquet", "bad": EXAMPLES / "orders" / "data" / "bad.parquet"}
ZONES = ["Pacific/Kiritimati", "America/Adak"]  # UTC+14; UTC-10 (-9 in summer, so it has a repeated hour)

EVENTS = dedent(
    """
    apiVersion: v3.1.0
    kind: DataContract
    id: platform-events
    name: events_contract
    version: 1.0.0
    status: active
    slaProperties:
      - {property: latency, value: 2, unit: h, element: events.updated_at}
    schema:
      - name: events
        properties:
          - {name: id, logicalType: integer, required: true}
          - {name: updated_at, logicalType: timestamp, required: true}
    """
)

PLATFORM_RUN = """
    import json, sys
    import great_expectations as gx
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    outcomes = {}
    for project, checkpoint_name, batches in json.loads(sys.argv[1]):
        checkpoint = gx.get_context(mode="file", project_root_dir=project).checkpoints.get(checkpoint_name)
        for name, path in batches.items():
            result = checkpoint.run(batch_parameters={"dataframe": spark.read.parquet(path)})
            outcomes[name] = {
                evr.expectation_config.meta["dqx"]["rule_id"]: evr.success
                for suite in result.run_results.values() for evr in suite.results
            }
    print("RESULT" + json.dumps({"outcomes": outcomes, "dqx_gx_imported_by": sorted(
        m for m in ("dqx_gx", "dqx_gx.expectations") if m in sys.modules)}))
"""


def platform_run(jobs: list[tuple[Path, str, dict[str, Path]]], zone: str) -> dict[str, Any]:
    """Plain GX in a new interpreter, in ``zone``: for each (project, checkpoint, batches), open the project
    and run the stored checkpoint on each batch, no parameters passed."""
    given = [(str(project), name, {b: str(path) for b, path in batches.items()}) for project, name, batches in jobs]
    return plain_gx(PLATFORM_RUN, json.dumps(given), cwd=jobs[0][0], env={"TZ": zone})


def plain_gx(script: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``script`` in a new interpreter that imports only what it imports (GX, PySpark): the JSON it prints after
    ``RESULT``. Run in ``cwd``, not the repository: dqx_gx comes from the environment, as on a worker."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=cwd,
        env={**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT"))
    found: dict[str, Any] = json.loads(line[len("RESULT") :])
    return found


def validate(capsys: pytest.CaptureFixture[str], contract: Path, data: Path) -> dict[str, bool]:
    """``dqx-gx validate`` on the same data, at the current time: rule id → passed."""
    capsys.readouterr()
    with contextlib.suppress(SystemExit):
        main(["validate", str(contract), "--data", str(data), "--output", "json"])
    report = json.loads(capsys.readouterr().out)
    return {r["rule_id"]: r["status"] == "PASSED" for r in report["results"] if r["status"] != "SKIPPED"}


@pytest.fixture(scope="module")
def projects(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str, dict[str, Path]]]:
    """The translated orders example with its two batches, and a contract whose 2-hour latency decides on
    batches one hour (passes) and three hours old (fails)."""
    orders = tmp_path_factory.mktemp("orders_project")
    assert main(["translate", str(ORDERS), "--gx-dir", str(orders)]) == 0
    events = tmp_path_factory.mktemp("events_project")
    (events / "events.odcs.yaml").write_text(EVENTS)
    assert main(["translate", str(events / "events.odcs.yaml"), "--gx-dir", str(events)]) == 0
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    batches = {}
    for name, age in (("fresh", 1), ("stale", 3)):
        batches[name] = events / f"{name}.parquet"
        rows = [(1, now - dt.timedelta(hours=age)), (2, now - dt.timedelta(hours=age + 5))]
        spark.createDataFrame(rows, "id long, updated_at timestamp").write.parquet(str(batches[name]))
    return [(orders, "orders_contract.orders_tbl", BATCHES), (events, "events_contract.events", batches)]


@pytest.mark.slow
@pytest.mark.parametrize("zone", ZONES)
def test_stored_checkpoints_run_with_no_parameters_in_utc_with_the_verdicts_of_validate(
    capsys: pytest.CaptureFixture[str], projects: list[tuple[Path, str, dict[str, Path]]], zone: str
) -> None:
    """Read as UTC, GX's local ``now()`` would be 14 hours late in Kiritimati (the fresh batch would fail)
    and 10 early in Adak (the stale one would pass)."""
    found = platform_run(projects, zone)
    assert found["dqx_gx_imported_by"] == ["dqx_gx", "dqx_gx.expectations"]  # by opening the project
    outcomes = found["outcomes"]
    assert {name: outcomes[name]["slaProperties[0]"] for name in ("fresh", "stale")} == {"fresh": True, "stale": False}
    assert len(outcomes["bad"]) == 20
    assert sorted(rule for rule, passed in outcomes["bad"].items() if not passed) == [
        "schema[0].properties[1].quality[0]",
        "schema[0].properties[2].quality[1]",
        "schema[0].properties[2].required",
        "schema[0].quality[1]",
        "slaProperties[0]",
    ]
    for (project, _, batches), contract in zip(projects, (ORDERS, projects[1][0] / "events.odcs.yaml"), strict=True):
        for name, path in batches.items():
            assert outcomes[name] == validate(capsys, contract, path), (project, name)


@pytest.mark.slow
def test_a_repeated_wall_clock_hour_is_the_instant_that_has_just_passed() -> None:
    """America/Adak sets its clocks back at 02:00 on 2026-11-01: 01:30 happens at 10:30 and at 11:30 UTC."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import datetime as dt
                from dqx_gx.rules.timestamps import from_local_wall_clock
                wall = dt.datetime(2026, 11, 1, 1, 30)
                for now in ("10:31", "11:31", "12:00"):
                    at = dt.datetime.fromisoformat(f"2026-11-01T{now}:00+00:00")
                    print(from_local_wall_clock(wall, now=at).isoformat())
                print(from_local_wall_clock(dt.datetime(2026, 7, 1, 12, 0)).isoformat())
                """
            ),
        ],
        env={**os.environ, "TZ": "America/Adak", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == [
        "2026-11-01T10:30:00+00:00",
        "2026-11-01T11:30:00+00:00",
        "2026-11-01T11:30:00+00:00",
        "2026-07-01T21:00:00+00:00",
    ]
    assert from_local_wall_clock is not None


EVERY_ACTION_RUN = """
    import json, sys, warnings
    import great_expectations as gx
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    checkpoint = gx.get_context(mode="file", project_root_dir=sys.argv[1]).checkpoints.get(sys.argv[2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = checkpoint.run(batch_parameters={"dataframe": spark.read.parquet(sys.argv[3])})
    print("RESULT" + json.dumps({
        "actions": [action.type for action in checkpoint.actions],
        "not_delivered": [str(w.message) for w in caught if "not delivered" in str(w.message)],
    }))
"""


@pytest.mark.slow
def test_every_action_dqx_gx_stores_loads_and_runs_where_only_gx_is_imported(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The guard, data docs, each alert and DataHub's results: opening the project registers them all."""
    if importlib.util.find_spec("aiosmtpd") is None and not os.environ.get("CI"):
        pytest.skip("aiosmtpd is not installed")
    from aiosmtpd.controller import Controller  # noqa: PLC0415 - only when installed (CI: always)

    mails: list[bytes] = []

    class Mailbox:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            mails.append(envelope.content)
            return "250 OK"

    port = closed_port()
    smtp = Controller(Mailbox(), hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        with recording_server() as (url, recorded):
            targets = [f"webhook:{url}/hook", f"slack:{url}/slack", f"teams:{url}/teams", "email:team@example.org"]
            targets.append(f"datahub:{url}")
            flags = [flag for target in targets for flag in ("--notify", target)]
            assert main(["translate", str(ORDERS), "--gx-dir", str(tmp_path), *flags]) == 0
            env = {"DQX_GX_SMTP_HOST": "127.0.0.1", "DQX_GX_SMTP_PORT": str(port), "DQX_GX_SMTP_FROM": "gx@example.org"}
            found = plain_gx(
                EVERY_ACTION_RUN,
                str(tmp_path),
                "orders_contract.orders_tbl",
                str(BATCHES["bad"]),
                cwd=tmp_path,
                env=env,
            )
    finally:
        smtp.stop()
    assert found["actions"] == [
        "dqx_gx_guard",
        "update_data_docs",
        "dqx_gx_webhook",
        "dqx_gx_slack",
        "dqx_gx_teams",
        "dqx_gx_email",
        "dqx_gx_datahub",
    ]
    assert [len(recorded.on(path)) for path in ("/hook", "/slack", "/teams")] == [1, 1, 1]
    assert recorded.on("/hook")[0]["verdict"] == "rejected"
    assert len(mails) == 1
    if importlib.util.find_spec("datahub_gx_plugin") is None and not os.environ.get("CI"):
        # without the datahub extra the stored action still loads and runs, and says what it could not do
        assert found["not_delivered"] == [
            f"results to datahub:{url} not delivered: DataHub's GX plugin is not installed here "
            "(pip install 'dqx-gx[datahub]')"
        ]
        assert recorded.proposals() == []
        return
    assert found["not_delivered"] == []
    assert {p["aspectName"] for p in recorded.proposals()} == {
        "assertionInfo",
        "dataPlatformInstance",
        "assertionRunEvent",
        "datasetProperties",
    }
