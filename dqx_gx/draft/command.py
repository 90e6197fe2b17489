"""The ``dqx-gx draft`` command: read the data as ``validate`` does, measure it, print or write the contract.

Imported when the command line is parsed: only the standard library and light modules at the top.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dqx_gx.rows.choices import OutputError
from dqx_gx.session import Starting, target
from dqx_gx.sources.choices import FORMATS
from dqx_gx.stopwatch import Stopwatch

DEFAULT_MAX_VALUES = 20


def add_draft(commands: Any, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``draft`` on the CLI's subcommands; the caller adds the Spark session options and the handler."""
    draft: argparse.ArgumentParser = commands.add_parser(
        "draft",
        parents=parents,
        help="draft an ODCS contract from the data: types, NULLs, keys, ranges, value lists, row count",
        description="Measure a dataset (one aggregation, plus an exact check of the columns that may be keys "
        "or have few values) and write an ODCS v3.1 contract that the same data passes: every column with its "
        "type, required where no NULL, unique and one primary key where exact, numeric ranges, string lengths "
        "and value lists, and the row count ± 50 %. Review it before use.",
    )
    where = draft.add_mutually_exclusive_group(required=True)
    where.add_argument("--data", metavar="PATH", help="the dataset: a file, folder or glob Spark can read")
    where.add_argument("--table", metavar="NAME", help="read this catalog table or view (spark.table)")
    draft.add_argument(
        "--format",
        metavar="FORMAT",
        help=f"data format: {', '.join(FORMATS)}, or any other Spark source (default: from the file names); "
        "CSV has a header; CSV and JSON types are inferred from the text",
    )
    draft.add_argument("--name", metavar="NAME", help="the contract's and schema object's name (default: the data's)")
    draft.add_argument("--output", metavar="FILE", help="write the contract here (default: standard output)")
    draft.add_argument("--overwrite", action="store_true", help="replace an existing --output file")
    draft.add_argument(
        "--max-values",
        type=_count,
        default=DEFAULT_MAX_VALUES,
        metavar="N",
        help=f"list a string column's values as a rule when it has at most N (default {DEFAULT_MAX_VALUES}; 0: never)",
    )
    draft.add_argument(
        "--sample",
        type=_fraction,
        metavar="FRACTION",
        help="measure only this fraction of the rows (0 < FRACTION ≤ 1; a fixed seed); the row count is estimated",
    )
    draft.add_argument(
        "--severity",
        choices=("warning", "error"),
        default="warning",
        help="severity of the drafted quality rules (default warning, P1; error is P0)",
    )
    return draft


def run_draft(args: argparse.Namespace, confs: dict[str, str]) -> int:
    """Draft the contract; exit 0. Input errors raise before Spark starts where they can."""
    from dqx_gx.sources.locate import locate
    from dqx_gx.sources.servers import Files

    _check_output(args.output, overwrite=args.overwrite)
    located = locate(None, table=args.table, path=args.data, data_format=args.format)  # before Spark starts
    clock = Stopwatch()
    starting = Starting(target(args.master, args.remote), confs, args.verbose)
    from dqx_gx.draft.document import DraftOptions, to_yaml
    from dqx_gx.draft.drafting import draft_contract
    from dqx_gx.sources.reader import UNTYPED, read_located

    spark = starting.session()
    clock.lap("start")
    frame = read_located(spark, located, infer_types=True)
    files = located.location if isinstance(located.location, Files) else None
    options = DraftOptions(
        name=args.name or _name_of(args.data, args.table),
        source=f"{located.label} ({files.format})" if files else located.label,
        inferred=files is not None and files.format in UNTYPED,
        physical_name=args.table,
        max_values=args.max_values,
        severity=args.severity,
    )
    progress = _progress if sys.stderr.isatty() else None
    text = to_yaml(draft_contract(frame, options, sample=args.sample, progress=progress))
    clock.lap("draft")
    if args.output:
        from dqx_gx.files import write_atomically

        write_atomically(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    if args.verbose:
        print(clock.summary(), file=sys.stderr)
    return 0


def _check_output(destination: str | None, *, overwrite: bool) -> None:
    """Refuse before any work an output that would be refused after it (the project's --overwrite rule)."""
    if not destination:
        return
    path = Path(destination)
    if path.is_dir():
        raise OutputError(f"--output {destination}: is a folder; give a file name")
    if path.exists() and not overwrite:
        raise OutputError(f"--output {destination}: already exists; give --overwrite to replace it")
    if not path.resolve().parent.is_dir():
        raise OutputError(f"--output {destination}: the folder {path.resolve().parent} does not exist")


def _name_of(path: str | None, table: str | None) -> str:
    """A name for the draft: the table's own (without its catalog and database), else the file's or folder's."""
    if table is not None:
        return table.rsplit(".", 1)[-1].strip("`")
    assert path is not None
    local = Path(path.rstrip("/").split("*", 1)[0].rstrip("/") or ".")
    return local.stem or "dataset"


def _progress(message: str) -> None:
    print(f"dqx-gx draft: {message} …", file=sys.stderr, flush=True)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of values, 0 or more")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a fraction of the rows, above 0 and at most 1")
    return value
