"""Alerts through GX's actions, fired by dqx-gx's verdict: real HTTP and SMTP servers on 127.0.0.1."""

from __future__ import annotations

import email
import importlib.util
import json
import os
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from pyspark.sql import DataFrame, SparkSession

from dqx_gx import Contract, ContractWarning, run_contract
from dqx_gx.actions import alerts
from dqx_gx.cli import main
from dqx_gx.errors import NotDelivered
from dqx_gx.expectations import measured_at
from dqx_gx.notify import fires, parse_target
from tests.conftest import EXAMPLES
from tests.expectations.test_orders_contract import NOW, SCHEMA, good_rows, set_column
from tests.recording import REFUSES, SLOW, Recorded, closed_port, recording_server

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
BAD = str(EXAMPLES / "orders" / "data" / "bad.parquet")
VERDICTS = ("rejected", "passed_with_warnings", "passed")


@pytest.fixture
def server() -> Iterator[tuple[str, Recorded]]:
    with recording_server() as running:
        yield running


@pytest.fixture(scope="module")
def bad(spark: SparkSession) -> DataFrame:
    return spark.read.parquet(BAD)


def test_a_rejected_run_posts_one_message_to_each_target(
    bad: DataFrame, orders: Contract, server: tuple[str, Recorded]
) -> None:
    url, received = server
    run = run_contract(orders, bad, now=NOW, notify=[f"webhook:{url}/hook", f"slack:{url}/slack", f"teams:{url}/teams"])
    assert run.outcome == "rejected"
    (hook,) = received.on("/hook")
    assert {k: hook[k] for k in ("contract", "dataset", "verdict", "skipped", "data_docs")} == {
        "contract": "Contract: orders_contract",
        "dataset": "orders_tbl",
        "verdict": "rejected",
        "skipped": 1,
        "data_docs": None,
    }
    assert {f["rule"]: (f["severity"], f["observed"]) for f in hook["failing"]} == {
        "total_amount has no nulls (required)": ("P0", 1),
        "total_amount_complete": ("P0", pytest.approx(1 / 121)),  # return: pct is a fraction of the rows
        "status_valid_values": ("P0", 1),
        "composite_key_unique": ("P0", 1),
        "SLA: Freshness check": ("P0", 84.0),
    }
    (slack,) = received.on("/slack")
    assert slack["text"].splitlines()[0] == "dqx-gx: Contract: orders_contract on orders_tbl: rejected"
    assert "[P0] SLA: Freshness check: observed 84.0" in slack["text"].splitlines()
    assert "1 rule(s) skipped" in slack["text"].splitlines()
    (teams,) = received.on("/teams")
    card = teams["attachments"][0]["content"]
    assert [block["text"] for block in card["body"]] == slack["text"].splitlines()


def test_the_verdict_not_gx_success_decides(
    spark: SparkSession, orders: Contract, server: tuple[str, Recorded]
) -> None:
    """A P1 failure fails GX's checkpoint but passes the gate with warnings: no alert unless asked for."""
    url, received = server
    frame = spark.createDataFrame(set_column(2, 1000.0)(good_rows()), SCHEMA)  # average_order_value (P1) fails
    quiet = run_contract(orders, frame, now=NOW, notify=[f"webhook:{url}/rejected"])
    assert not quiet.checkpoint_result.success
    assert quiet.outcome == "passed_with_warnings"
    assert received.on("/rejected") == []
    run_contract(orders, frame, now=NOW, notify=[f"webhook:{url}/warnings"], notify_on="warnings")
    (hook,) = received.on("/warnings")
    assert hook["verdict"] == "passed_with_warnings"
    assert hook["failing"] == [{"rule": "average_order_value_reasonable", "severity": "P1", "observed": 1000.0}]
    good = spark.createDataFrame(good_rows(), SCHEMA)
    run_contract(orders, good, now=NOW, notify=[f"webhook:{url}/quiet"], notify_on="warnings")
    run_contract(orders, good, now=NOW, notify=[f"webhook:{url}/always"], notify_on="always")
    assert [(hook["verdict"], hook["failing"], hook["skipped"]) for hook in received.on("/quiet")] == [
        ("passed_with_warnings", [], 1)  # the SQL rule is skipped without allow_sql
    ]
    assert [hook["failing"] for hook in received.on("/always")] == [[]]


def test_an_unreachable_target_is_named_and_the_result_is_kept(
    bad: DataFrame, orders: Contract, server: tuple[str, Recorded], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused, unreachable, not answering in time (Slack and Teams too: GX's own senders wait for ever), or an
    unset variable: each named, in a warning and in the run's warnings; the run is the same."""
    url, received = server
    monkeypatch.setattr(alerts, "TIMEOUT_SECONDS", 0.5)
    monkeypatch.delenv("DQX_GX_UNSET_HOOK", raising=False)
    nowhere = f"http://127.0.0.1:{closed_port()}/hook"
    targets = [
        f"webhook:{nowhere}",
        f"slack:{nowhere}",
        f"webhook:{url}{REFUSES}",
        f"slack:{url}{SLOW}",
        f"teams:{url}{SLOW}",
        "webhook:env:DQX_GX_UNSET_HOOK",
        f"webhook:{url}/hook",
    ]
    with pytest.warns(ContractWarning) as caught:
        run = run_contract(orders, bad, now=NOW, notify=targets)
    named = [str(w.message) for w in caught if issubclass(w.category, NotDelivered)]
    assert named == list(run.warnings)
    assert [m.split(" not delivered: ")[0] for m in named] == [
        f"alert to webhook:{nowhere}",
        f"alert to slack:{nowhere}",
        f"alert to webhook:{url}{REFUSES}",
        f"alert to slack:{url}{SLOW}",
        f"alert to teams:{url}{SLOW}",
        "alert to webhook:env:DQX_GX_UNSET_HOOK",
    ]
    reasons = [m.split(" not delivered: ")[1] for m in named]
    assert reasons[0].startswith("ConnectionError: ") and reasons[1].startswith("ConnectionError: ")
    assert reasons[2].startswith("HTTPError: 500 Server Error")
    assert reasons[3].startswith("ReadTimeout: ") and reasons[4].startswith("ReadTimeout: ")
    assert reasons[5].startswith("MissingConfigVariableError: ")  # named by the target: webhook:env:DQX_GX_UNSET_HOOK
    assert run.outcome == "rejected" and len(run.results) == 21
    assert len(received.on("/hook")) == 1


def test_a_stored_checkpoint_alerts_on_a_platform_reading_the_secret_when_it_runs(
    bad: DataFrame, tmp_path: Path, server: tuple[str, Recorded], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, received = server
    assert main(["translate", ORDERS, "--gx-dir", str(tmp_path), "--notify", "webhook:env:DQX_GX_TEST_HOOK"]) == 0
    stored = (tmp_path / "gx" / "checkpoints" / "orders_contract.orders_tbl.json").read_text()
    assert '"url": "${DQX_GX_TEST_HOOK}"' in stored and url not in stored
    monkeypatch.setenv("DQX_GX_TEST_HOOK", f"{url}/platform")
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    with measured_at(NOW):
        context.checkpoints.get("orders_contract.orders_tbl").run(batch_parameters={"dataframe": bad})
    (hook,) = received.on("/platform")
    assert hook["verdict"] == "rejected"
    assert len(hook["failing"]) == 5
    assert hook["data_docs"].startswith("file://") and hook["data_docs"].endswith(".html")
    assert Path(hook["data_docs"].removeprefix("file://")).is_file()


def test_the_command_takes_notify_names_what_is_not_delivered_and_refuses_a_bad_target(
    spark: SparkSession, server: tuple[str, Recorded], capsys: pytest.CaptureFixture[str]
) -> None:
    url, received = server
    capsys.readouterr()
    code = main(
        [
            "validate",
            ORDERS,
            "--data",
            BAD,
            "--now",
            "2026-11-22T12:00:00Z",
            "--output",
            "json",
            "--notify",
            f"webhook:{url}/cli",
            "--notify",
            f"webhook:{url}{REFUSES}",
        ]
    )
    assert code == 1  # as without the refused alert
    assert received.on("/cli")[0]["verdict"] == "rejected"
    out, err = capsys.readouterr()
    named = f"alert to webhook:{url}{REFUSES} not delivered: HTTPError: 500 Server Error"
    assert next(line for line in err.splitlines() if "not delivered" in line).startswith(f"warning: {named}")
    report = json.loads(out)
    assert [w[: len(named)] for w in report["warnings"]] == [named]
    assert report["outcome"] == "rejected"
    for bad_target, message in (
        ("pager:http://x", "'pager:http://x': the kind is one of slack, teams, webhook, email, datahub"),
        ("slack:hooks.slack.com", "'slack:hooks.slack.com': a slack target is an http(s):// URL or env:NAME"),
        ("email:nobody", "'email:nobody': not an email address"),
        ("datahub:gms:8080", "'datahub:gms:8080': a datahub target is an http(s):// URL or env:NAME"),
        ("datahub:http://gms:8080,token=abc", "'datahub:http://gms:8080,token=abc': the token is read from the"),
        ("datahub:http://gms:8080,user=me", "'datahub:http://gms:8080,user=me': after the URL come KEY=VALUE"),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            main(["validate", ORDERS, "--data", BAD, "--notify", bad_target])
        assert exit_.value.code == 2
        assert (
            capsys.readouterr().err.splitlines()[-1].startswith(f"dqx-gx validate: error: argument --notify: {message}")
        )


def test_email_goes_through_a_local_smtp_server(
    bad: DataFrame, orders: Contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    if importlib.util.find_spec("aiosmtpd") is None:
        if os.environ.get("CI"):
            pytest.fail("CI runs the email alert test: aiosmtpd is in the test extra")
        pytest.skip("aiosmtpd is not installed")
    from aiosmtpd.controller import Controller  # noqa: PLC0415 - only when installed (CI: always)

    messages: list[Message] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            messages.append(email.message_from_bytes(envelope.content))
            return "250 OK"

    port = closed_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        monkeypatch.setenv("DQX_GX_SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("DQX_GX_SMTP_PORT", str(port))
        monkeypatch.setenv("DQX_GX_SMTP_FROM", "dqx-gx@example.org")
        run_contract(orders, bad, now=NOW, notify=["email:data-team@example.org"])
    finally:
        controller.stop()
    (message,) = messages
    assert message["Subject"] == "dqx-gx: Contract: orders_contract on orders_tbl: rejected"
    assert (message["From"], message["To"]) == ("dqx-gx@example.org", "data-team@example.org")
    (part,) = message.get_payload()
    assert "[P0] SLA: Freshness check: observed 84.0" in part.get_payload(decode=True).decode()


@pytest.mark.parametrize(
    ("notify_on", "fired"),
    [("rejected", ["rejected"]), ("warnings", ["rejected", "passed_with_warnings"]), ("always", list(VERDICTS))],
)
def test_which_verdicts_fire(notify_on: str, fired: list[str]) -> None:
    assert [verdict for verdict in VERDICTS if fires(verdict, notify_on)] == fired  # type: ignore[arg-type]


def test_a_secret_given_as_env_is_stored_as_gx_s_substitution() -> None:
    assert parse_target("slack:env:TEAM_HOOK").stored == "${TEAM_HOOK}"
    datahub = parse_target("datahub:env:GMS,token=env:DH_TOKEN,platform=hive,dataset=sales.orders,env=dev")
    assert (datahub.stored, datahub.option("token"), datahub.option("env")) == ("${GMS}", "env:DH_TOKEN", "DEV")
    assert str(datahub) == "datahub:env:GMS,token=env:DH_TOKEN,platform=hive,dataset=sales.orders,env=DEV"
    assert parse_target("webhook:https://a/h,b").value == "https://a/h,b"  # a comma is part of a webhook's URL
    assert parse_target("webhook:https://example.org/h?k=1").stored == "https://example.org/h?k=1"
    with pytest.raises(ValueError, match="env: takes an environment variable name"):
        parse_target("teams:env:not-a-name")
