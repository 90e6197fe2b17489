"""A checkpoint's actions that dqx-gx did not write survive ``translate`` and ``validate --gx-dir``: kept as their
stored JSON, where they were, without their classes (a type no process has registered); dqx-gx's own actions
are replaced in place, new ones added after them; ``translate`` alone removes its own actions it no longer writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from dqx_gx.notify import parse_target
from tests.conftest import EXAMPLES
from tests.recording import closed_port

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")
NOW = ["--now", "2026-11-22T12:00:00Z"]
AUDIT = {"name": "audit", "type": "acme_audit_action", "site": "https://audit.example.org", "levels": [1, 2]}
"""An action of the user's whose class no process has imported."""
DATAHUB_OWN = {
    "name": "datahub",
    "type": "datahub_validation_action",
    "server_url": "http://datahub-gms:8080",
    "platform": "spark",
    "token": "${DATAHUB_TOKEN}",
}
"""The user's own DataHub action (DataHub's plugin), as GX stores it."""


def checkpoint_file(project: Path) -> Path:
    return project / "gx" / "checkpoints" / "orders_contract.orders_tbl.json"


def actions(project: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(checkpoint_file(project).read_text())["actions"]
    return found


def names(project: Path) -> list[str]:
    return [action["name"] for action in actions(project)]


def add_own_actions(project: Path) -> None:
    """The user's actions, put by hand between dqx-gx's guard and data docs action and after them."""
    record = json.loads(checkpoint_file(project).read_text())
    guard, docs = record["actions"]
    record["actions"] = [guard, AUDIT, docs, DATAHUB_OWN]
    checkpoint_file(project).write_text(json.dumps(record, indent=2, sort_keys=True))


def test_translate_keeps_the_user_s_actions_and_writes_its_own_anew(tmp_path: Path) -> None:
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path)]) == 0
    add_own_actions(tmp_path)
    before = checkpoint_file(tmp_path).read_text()
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path)]) == 0
    assert checkpoint_file(tmp_path).read_text() == before  # nothing to change, nothing changed
    hook = parse_target("webhook:https://hooks.example.org/a")
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), "--notify", str(hook)]) == 0
    assert names(tmp_path) == ["dqx_gx_guard", "audit", "update_data_docs", "datahub", hook.action_name]
    assert actions(tmp_path)[1] == AUDIT and actions(tmp_path)[3] == DATAHUB_OWN
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path)]) == 0  # the alert is no longer asked for
    assert checkpoint_file(tmp_path).read_text() == before


def test_validate_keeps_every_action_it_did_not_write_and_runs_only_its_own(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path)]) == 0
    add_own_actions(tmp_path)
    stored = parse_target("webhook:https://hooks.example.org/stored")
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), "--notify", str(stored)]) == 0
    asked = parse_target(f"webhook:http://127.0.0.1:{closed_port()}/validate")
    capsys.readouterr()
    code = main(["validate", ORDERS, "--data", BAD, *NOW, "--gx-dir", str(tmp_path), "--notify", str(asked)])
    assert code == 1
    err = capsys.readouterr().err
    assert "acme_audit_action" not in err  # not built, not run, not complained about
    assert "https://hooks.example.org/stored" not in err  # translate's alert is the platform's, not run here
    assert f"warning: alert to {asked} not delivered: ConnectionError" in err  # validate's own alert ran
    kept = actions(tmp_path)
    assert [a["name"] for a in kept] == [
        "dqx_gx_guard",
        "audit",
        "update_data_docs",  # stays, though this validate builds no data docs
        "datahub",
        stored.action_name,  # stays, though this validate did not ask for it
        asked.action_name,
    ]
    assert (kept[1], kept[3]) == (AUDIT, DATAHUB_OWN)
    assert kept[4]["url"] == "https://hooks.example.org/stored"
