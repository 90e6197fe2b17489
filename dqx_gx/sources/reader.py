"""Read a contract's data with Spark: files, folders, globs, catalog tables, ODCS servers (docs/semantics.md, 'Data
in').

Every failure to find or read the data is a :class:`SourceError` of one line naming the flag,
server or file and the format; Spark's (Java) trace is left to ``-v``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pyarrow.parquet as pq  # a dependency of PySpark's pandas API and of dqlib: reads a footer to name a column
import pyarrow.types as pt
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, DataFrameReader, SparkSession

from dqx_gx.contract.model import Contract
from dqx_gx.errors import first_line, warn_contract
from dqx_gx.sources.choices import SourceError
from dqx_gx.sources.locate import (
    Located,
    binary_format,
    declared_datasets,
    local_path,
    locate,
    matching_files,
    reference_source,
    several_files,
)
from dqx_gx.sources.servers import Files, Table, choose_server, location_of
from dqx_gx.sources.untyped import cast_declared
from dqx_gx.spark_versions import TIME, TIME_NANOS, error_condition

UNTYPED = ("csv", "json")
_CONDITION = re.compile(r"\[([A-Z][A-Z_]*(?:\.[A-Z_]+)*)\]")


def read_data(
    spark: SparkSession,
    contract: Contract | None = None,
    *,
    server: str | None = None,
    table: str | None = None,
    path: str | None = None,
    data_format: str | None = None,
    merge_schema: bool | None = None,
    label: str | None = None,
    delimiter: str | None = None,
) -> DataFrame:
    """The data a contract is about, as a DataFrame ready for :func:`dqx_gx.run_contract`.

    Give one of ``path`` (a file, folder or glob; the format from the file names unless
    ``data_format`` is given), ``table`` (a catalog table or view, ``spark.table``) or
    ``server`` (the name of one of the contract's ODCS ``servers``); with none of them the
    contract's only server is used. CSV (with a header) and JSON lines are read as text and each
    declared column is cast to its declared type: values that do not cast are NULL for the other
    rules and counted, and marked, by the column's type rule (docs/semantics.md, 'Data in'). ``merge_schema`` merges the
    columns of parquet/ORC files that disagree (default: on for a folder or glob, off for one file).
    ``delimiter`` separates CSV fields (default: the server's, else a comma). A ``path`` that replaces
    only the path of the contract's one file server keeps that server's format and reader options.

    Cloud storage is Spark's business: credentials and file systems come from the session's
    configuration (``spark.hadoop.fs.s3a.*`` and the like). Raises :class:`SourceError` (one line)
    when the data cannot be found or read; ``label`` is how that line names what was asked for
    (default: the flag, ``--data PATH``).
    """
    located = locate(
        contract, server=server, table=table, path=path, data_format=data_format, delimiter=delimiter, label=label
    )
    return read_located(spark, located, contract, merge_schema)


def read_located(
    spark: SparkSession,
    located: Located,
    contract: Contract | None = None,
    merge_schema: bool | None = None,
    *,
    infer_types: bool = False,
) -> DataFrame:
    """Read what :func:`~dqx_gx.sources.locate.locate` found (see :func:`read_data`). ``infer_types``:
    Spark infers CSV and JSON types from the text (``inferSchema``), for a caller with no contract to
    cast to (``dqx-gx draft``)."""
    location = located.location
    if isinstance(location, Table):
        return _table(spark, location.name, located.label)
    frame = _files(spark, location, located.label, merge_schema, infer_types)
    if location.format == "csv" and contract is not None:
        _check_header(frame.columns, [p.column for p in contract.properties], located.label)
    if contract is not None and location.format in UNTYPED:
        frame = cast_declared(frame, contract)
    return frame


def read_references(
    spark: SparkSession,
    contract: Contract,
    document: Sequence[Contract] = (),
    *,
    given: Mapping[str, str] | None = None,
    server: str | None = None,
    on_server: bool = True,
) -> dict[str, DataFrame]:
    """The datasets ``contract``'s foreign keys refer to, for ``run_contract(..., references=...)``.

    ``given`` maps a dataset's name to where it is: a path read like ``path`` (``table:NAME``: a
    catalog table), cast to the types ``document`` (the contract's whole document) declares for it. With
    ``on_server`` (the contract's data is on its server), a dataset not given that ``document`` declares
    is read from the contract's server (``server``, or the only one) when that keeps it apart from the
    contract's own data (a table, or a path with ``{model}``); one that cannot be read there is left out
    with a ContractWarning (its foreign keys are then SKIPPED). With neither, the foreign key is SKIPPED.
    """
    wanted = sorted(contract.referenced_datasets)
    declared = declared_datasets(document)
    found: dict[str, DataFrame] = {}
    for name in wanted:
        location = (given or {}).get(name)
        if location is not None:
            found[name] = read_located(spark, reference_source(name, location, declared.get(name)), declared.get(name))
        elif on_server and name in declared and contract.servers:
            reference = _on_server(spark, contract, declared[name], server)
            if reference is not None:
                found[name] = reference
    return found


def _on_server(spark: SparkSession, contract: Contract, declared: Contract, server: str | None) -> DataFrame | None:
    """A referenced dataset the document declares, read from the contract's server, if it has a place of its own."""
    chosen = choose_server(contract.servers, server, contract.origin)
    own = location_of(chosen, contract.dataset, contract.schema_name)
    theirs = location_of(chosen, declared.dataset, declared.schema_name)
    itself = (declared.schema_name, declared.dataset) == (contract.schema_name, contract.dataset)
    if theirs == own and not itself:  # one path for every dataset: the referenced one is not told apart
        return None
    try:
        return read_data(spark, declared, server=chosen.name)
    except SourceError as exc:
        name = declared.schema_name or declared.dataset
        warn_contract(f"foreign keys to {name!r} are not checked: {exc}; give it with --reference {name}=PATH")
        return None


def _table(spark: SparkSession, name: str, label: str) -> DataFrame:
    try:
        frame = spark.table(name)
        frame.schema  # noqa: B018 - resolves the name now, not inside the run
    except Exception as exc:  # Spark's own errors, and py4j ones it did not convert
        if _condition(exc).startswith("TABLE_OR_VIEW_NOT_FOUND"):
            raise SourceError(f"{label}: no such table or view in the session's catalog") from exc
        raise SourceError(f"{label}: cannot read the table: {_first_line(exc)}") from exc
    return frame


def _files(spark: SparkSession, files: Files, label: str, merge_schema: bool | None, infer_types: bool) -> DataFrame:
    fmt = files.format or ""
    reader = _reader(spark, files, merge_schema, infer_types)
    try:
        frame = reader.load(matching_files(files) if files.pattern else files.path)
        columns = frame.columns
    except Exception as exc:  # Spark's own errors, and py4j ones it did not convert (missing classes)
        condition = _condition(exc)
        if condition.startswith("DATA_SOURCE_NOT_FOUND"):
            raise SourceError(
                f"{label}: this Spark has no {fmt!r} data source; add its connector to the session "
                "(e.g. --conf spark.jars.packages=...) or give another --format"
            ) from exc
        if condition.startswith("PATH_NOT_FOUND"):
            raise SourceError(f"{label}: no such file or directory") from exc
        illegal = condition.startswith(("PARQUET_TYPE_ILLEGAL", "UNSUPPORTED_TIME_TYPE"))
        if "TIME" in str(exc) and (illegal or "Illegal Parquet type" in str(exc)):  # PySpark 3.5 names no condition
            raise SourceError(f"{label}: {_unreadable_time(files.path, exc)}") from exc
        raise SourceError(f"{label}: cannot read it as {fmt}: {_first_line(exc)}") from exc
    if fmt == "json" and "_corrupt_record" in columns:
        raise SourceError(
            f"{label}: lines that are not JSON objects found reading it as json (JSON lines, one object per "
            "line; a file holding one JSON array needs 'delimiter: array' on its server)"
        )
    return frame


def _unreadable_time(path: str, exc: BaseException) -> str:
    """Why a Parquet TIME column cannot be read, naming the column where the file's footer tells it."""
    if _condition(exc).startswith("UNSUPPORTED_TIME_TYPE"):
        return "it has a TIME column: set --conf spark.sql.timeType.enabled=true (Spark 4.1 or later reads it)"
    unit = re.search(r"TIME\((\w+)", str(exc))
    columns = _time_columns(path, unit.group(1).lower() if unit else "")
    named = f"column(s) {', '.join(map(repr, columns))}" if columns else "a column"
    written = f"{named} of Parquet type TIME({unit.group(1) if unit else '?'})"
    if lacking := TIME.missing():
        return f"{written}: {lacking}; or write it as text"
    lacking = TIME_NANOS.missing() or "this Spark cannot read it"
    return f"{written}: {lacking}; or write it as microseconds (pyarrow time64('us'), DuckDB TIME) or as text"


def _time_columns(path: str, unit: str) -> list[str]:
    """The TIME columns in ``unit`` of a local Parquet file (pyarrow reads the footer), else none."""
    local = local_path(path)
    if local is None or not local.is_file():
        return []
    try:
        schema = pq.read_schema(local)
    except Exception:  # not readable by pyarrow either: the message names no column
        return []
    wanted = {"millis": "ms", "micros": "us", "nanos": "ns"}.get(unit)
    return [field.name for field in schema if pt.is_time(field.type) and field.type.unit == wanted]


_SEPARATORS = (";", "\t", "|", ",", ":", " ")


def _check_header(columns: Sequence[str], declared: Sequence[str], label: str) -> None:
    """A CSV header that cannot be the declared data is an input error with its likely cause (docs/semantics.md, 'Data
    in'), not one FAILED "column not in batch" line per declared column."""
    if not columns and declared:
        named = ", ".join(declared[:3]) + (", …" if len(declared) > 3 else "")
        raise SourceError(
            f"{label}: the csv data is empty: no header row, so none of the declared columns ({named}) is there; "
            "a csv batch without rows still needs its header line"
        )
    header = "".join(columns)
    if any(ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\r\n") for ch in header):
        kind = binary_format(header.encode("utf-8", "replace"))
        fix = f"it looks like {kind}: give --format {kind}" if kind else "give the file's --format"
        raise SourceError(f"{label}: binary data read as csv (the header is not text); {fix}")
    if len(columns) != 1 or len(declared) < 2:
        return
    (only,) = columns
    for separator in _SEPARATORS:
        parts = [part.strip().strip('"') for part in only.split(separator)]
        if len(parts) > 1 and sum(part in declared for part in parts) >= 2:
            shown = only if len(only) <= 60 else only[:57] + "…"
            raise SourceError(
                f"{label}: the header arrived as one column {shown!r}: looks {separator!r}-separated: "
                f"use --delimiter {separator!r}"
            )


def _reader(spark: SparkSession, files: Files, merge_schema: bool | None, infer_types: bool) -> DataFrameReader:
    fmt = files.format or ""
    reader = spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", str(files.header).lower()).option("inferSchema", str(infer_types).lower())
        if files.delimiter:
            reader = reader.option("sep", files.delimiter)
    if fmt == "json":
        reader = reader.option("primitivesAsString", str(not infer_types).lower())
        if files.delimiter == "array":
            reader = reader.option("multiLine", "true")
    if files.encoding and fmt in UNTYPED:
        reader = reader.option("encoding", files.encoding)
    if fmt in ("parquet", "orc"):
        merge = merge_schema if merge_schema is not None else several_files(files.path)
        reader = reader.option("mergeSchema", str(merge).lower())
    return reader


def _condition(exc: BaseException) -> str:
    """Spark's error condition (``DATA_SOURCE_NOT_FOUND``); py4j errors Spark did not convert carry it in the text."""
    if isinstance(exc, PySparkException):
        return error_condition(exc)
    found = _CONDITION.search(str(exc))
    return found.group(1) if found else ""


def _first_line(exc: BaseException) -> str:
    """Spark's reason in one line (:func:`~dqx_gx.errors.first_line`); a PySpark error's own message when the
    text holds no Java trace to find the root cause in."""
    text = str(exc)
    if "Caused by: " not in text and isinstance(exc, PySparkException) and exc.getMessage():
        text = exc.getMessage()
    return first_line(text) or type(exc).__name__
