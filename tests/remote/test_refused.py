"""A Spark that cannot be reached or a master Spark refuses: one line naming the URL, exit 2, no trace.

Refused before any session starts (no JVM, no gRPC channel), so these run in the tests' process.
"""

from __future__ import annotations

import pytest

from dqx_gx.cli import main
from tests.conftest import EXAMPLES

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
GOOD = str(EXAMPLES / "orders" / "data" / "good.parquet")


def _refusal(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["validate", ORDERS, "--data", GOOD, *args])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1, captured.err
    assert captured.out == ""
    return lines[0]


def test_an_unreachable_spark_connect_endpoint_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert _refusal(capsys, "--remote", "sc://127.0.0.1:1") == (
        "error: --remote sc://127.0.0.1:1: no Spark Connect server answers at 127.0.0.1:1 "
        "(Connection refused); start it or correct the URL"
    )


def test_spark_remote_names_the_variable(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:1/;user_id=me")
    assert _refusal(capsys).startswith(
        "error: SPARK_REMOTE sc://127.0.0.1:1/;user_id=me: no Spark Connect server answers at 127.0.0.1:1"
    )


def test_a_connect_url_needs_its_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    assert _refusal(capsys, "--remote", "127.0.0.1:15002") == (
        "error: --remote 127.0.0.1:15002: a Spark Connect URL starts with sc:// (sc://host:port)"
    )


def test_a_master_url_spark_does_not_take(capsys: pytest.CaptureFixture[str]) -> None:
    assert _refusal(capsys, "--master", "bogus://x") == (
        "error: --master bogus://x: Spark takes local, local[N], local[*], local[N,RETRIES], "
        "spark://HOST:PORT, yarn or k8s://URL"
    )
    assert _refusal(capsys, "--master", "local[two]").startswith("error: --master local[two]: Spark takes local")


def test_an_unreachable_standalone_master_fails_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert _refusal(capsys, "--master", "spark://127.0.0.1:1") == (
        "error: --master spark://127.0.0.1:1: no Spark master answers at 127.0.0.1:1 "
        "(Connection refused); start it or correct the URL"
    )


def test_a_master_and_a_connect_endpoint_together(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:1")
    assert _refusal(capsys, "--master", "local[1]") == (
        "error: --master local[1] and SPARK_REMOTE both name a Spark: give one (unset SPARK_REMOTE)"
    )


def test_a_connect_token_is_never_printed(capsys: pytest.CaptureFixture[str]) -> None:
    line = _refusal(capsys, "--remote", "sc://127.0.0.1:1/;use_ssl=true;token=s3cr3t;user_id=me")
    assert "s3cr3t" not in line
    assert line.startswith("error: --remote sc://127.0.0.1:1/;use_ssl=true;token=***;user_id=me: no Spark Connect")
