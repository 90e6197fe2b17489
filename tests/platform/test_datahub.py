"""``--notify datahub:GMS_URL``: DataHub's own GX action (the real plugin) posts to a recording GMS on 127.0.0.1,
and what it posts says what dqx-gx says: one named assertion per rule with a URN that holds across runs and
platforms, dqx-gx's statuses and severities, SKIPPED with its reason, rows marked and samples, the verdict.

Needs the ``datahub`` extra. Skipped without it, except under CI, where a missing extra is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import DataFrame, SparkSession

import dqx_gx.actions
from dqx_gx import Contract, ContractWarning, notify, run_contract
from dqx_gx.actions.datahub import datahub_action
from dqx_gx.cli import main
from dqx_gx.errors import NotDelivered
from dqx_gx.notify import parse_target
from tests.conftest import EXAMPLES
from tests.platform.test_stored_checkpoints import plain_gx
from tests.recording import Recorded, closed_port, recording_server
from tests.rows.test_samples import SALARY, SECRET, contract_document, people

if importlib.util.find_spec("datahub_gx_plugin") is None:
    if os.environ.get("CI"):
        pytest.fail("CI runs DataHub's GX plugin: install the datahub extra (.[test,airflow,datahub])")
    pytest.skip("the datahub extra is not installed", allow_module_level=True)

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")
DATASET = "urn:li:dataset:(urn:li:dataPlatform:spark,orders_tbl,PROD)"
EVENT_TYPE = {"PASSED": "SUCCESS", "FAILED": "FAILURE", "SKIPPED": "ERROR"}
EPSILON_SHIFTED = re.compile(r"9{8}|0{8}1")
"""A bound GX stores ε = 1e-9 away from the contract's (``99.999999999``, ``0.000000001``)."""
DATAHUB_SEVERITY = {"P0": "HIGH", "P1": "MEDIUM", "P2": "LOW", "P3": "LOW"}


@pytest.fixture
def gms() -> Iterator[tuple[str, Recorded]]:
    with recording_server() as running:
        yield running


def published(recorded: Recorded) -> dict[str, dict[str, Any]]:
    """Assertion URN → its ``info`` and its run ``event``, from the proposals the GMS received."""
    found: dict[str, dict[str, Any]] = {}
    for proposal in recorded.proposals():
        if proposal["aspectName"] == "assertionInfo":
            found.setdefault(proposal["entityUrn"], {})["info"] = proposal["value"]
        elif proposal["aspectName"] == "assertionRunEvent":
            found.setdefault(proposal["entityUrn"], {})["event"] = proposal["value"]
    return found


def by_rule(assertions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rule name (``verdict`` for the batch verdict) → assertion, with its ``urn``."""
    return {a["info"]["customProperties"].get("rule", "verdict"): {**a, "urn": urn} for urn, a in assertions.items()}


def validate(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["validate", ORDERS, "--data", BAD, "--output", "json", *flags])
    return code, json.loads(capsys.readouterr().out)


def test_each_rule_is_one_assertion_named_by_the_rule_with_dqx_gx_s_verdicts(
    spark: SparkSession, gms: tuple[str, Recorded], capsys: pytest.CaptureFixture[str]
) -> None:
    url, recorded = gms
    code, report = validate(capsys, "--now", "2026-11-22T12:00:00Z", "--notify", f"datahub:{url}")
    assert code == 1 and report["warnings"] == []
    assertions = by_rule(published(recorded))
    results = {r["assertion"]: r for r in report["results"]}
    assert set(assertions) == {*results, "verdict"}  # one assertion per rule, the skipped SQL rule too
    for name, result in results.items():
        info, event = assertions[name]["info"], assertions[name]["event"]
        assert info["description"] == f"{name}: {result['expression']}"
        assert info["customAssertion"]["logic"] == result["expression"]
        assert info["customProperties"]["severity"] == result["severity"]
        assert info["customAssertion"]["entity"] == event["asserteeUrn"] == DATASET
        parameters = info["customAssertion"]["nativeParameters"].values()
        assert not any(EPSILON_SHIFTED.search(value) for value in parameters), name  # the contract's numbers
        outcome = event["result"]
        assert (outcome["type"], outcome["nativeResults"]["status"]) == (EVENT_TYPE[result["status"]], result["status"])
        failed = result["status"] == "FAILED"
        assert outcome.get("severity") == (DATAHUB_SEVERITY[result["severity"]] if failed else None)
        if result["status"] == "SKIPPED":
            assert outcome["nativeResults"]["reason"] == result["reason"]
            assert outcome["error"]["properties"]["message"] == f"skipped: {result['reason']}"
        if result["rows_marked"] is not None:
            assert outcome["unexpectedCount"] == result["rows_marked"]
            assert outcome["nativeResults"]["rows_marked"] == str(result["rows_marked"])
        for detail in result["details"]:
            shown = json.loads(outcome["nativeResults"][detail["title"]])
            assert (shown["columns"], shown["rows"]) == (detail["columns"], detail["rows"])
    statuses = assertions["status_valid_values"]["event"]["result"]["nativeResults"]
    assert (statuses["rows_marked"], json.loads(statuses["failed rows"])["rows"]) == ("1", [["2", "returned", "22.0"]])
    skipped = assertions["fraud_sql_check"]["event"]["result"]["nativeResults"]["reason"]
    assert skipped.startswith("type 'sql' rules run only when allowed")
    verdict = assertions["verdict"]
    assert verdict["info"]["description"].startswith("Contract: orders_contract: the batch verdict")
    assert verdict["event"]["result"]["type"] == "FAILURE"
    assert verdict["event"]["result"]["nativeResults"] == {
        "verdict": "rejected",
        "rules": "21",
        "failed": "5",
        "failed_p0": "5",
        "skipped": "1",
    }
    (patch,) = [p for p in recorded.proposals() if p["aspectName"] == "datasetProperties"]
    assert (patch["entityUrn"], patch["changeType"]) == (DATASET, "PATCH")
    assert patch["value"] == [
        {"op": "add", "path": "/customProperties/dqx-gx verdict (Contract: orders_contract)", "value": "rejected"}
    ]


PLATFORM_RUN = """
    import json, sys
    import great_expectations as gx
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    context = gx.get_context(mode="file", project_root_dir=sys.argv[1])
    result = context.checkpoints.get("orders_contract.orders_tbl").run(
        batch_parameters={"dataframe": spark.read.parquet(sys.argv[2])}
    )
    print("RESULT" + json.dumps({"success": result.success, "plugin": "datahub_gx_plugin" in sys.modules}))
"""


def platform_run(project: Path, data: str) -> dict[str, Any]:
    """Plain GX in a new interpreter runs the stored checkpoint: nothing of dqx-gx or DataHub imported by it."""
    return plain_gx(PLATFORM_RUN, str(project), data, cwd=project)


@pytest.mark.slow
def test_a_rule_keeps_its_urn_across_runs_and_from_a_platform_s_run_of_the_stored_checkpoint(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs measured from other moments (the freshness rule's GX arguments hold the run's moment) and a
    platform's run of what ``translate`` stored publish to the same assertions, with the same statuses."""
    runs: list[dict[str, dict[str, Any]]] = []
    reports = []
    for now in ("2026-11-22T12:00:00Z", "2026-11-25T08:30:00Z"):
        with recording_server() as (url, recorded):
            reports.append(validate(capsys, "--now", now, "--notify", f"datahub:{url}")[1])
            runs.append(by_rule(published(recorded)))
    with recording_server() as (url, recorded):
        assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), "--notify", f"datahub:{url}"]) == 0
        found = platform_run(tmp_path, BAD)
        runs.append(by_rule(published(recorded)))
    assert found == {"success": False, "plugin": True}  # DataHub's plugin imported by the action, when it ran
    urns = [{name: a["urn"] for name, a in run.items()} for run in runs]
    assert len(urns[0]) == 22
    assert urns[0] == urns[1] == urns[2]
    statuses = [{name: a["event"]["result"]["nativeResults"].get("status") for name, a in run.items()} for run in runs]
    assert statuses[0]["SLA: Freshness check"] == "FAILED"
    assert statuses[0] == statuses[2]  # measured from the platform's now: the data is days old either way
    assert statuses[2]["fraud_sql_check"] == "SKIPPED"
    assert runs[2]["status_valid_values"]["event"]["result"]["nativeResults"]["rows_marked"] == "1"
    assert runs[2]["verdict"]["event"]["result"]["nativeResults"]["verdict"] == "rejected"
    assert {r["assertion"]: r["status"] for r in reports[1]["results"]} | {"verdict": None} == statuses[1]


def test_sensitive_values_never_reach_datahub(spark: SparkSession, gms: tuple[str, Recorded]) -> None:
    url, recorded = gms
    (contract,) = Contract.from_odcs(contract_document())
    run = run_contract(contract, people(spark, 3), notify=[f"datahub:{url}"])
    assert run.outcome == "rejected" and run.warnings == ()
    sent = json.dumps([post.body for post in recorded.posts])
    assert SECRET not in sent and str(SALARY) not in sent
    assertions = by_rule(published(recorded))
    native = assertions["salary cap"]["event"]["result"]["nativeResults"]
    assert native["observed_value"] == "***"
    assert {row[1] for row in json.loads(native["failed rows"])["rows"]} == {"***"}  # id, salary


def test_token_dataset_and_environment_as_given_and_a_gms_not_reached_is_named(
    spark: SparkSession, orders: Contract, gms: tuple[str, Recorded], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, recorded = gms
    frame: DataFrame = spark.read.parquet(BAD)
    monkeypatch.setenv("DQX_GX_TEST_DATAHUB_TOKEN", "t0k3n")
    target = f"datahub:{url},token=env:DQX_GX_TEST_DATAHUB_TOKEN,platform=hive,dataset=sales.orders,env=dev,instance=eu"
    nowhere = f"http://127.0.0.1:{closed_port()}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = run_contract(orders, frame, notify=[target, f"datahub:{nowhere}"])
    assert run.outcome == "rejected"
    (missed,) = run.warnings
    assert missed.startswith(f"results to datahub:{nowhere} not delivered: OperationalError: Unable to emit metadata")
    assert "Connection refused" in missed
    assert missed in [str(w.message) for w in caught if issubclass(w.category, ContractWarning)]
    assert {post.headers["Authorization"] for post in recorded.posts} == {"Bearer t0k3n"}
    datasets = {a["event"]["asserteeUrn"] for a in published(recorded).values()}
    assert datasets == {"urn:li:dataset:(urn:li:dataPlatform:hive,eu.sales.orders,DEV)"}


def test_the_stored_action_keeps_secrets_out(tmp_path: Path) -> None:
    flags = ["--notify", "datahub:env:DQX_GX_GMS,token=env:DQX_GX_DATAHUB_TOKEN"]
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), *flags]) == 0
    stored = json.loads((tmp_path / "gx" / "checkpoints" / "orders_contract.orders_tbl.json").read_text())
    (action,) = [a for a in stored["actions"] if a["type"] == "dqx_gx_datahub"]
    assert {k: action[k] for k in ("server_url", "token", "platform", "dataset_name", "env", "contract")} == {
        "server_url": "${DQX_GX_GMS}",
        "token": "${DQX_GX_DATAHUB_TOKEN}",
        "platform": "spark",
        "dataset_name": "orders_tbl",
        "env": "PROD",
        "contract": "Contract: orders_contract",
    }
    assert [s["rule"] for s in action["skipped"]] == ["fraud_sql_check"]


def test_without_the_plugin_a_run_is_refused_before_it_starts_and_a_platform_s_run_names_what_was_not_published(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), "--notify", "datahub:http://127.0.0.1:9"]) == 0
    monkeypatch.setattr(notify, "DATAHUB_PLUGIN", "datahub_gx_plugin_not_here")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["validate", ORDERS, "--data", BAD, "--notify", "datahub:http://127.0.0.1:9"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "error: --notify datahub:http://127.0.0.1:9: DataHub's GX plugin is not installed here "
        "(pip install 'dqx-gx[datahub]')"
    )
    monkeypatch.delitem(sys.modules, "dqx_gx.actions.datahub_proposals", raising=False)
    monkeypatch.delattr(dqx_gx.actions, "datahub_proposals", raising=False)
    monkeypatch.setitem(sys.modules, "datahub_gx_plugin.action_v1", None)  # type: ignore[arg-type]  # not importable
    checkpoint = gx.get_context(mode="file", project_root_dir=str(tmp_path)).checkpoints.get(
        "orders_contract.orders_tbl"
    )
    with pytest.warns(NotDelivered) as caught:
        result = checkpoint.run(batch_parameters={"dataframe": spark.read.parquet(BAD)})
    assert not result.success  # GX's result, as without the action
    assert [str(w.message) for w in caught if issubclass(w.category, NotDelivered)] == [
        "results to datahub:http://127.0.0.1:9 not delivered: DataHub's GX plugin is not installed here "
        "(pip install 'dqx-gx[datahub]')"
    ]


@pytest.mark.parametrize(
    ("servers", "platform"),
    [
        ([], "spark"),
        ([{"server": "lake", "type": "local", "path": "/d", "format": "parquet"}], "file"),
        ([{"server": "db", "type": "postgres", "host": "h", "port": 5432, "database": "d", "schema": "s"}], "postgres"),
    ],
)
def test_the_dataset_is_on_the_platform_of_the_contract_s_server(servers: list[dict[str, Any]], platform: str) -> None:
    document = {**contract_document(), "servers": servers}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = Contract.from_odcs(document)
    action = datahub_action(parse_target("datahub:http://gms:8080"), contract, [])
    assert (action.platform, action.dataset_name) == (platform, "people")
    overridden = datahub_action(
        parse_target("datahub:http://gms:8080,platform=delta-lake,dataset=db.people"), contract, []
    )
    assert (overridden.platform, overridden.dataset_name) == ("delta-lake", "db.people")
