"""Shared fixtures: one local SparkSession for the whole test session, contract helpers, hypothesis's CI profile."""

from __future__ import annotations

import os
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractWarning, RuleResult
from dqx_gx.rules.details import Detail
from dqx_gx.session import QUERY_CONTEXT_LOGGERS
from dqx_gx.spark_versions import Feature, pyspark_logger

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT.parent / "shared" / "corpus"

# CI (.ci/run sets CI): the same examples every run, no example database, no deadline (a Spark job's
# time depends on the machine, never on the code under test). Tests' own settings still override.
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Commands the tests start in fresh interpreters leave the user's class archive alone (tests/session/test_class_archive.py
# gives it a folder of its own).
os.environ.setdefault("DQX_GX_CLASS_ARCHIVE", "off")


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def needs(feature: Feature) -> pytest.MarkDecorator:
    """Skip a test of ``feature`` where this PySpark lacks it (the reason names the version it needs); the
    path's own answer there is pinned by tests/test_spark_versions.py."""
    return pytest.mark.skipif(not feature.available, reason=feature.missing() or "")


def shown(result: RuleResult, title: str) -> Detail | None:
    """The detail of ``result`` with this title (``failed rows``, ``missing partitions``), if it has one."""
    return next((detail for detail in result.details if detail.title == title), None)


@pytest.fixture(scope="session", autouse=True)
def pyspark_loggers_made_first() -> None:
    """PySpark's query-context loggers write to the stderr of the moment they are made (by PySpark or by the
    command's ``Starting``): made first, that is the session's capture, not the stream of a test capturing its
    own output, which is closed once that test ends."""
    for name in QUERY_CONTEXT_LOGGERS:
        pyspark_logger(name)


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """A real local[2] SparkSession, shared by every test (Spark start-up costs seconds)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run this interpreter
    session = (
        SparkSession.builder.master("local[2]")
        .appName("dqx-gx-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared contract corpus is not present at {CORPUS} (it exists only in this workplace)")
    return CORPUS


@pytest.fixture(scope="session")
def orders() -> Contract:
    """The §6.7 example contract (its SQL rule's skip warning silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = Contract.from_odcs(EXAMPLES / "orders" / "orders.odcs.yaml")
    return contract
