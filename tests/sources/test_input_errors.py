"""Input errors come before the data (docs/semantics.md, 'Data in'): one line, exit 2, and no Spark for what needs no data."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from dqx_gx.sources.choices import SourceError
from dqx_gx.sources.locate import locate
from dqx_gx.sources.servers import Files
from dqx_gx.spark_versions import TIME, TIME_NANOS
from tests.conftest import EXAMPLES, needs
from tests.run.test_cli import run
from tests.sources.test_cli_sources import contract, csv, fails_with, local

ROOT = Path(__file__).resolve().parents[2]
ORDERS = str(EXAMPLES / "orders" / "orders.odcs.yaml")
GOOD = EXAMPLES / "orders" / "data" / "good.parquet"
NOW = "2026-11-22T12:00:00Z"

# Run the command in a fresh interpreter and say whether it imported PySpark (a JVM needs it first).
_PROBE = """
import sys
from dqx_gx.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(code, "pyspark" in sys.modules)
"""


def without_spark(*args: str) -> tuple[str, str]:
    """The exit code and stderr of ``dqx-gx ARGS`` in a fresh interpreter that must not import PySpark."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    code, imported = done.stdout.split()
    assert imported == "False", f"PySpark was imported for: {args}"
    return code, "".join(line for line in done.stderr.splitlines(keepends=True) if not line.startswith("warning: "))


@pytest.mark.slow
def test_every_input_error_is_one_line_before_spark(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    bare = contract(tmp_path, "bare", "")
    fk = tmp_path / "fk.yaml"
    fk.write_text(
        Path(ORDERS)
        .read_text()
        .replace(
            "      - name: status\n", "      - name: status\n        relationships:\n          - to: statuses.code\n", 1
        )
    )
    text_named_parquet = tmp_path / "orders.parquet"
    text_named_parquet.write_text("order_id,status\n1,pending\n")
    cases = {
        ("validate", ORDERS, "--data", str(tmp_path / "missing.parquet")): (
            f"error: --data {tmp_path / 'missing.parquet'}: no such file or directory"
        ),
        ("validate", bare): f"error: {bare} declares no servers: give --data PATH, --table NAME or --server NAME",
        ("validate", ORDERS, "--data", str(empty)): f"error: --data {empty}: the folder holds no data files",
        ("validate", ORDERS, "--data", str(GOOD), "--format", "parqet"): (
            "error: --format: 'parqet' is not a Spark data source dqx-gx knows; did you mean 'parquet'? it reads "
            "parquet, csv, json, orc, and other sources by their short name (delta, iceberg, avro, …) or a "
            "connector's class name"
        ),
        ("validate", str(fk), "--data", str(GOOD), "--reference", f"statuses={tmp_path / 'statuses.csv'}"): (
            f"error: --reference statuses={tmp_path / 'statuses.csv'}: no such file or directory"
        ),
        ("validate", str(fk), "--data", str(GOOD), "--reference", "customers=x.csv"): (
            "error: --reference customers: no foreign key of the contract refers to 'customers' "
            "(they refer to: statuses)"
        ),
        ("validate", ORDERS, "--data", str(GOOD), "--delimiter", ";"): (
            f"error: --delimiter applies to csv; --data {GOOD} is read as parquet"
        ),
        (
            "validate",
            ORDERS,
            "--data",
            str(GOOD),
            "--valid",
            str(tmp_path / "o"),
            "--quarantine",
            str(tmp_path / "o"),
        ): (
            f"error: --valid {tmp_path / 'o'} and --quarantine {tmp_path / 'o'}: one would overwrite the other; "
            "give each output a place of its own"
        ),
        ("validate", ORDERS, "--data", str(GOOD), "--quarantine", str(GOOD), "--overwrite"): (
            f"error: --quarantine {GOOD}: overlaps the input, --data {GOOD}; write it elsewhere"
        ),
        ("validate", ORDERS, "--data", str(GOOD), "--overwrite", "--write-format", "csv"): (
            "error: --write-format and --overwrite apply to --valid and --quarantine, and neither is given"
        ),
        ("validate", ORDERS, "--data", str(GOOD), "--valid", str(GOOD.parent)): (
            f"error: --valid {GOOD.parent}: overlaps the input, --data {GOOD}; write it elsewhere"
        ),
        # a file of another format than it is read as: looked at before Spark, the first data file of a pattern
        ("validate", ORDERS, "--data", str(GOOD), "--format", "csv"): (
            f"error: --data {GOOD}: cannot read it as csv: good.parquet holds parquet data; give --format parquet"
        ),
        ("validate", ORDERS, "--data", f"{GOOD.parent}/*.parquet", "--format", "json"): (
            f"error: --data {GOOD.parent}/*.parquet: cannot read it as json: bad.parquet (its first data file) holds "
            "parquet data; give --format parquet"
        ),
        ("validate", ORDERS, "--data", str(GOOD), "--format", "orc"): (
            f"error: --data {GOOD}: cannot read it as orc: good.parquet is no orc file; give --format parquet"
        ),
        ("validate", ORDERS, "--data", str(text_named_parquet)): (
            f"error: --data {text_named_parquet}: cannot read it as parquet: orders.parquet is no parquet file; "
            "give the file's --format"
        ),
    }
    for args, line in cases.items():
        code, err = without_spark(*args)
        assert (code, err) == ("2", line + "\n"), args


def test_a_csv_with_another_separator_is_named_with_the_fix(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = csv(tmp_path, "a.csv", "id;day\n1;2026-11-22\n")
    path = contract(tmp_path, "a", "")
    assert fails_with(capsys, "validate", path, "--data", str(data)) == (
        f"error: --data {data}: the header arrived as one column 'id;day': looks ';'-separated: use --delimiter ';'"
    )
    code, out, err = run(capsys, "validate", path, "--data", str(data), "--delimiter", ";", "--output", "json")
    assert code == 0, err
    assert {r["status"] for r in json.loads(out)["results"]} == {"PASSED"}


def test_an_empty_csv_is_an_input_error_not_a_list_of_failed_rules(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = csv(tmp_path, "empty.csv", "")
    path = contract(tmp_path, "a", "")
    assert fails_with(capsys, "validate", path, "--data", str(data)) == (
        f"error: --data {data}: the csv data is empty: no header row, so none of the declared columns (id, day) is "
        "there; a csv batch without rows still needs its header line"
    )
    header_only = csv(tmp_path, "header.csv", "id,day\n")
    code, out, err = run(capsys, "validate", path, "--data", str(header_only), "--output", "json", "--now", NOW)
    assert code == 1, err  # a header without rows is an empty batch, checked as one
    status = {r["assertion"]: (r["status"], r["reason"]) for r in json.loads(out)["results"]}
    assert status["id has type integer"] == status["day has type date"] == ("PASSED", None)
    assert status["id has no nulls (required)"][0] == "FAILED"  # DQX counts NULL on an empty batch
    assert "an empty batch" in status["id has no nulls (required)"][1]


def test_data_in_place_of_the_one_server_keeps_its_format_and_delimiter(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    landing = csv(tmp_path, "landing.txt", "id|day\n1|2026-11-22\n")
    other = csv(tmp_path, "other.txt", "id|day\n2|2026-11-23\nx|2026-11-24\n")
    server = local("landing", landing).replace("format: csv\n", "format: csv\n    delimiter: '|'\n")
    path = contract(tmp_path, "a", "servers:\n" + server)
    code, out, err = run(capsys, "validate", path, "--data", str(other), "--output", "json", "--now", NOW)
    assert code == 1, err  # read as '|'-separated csv: 'x' does not cast to integer
    (id_type,) = [r for r in json.loads(out)["results"] if r["assertion"] == "id has type integer"]
    assert id_type["reason"] == "Property 'id': 1 value(s) read as text do not cast to integer"


def test_a_misspelt_flag_or_command_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", ORDERS, "--dta", str(GOOD))
    assert code == 2
    assert err.splitlines()[-1] == f"dqx-gx: error: unrecognized arguments: --dta {GOOD}; did you mean --data?"
    code, _, err = run(capsys, "valdate", ORDERS)
    assert err.splitlines()[-1] == (
        "dqx-gx: error: argument COMMAND: invalid choice: 'valdate' (choose from 'validate', 'translate', 'lint', "
        "'coverage', 'draft', 'serve'); "
        "did you mean validate?"
    )


def test_a_misspelt_key_is_named_alone_with_its_likely_spelling(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        Path(ORDERS)
        .read_text()
        .replace("metric: nullValues\n            mustBe: 0", "metric: nullValues\n            mustbe: 0", 1)
        .replace("severity: warning", "severty: warning", 1)
    )
    code, _, err = run(capsys, "lint", str(path))
    assert code == 2
    unexpected = [line for line in err.splitlines() if "not allowed here" in line]
    assert len(unexpected) == 2, err
    assert unexpected == [
        "  - schema[0].quality[0] (line 27): 'severty' is not allowed here: did you mean 'severity'?",
        "  - schema[0].properties[0].quality[0] (line 60): 'mustbe' is not allowed here: did you mean 'mustBe'?",
    ]


@pytest.mark.slow
@needs(TIME)
def test_parquet_time_columns_are_read_or_refused_naming_the_column(tmp_path: Path) -> None:
    """Other tools write TIME columns; Spark 4.1 reads TIME(MICROS) with its TIME type on, which the command
    turns on. Its session starts on a thread of its own, so this also proves SQL settings reach the run."""
    times = [dt.time(10, 30), dt.time(23, 59, 59)]
    pq.write_table(pa.table({"id": [1, 2], "at": pa.array(times, pa.time64("us"))}), tmp_path / "us.parquet")
    pq.write_table(pa.table({"id": [1, 2], "at": pa.array(times, pa.time64("ns"))}), tmp_path / "ns.parquet")
    path = tmp_path / "t.yaml"
    path.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: t\nversion: 1.0.0\nstatus: active\nschema:\n  - name: t\n"
        "    properties:\n      - name: id\n        logicalType: integer\n        required: true\n"
        "      - name: at\n        logicalType: time\n        required: true\n"
    )
    command = [sys.executable, "-m", "dqx_gx.cli", "validate", str(path), "--output", "json", "--data"]
    done = subprocess.run([*command, str(tmp_path / "us.parquet")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert [(r["assertion"], r["status"]) for r in results] == [
        ("id has type integer", "PASSED"),
        ("id has no nulls (required)", "PASSED"),
        ("at has type time", "PASSED"),
        ("at has no nulls (required)", "PASSED"),
    ]
    done = subprocess.run([*command, str(tmp_path / "ns.parquet")], capture_output=True, text=True, check=False)
    if TIME_NANOS.available:  # Spark 4.3 reads nanoseconds too
        assert done.returncode == 0, done.stderr
        read = json.loads(done.stdout)["results"]
        assert [(r["assertion"], r["status"]) for r in read] == [(r["assertion"], r["status"]) for r in results]
        assert (results[2]["observed"], read[2]["observed"]) == ("time(6)", "time(9)")
        return
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"error: --data {tmp_path / 'ns.parquet'}: column(s) 'at' of Parquet type TIME(NANOS): "
        f"{TIME_NANOS.missing()}; or write it as microseconds (pyarrow time64('us'), DuckDB TIME) or as text"
    )


def test_binary_data_no_format_marks_is_found_by_the_reader(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # an image named .csv carries no parquet or orc mark: Spark reads it, and its header is no text
    image = tmp_path / "orders.csv"
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00garbage\n1,2\n")
    assert fails_with(capsys, "validate", ORDERS, "--data", str(image)) == (
        f"error: --data {image}: binary data read as csv (the header is not text); give the file's --format"
    )


def test_files_that_are_what_they_are_read_as_pass_the_look_before_spark(tmp_path: Path) -> None:
    orcid = tmp_path / "people.csv"  # text that starts like an orc file
    orcid.write_text("ORCID,name\n0000-0001,ann\n")
    encrypted = tmp_path / "sealed.parquet"  # parquet with an encrypted footer: PARE at both ends
    encrypted.write_bytes(b"PARE" + bytes(range(40)) + b"PARE")
    written = tmp_path / "out"  # a writer's folder: its bookkeeping files come first in name order
    written.mkdir()
    (written / "_committed_1").write_text('{"added": ["part-0.parquet"]}')
    (written / ".part-0.parquet.crc").write_bytes(b"\x00crc")
    (written / "part-0.parquet").write_bytes(GOOD.read_bytes())
    for path, fmt in ((orcid, "csv"), (encrypted, "parquet"), (f"{written}/*", "parquet"), (written, "parquet")):
        located = locate(None, path=str(path), data_format=fmt)
        assert located.location == Files(str(path), fmt)
    with pytest.raises(SourceError, match=r"cannot read it as csv: part-0.parquet \(its first data file\) holds"):
        locate(None, path=f"{written}/*", data_format="csv")
