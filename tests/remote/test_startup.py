"""Start-up: the command's help, ``lint``, ``coverage`` and input errors import neither Spark, GX nor dqlib; ``-v``
says where a validate's seconds went."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
from pyspark.sql import SparkSession

from dqx_gx.cli import main
from tests.conftest import EXAMPLES, ROOT

ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
ENGINES = {"pyspark", "great_expectations", "py4j"}


def _modules_after_command(*args: str) -> tuple[set[str], str]:
    """The modules loaded by running ``dqx-gx ARGS`` in a fresh interpreter, and its standard output."""
    script = textwrap.dedent(
        f"""
        import sys
        from dqx_gx.cli import main
        try:
            main({list(args)!r})
        except SystemExit:
            pass
        print("MODULES", " ".join(sorted(sys.modules)))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    output, _, modules = done.stdout.rpartition("MODULES ")
    return set(modules.split()), output


@pytest.mark.slow
def test_lint_imports_neither_spark_gx_nor_dqlib() -> None:
    modules, output = _modules_after_command("lint", ORDERS)
    assert "orders_contract (orders_tbl): 21 rules, 20 runnable" in output
    assert not (ENGINES | {"dqx"}) & modules


@pytest.mark.slow
def test_coverage_and_an_input_error_import_neither_spark_gx_nor_dqlib() -> None:
    modules, output = _modules_after_command("coverage", ORDERS)
    assert "25 enforced, 20 applied, 7 documented, 1 skipped" in output
    assert not (ENGINES | {"dqx"}) & modules
    modules, _ = _modules_after_command("validate", ORDERS, "--data", "missing.parquet")
    assert not (ENGINES | {"dqx"}) & modules
    good = str(EXAMPLES / "orders" / "data" / "good.parquet")
    modules, _ = _modules_after_command("validate", ORDERS, "--data", good, "--valid", str(EXAMPLES))  # exists
    assert not (ENGINES | {"dqx"}) & modules


@pytest.mark.slow
def test_help_imports_neither_spark_gx_nor_dqlib() -> None:
    modules, output = _modules_after_command("--help")
    assert "validate" in output
    assert not (ENGINES | {"dqx"}) & modules


# A local session started by Starting, in a fresh interpreter, listing the modules its thread imported.
_STARTING = """
import sys, threading
from dqx_gx.session import Starting, target
imported = []
class Seen:
    def find_spec(self, name, path, target=None):
        if threading.current_thread().name == "dqx-gx-spark-start":
            imported.append(name)
sys.meta_path.insert(0, Seen())
spark = Starting(target(None, None), {}, 0).session()
print("rows", spark.range(3).count())
print("imported", sorted(name for name in imported if name in sys.modules))
"""


@pytest.mark.slow
def test_the_session_thread_imports_nothing_while_the_command_imports_gx() -> None:
    """Two threads importing the same modules at once can fail in a circular import: the caller's thread imports
    what PySpark's first call into the JVM would (pandas, pyarrow, protobuf), while the JVM boots."""
    done = subprocess.run(
        [sys.executable, "-c", _STARTING], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    assert done.stdout.splitlines() == ["rows 3", "imported []"]


def test_verbose_validate_says_where_the_seconds_went_and_how_many_spark_jobs_the_run_made(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    good = str(EXAMPLES / "orders" / "data" / "good.parquet")
    code = main(["validate", ORDERS, "--data", good, "--now", "2026-11-22T12:00:00Z", "-v"])
    assert code == 0
    (run,) = [r.getMessage() for r in caplog.records if r.name == "dqx_gx.run.runner"]  # -v: dqx-gx's INFO
    assert re.fullmatch(r".* @ 2026-11-22T12:00:00Z: passed_with_warnings, \d+ rules, [1-9]\d* Spark jobs", run), run
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("time:")]
    assert len(lines) == 1
    assert re.fullmatch(
        r"time: start \d+\.\d\d s, read \d+\.\d\d s, run \d+\.\d\d s, report \d+\.\d\d s \(total \d+\.\d\d s\)",
        lines[0],
    )
    laps = [float(x) for x in re.findall(r"(\d+\.\d\d) s", lines[0])]
    assert abs(sum(laps[:4]) - laps[4]) < 0.02


def test_version_is_read_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"dqx-gx \d+\.\d+\.\d+\S*\n", out)
