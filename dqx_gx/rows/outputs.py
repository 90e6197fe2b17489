"""Writing the gate's two outputs (valid rows, quarantined rows) so that a failed run leaves neither half-written.

On the local filesystem each output is written by Spark into a temporary sibling folder and
renamed into place once complete (missing parent folders are created); an existing output is
replaced only with ``overwrite`` (the old one is moved aside first and removed last). Elsewhere
(``s3://``, ``abfss://``, …) Spark's own commit protocol writes the folder and dqx-gx cannot rename
it: that is said in the docs. Every format reads back with the usual tools (Spark, pandas, pyarrow,
Python's csv module): CSV quotes as RFC 4180 says, instants are ISO 8601 with their offset.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, MapType, StructType

from dqx_gx.rows.choices import Output
from dqx_gx.rows.gate import split_annotated
from dqx_gx.spark.columns import spark_column
from dqx_gx.spark.own_expressions import own_expressions

_INSTANT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"
_WALL_CLOCK = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"
_OPTIONS: dict[str, dict[str, str]] = {
    # RFC 4180: a quote inside a quoted field is doubled (Spark's default escapes it with a backslash,
    # which neither pandas nor Python's csv module reads); instants in ISO 8601 with their offset,
    # to the microsecond (Spark's default keeps milliseconds)
    "csv": {"header": "true", "escape": '"', "timestampFormat": _INSTANT, "timestampNTZFormat": _WALL_CLOCK},
    "json": {"timestampFormat": _INSTANT, "timestampNTZFormat": _WALL_CLOCK},
}
_READ_BACK: dict[str, dict[str, str]] = {"csv": {**_OPTIONS["csv"], "multiLine": "true"}}
"""How an output is read back to count its rows: as it was written, and a CSV field may hold a line break."""


@dataclass(frozen=True)
class Written:
    """One output written: where, and how many rows (counted while writing, no extra pass)."""

    output: Output
    rows: int


def write_split(
    annotated: DataFrame, valid: Output | None, quarantine: Output | None, write_format: str, *, overwrite: bool
) -> list[Written]:
    """Write the valid and the quarantined rows of ``annotated`` (made by :func:`annotate_rows`) whole,
    each output optional; on any failure nothing of this run is left behind (old outputs kept)."""
    valid_rows, quarantined = split_annotated(annotated)
    chosen = [(frame, output) for frame, output in ((valid_rows, valid), (quarantined, quarantine)) if output]
    return write_outputs(chosen, write_format, overwrite=overwrite)


def write_outputs(frames: list[tuple[DataFrame, Output]], write_format: str, *, overwrite: bool) -> list[Written]:
    """Write each frame whole; on any failure nothing of this run is left behind (old outputs kept).

    Each frame's rows are counted by an observation of the write itself (no extra pass; read back when a
    Spark Connect server returned no count).
    """
    written: list[Written] = []
    with contextlib.ExitStack() as staged:
        moves = [staged.enter_context(_staged(output)) for _, output in frames]
        for (frame, output), target in zip(frames, moves, strict=True):
            counted = Observation()
            rows = _to_write(frame, write_format, counted)
            writer = rows.write.format(write_format).options(**_OPTIONS.get(write_format, {}))
            if target is None:  # not local: Spark's commit protocol
                writer.mode("overwrite" if overwrite else "error").save(output.path)
            else:
                writer.mode("error").save(str(target))  # "error": Spark Connect knows no "errorifexists"
            written.append(Written(output, _rows_written(counted.get, rows, write_format, str(target or output.path))))
        for (_, output), target in zip(frames, moves, strict=True):
            if target is not None:
                _replace(target, Path(output.local or output.path))
    return written


def _rows_written(observed: Mapping[str, Any], written: DataFrame, write_format: str, path: str) -> int:
    """The rows the write's observation counted. A Spark Connect server can answer a write before the
    write's observed metrics are in (when their processing is late, as under load: SPARK-54279, seen with
    Spark 4.1); the output is then read back from ``path`` and counted, one more job."""
    rows = observed.get("rows")
    if rows is None:
        reader = written.sparkSession.read.format(write_format).options(**_READ_BACK.get(write_format, {}))
        rows = reader.load(path).count()
    return int(rows)


@contextlib.contextmanager
def _staged(output: Output) -> Iterator[Path | None]:
    """A temporary sibling to write into, removed if it is still there at the end."""
    local = output.local
    if local is None:
        yield None
        return
    local.parent.mkdir(parents=True, exist_ok=True)
    temporary = local.parent / f".{local.name}.dqx-gx-{secrets.token_hex(6)}.tmp"
    try:
        yield temporary
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _replace(written: Path, target: Path) -> None:
    old = target.parent / f".{target.name}.dqx-gx-{secrets.token_hex(6)}.old"
    if target.exists() or target.is_symlink():
        os.replace(target, old)
    os.replace(written, target)
    if old.is_dir():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists():
        old.unlink()


@own_expressions()
def _to_write(frame: DataFrame, write_format: str, counted: Observation) -> DataFrame:
    """``frame`` as written, its rows counted into ``counted``. CSV holds no arrays, maps or structs (the
    annotation columns among them): they are written as JSON text."""
    if write_format == "csv":
        nested = (ArrayType, MapType, StructType)
        frame = frame.select(
            *[
                F.to_json(spark_column(f)).alias(f.name) if isinstance(f.dataType, nested) else spark_column(f)
                for f in frame.schema.fields
            ]
        )
    return frame.observe(counted, F.count(F.lit(1)).alias("rows"))
