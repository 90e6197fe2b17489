"""Where the data is and how to read it, decided without Spark (docs/semantics.md, 'Data in': input errors come first).

Everything about a source that can be known without reading a row — the path exists and holds
files, the format, the server's reader options — is settled here, so a wrong flag is one line
before any JVM starts; the Spark reader (``reader.py``) only reads what this located.
"""

from __future__ import annotations

import difflib
import glob
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dqx_gx.contract.model import Contract
from dqx_gx.sources.choices import FORMATS, SourceError
from dqx_gx.sources.servers import Files, Location, Table, choose_server, location_of

_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".orc": "orc",
}
_GLOB = frozenset("*?[{")
SPARK_SOURCES = frozenset(
    {
        *FORMATS,
        "text",
        "avro",
        "xml",
        "binaryfile",
        "image",
        "libsvm",
        "jdbc",
        "kafka",
        "delta",
        "iceberg",
        "hudi",
        "bigquery",
        "snowflake",
        "mongodb",
        "excel",
        "cassandra",
        "redshift",
        "noop",
    }
)
"""Short names of Spark data sources: built in, or registered by a common connector. Any other
source is given by its class name (it has a dot) and passed through to Spark."""


@dataclass(frozen=True)
class Located:
    """A source found: where it is, and how its one-line errors name it (the flag, server or file)."""

    location: Location
    label: str


def locate(
    contract: Contract | None,
    *,
    server: str | None = None,
    table: str | None = None,
    path: str | None = None,
    data_format: str | None = None,
    delimiter: str | None = None,
    label: str | None = None,
) -> Located:
    """The source of one read, checked as far as it can be without Spark; raises :class:`SourceError`.

    A ``path`` that replaces only the path of the contract's one file server (same format, or a format
    the file names do not tell) keeps that server's format and reader options (delimiter, header,
    encoding); ``data_format`` and ``delimiter`` override them.
    """
    given = [name for name, value in (("path", path), ("table", table), ("server", server)) if value is not None]
    if len(given) > 1:
        raise SourceError(f"give one of --data, --table and --server, not {' and '.join(given)}")
    if data_format is not None:
        data_format = _known_format(data_format, label or "--format")
    if table is not None:
        return Located(Table(table), label or f"--table {table}")
    if path is not None:
        label = label or f"--data {path}"
        _require_files(path, label)
        files = _in_place_of_server(contract, path, data_format, label)
    else:
        if contract is None:
            raise SourceError("say where the data is: a path, a table or a contract with servers")
        chosen = choose_server(contract.servers, server, contract.origin)
        location = location_of(chosen, contract.dataset, contract.schema_name)
        if isinstance(location, Table):
            return Located(location, f"{chosen.where}: table {location.name}")
        label = f"{chosen.where}: {location.path}"
        _require_files(location.path, label)
        if location.pattern is not None and not matching_files(location):
            raise SourceError(f"{label}: no file under it matches the pattern {location.pattern!r}")
        fmt = data_format or location.format or format_of(location.path, chosen.where)
        files = replace(location, format=_known_format(fmt, chosen.where))
    _check_contents(files, label)
    if delimiter is not None:
        if files.format != "csv":
            raise SourceError(f"--delimiter applies to csv; {label} is read as {files.format}")
        files = replace(files, delimiter=delimiter)
    return Located(files, label)


def declared_datasets(document: Sequence[Contract]) -> dict[str, Contract]:
    """A document's contracts by every name a foreign key may use for one: its schema's name and its dataset."""
    return {name: c for c in document for name in (c.schema_name, c.dataset) if name}


def reference_source(name: str, location: str, declared: Contract | None) -> Located:
    """A referenced dataset given as ``NAME=PATH`` (read like ``--data``) or ``NAME=table:TABLE``."""
    if not location:
        raise SourceError(f"--reference {name}=: give where the dataset is (a path, or table:NAME)")
    table = location.removeprefix("table:") if location.startswith("table:") else None
    path = None if table is not None else location
    return locate(declared, table=table, path=path, label=f"--reference {name}={location}")


def _in_place_of_server(contract: Contract | None, path: str, data_format: str | None, label: str) -> Files:
    """``--data PATH`` read as the contract's one file server reads its own path, when only the path differs."""
    told = data_format or _format_of_names(path)
    if contract is not None and len(contract.servers) == 1:
        try:
            own = location_of(contract.servers[0], contract.dataset, contract.schema_name)
        except SourceError:  # a server dqx-gx cannot read says nothing about a path given instead
            own = None
        if isinstance(own, Files) and own.format is not None and told in (None, own.format.lower()):
            return replace(own, path=path, format=own.format.lower(), pattern=None)  # the path given is read whole
    return Files(path, told or format_of(path, label))


def _known_format(fmt: str, label: str) -> str:
    """A format by name, lower-cased; a misspelt or unknown short name is refused with the nearest one."""
    if "." in fmt:  # a connector's class name (com.example.spark.Source): Spark's business
        return fmt
    lowered = fmt.lower()
    if lowered in SPARK_SOURCES:
        return lowered
    close = difflib.get_close_matches(lowered, sorted(SPARK_SOURCES), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise SourceError(
        f"{label}: {fmt!r} is not a Spark data source dqx-gx knows; {hint}it reads {', '.join(FORMATS)}, and "
        "other sources by their short name (delta, iceberg, avro, …) or a connector's class name"
    )


def matching_files(files: Files) -> list[str]:
    """The data files under a local ``files.path`` whose path there (``2019/southeast_2019.csv``) matches its
    ``pattern`` in full, sorted; every data file without a pattern."""
    local = local_path(files.path)
    if local is None or files.pattern is None:
        return [files.path]
    if local.is_file():
        return [str(local)] if re.fullmatch(files.pattern, local.name) else []
    pattern = re.compile(files.pattern)
    return [str(f) for f in _data_files(local) if pattern.fullmatch(f.relative_to(local).as_posix())]


def local_path(path: str) -> Path | None:
    """The local file system path of ``path``; None for a URL of another file system (s3a://, abfss://, …)."""
    if "://" in path and not path.startswith("file://"):
        return None
    return Path(path.removeprefix("file://"))


def is_glob(path: str) -> bool:
    return bool(_GLOB & set(path))


def several_files(path: str) -> bool:
    local = local_path(path)
    return local is None or is_glob(path) or local.is_dir()


def _require_files(path: str, label: str) -> None:
    """A local path names at least one file to read (other file systems are Spark's to check)."""
    local = local_path(path)
    if local is None:
        return
    if is_glob(path):
        if not glob.glob(str(local), recursive=True):
            raise SourceError(f"{label}: no file matches the pattern")
    elif not local.exists():
        raise SourceError(f"{label}: no such file or directory")
    elif local.is_dir() and not any(_data_files(local)):
        raise SourceError(f"{label}: the folder holds no data files")


def binary_format(start: bytes, end: bytes = b"") -> str | None:
    """The binary format a file's first bytes (and last four) show, or None: parquet begins and ends with its
    mark (``PAR1``, or ``PARE`` encrypted), orc begins with ``ORC`` and holds bytes no text does."""
    if any(start.startswith(mark) and (not end or end == mark) for mark in (b"PAR1", b"PARE")):
        return "parquet"
    if start.startswith(b"ORC") and any(b < 9 or 13 < b < 32 for b in start[3:]):
        return "orc"
    return None


_HEAD = 64
"""Bytes read from the start of a file to tell its format."""
_TEXT = ("csv", "json", "text")


def _check_contents(files: Files, label: str) -> None:
    """A local file read as parquet or orc that is not one, or read as text that is one, is refused before
    Spark starts (Spark would say so only after its seconds of start-up). One file is looked at: the file,
    or a folder's or pattern's first data file."""
    local, fmt = local_path(files.path), files.format
    if local is None or fmt not in ("parquet", "orc", *_TEXT):
        return
    if files.pattern is not None:
        first = next((Path(found) for found in matching_files(files)), None)
    else:
        first = _first_data_file(files.path, local)
    if first is None:
        return
    with first.open("rb") as opened:
        start = opened.read(_HEAD)
        size = opened.seek(0, 2)
        opened.seek(max(size - 4, 0))
        end = opened.read(4)
    if size == 0:
        return  # an empty file is the reader's to judge (an empty csv batch, an unreadable parquet)
    looks = binary_format(start, end)
    shown = first.name if first == local else f"{first.name} (its first data file)"
    fix = f"give --format {looks}" if looks else "give the file's --format"
    # read as orc, its mark is enough: binary_format asks more of it only to tell it from text
    marked = start.startswith(b"ORC") if fmt == "orc" else looks == fmt
    if fmt not in _TEXT and not marked:
        raise SourceError(f"{label}: cannot read it as {fmt}: {shown} is no {fmt} file; {fix}")
    if fmt in _TEXT and looks is not None:
        raise SourceError(f"{label}: cannot read it as {fmt}: {shown} holds {looks} data; {fix}")


def _first_data_file(path: str, local: Path) -> Path | None:
    if is_glob(path):
        matches = sorted(Path(p) for p in glob.glob(str(local), recursive=True) if not _hidden(Path(p).name))
        found = [f for m in matches for f in ([m] if m.is_file() else _data_files(m) if m.is_dir() else [])]
    else:
        found = [local] if local.is_file() else _data_files(local) if local.is_dir() else []
    return found[0] if found else None


def _hidden(name: str) -> bool:
    """A file or folder name Spark does not read data from (``_SUCCESS``, ``.crc``, ``_delta_log``)."""
    return name.startswith((".", "_"))


def _data_files(folder: Path) -> list[Path]:
    """Files Spark would read in a folder: hidden and ``_``-prefixed ones (``_SUCCESS``, ``.crc``) are skipped."""
    return sorted(
        p for p in folder.rglob("*") if p.is_file() and not any(_hidden(part) for part in p.relative_to(folder).parts)
    )


def _format_of_names(path: str) -> str | None:
    """The format the file names tell, or None."""
    local = local_path(path)
    if local is not None and not is_glob(path) and local.exists():
        candidates = [local] if local.is_file() else _data_files(local)
    elif local is not None and is_glob(path):
        candidates = sorted(Path(p) for p in glob.glob(str(local), recursive=True)) or [local]
    else:
        candidates = [Path(path.rstrip("/*"))]
    for candidate in candidates:
        fmt = _SUFFIXES.get(candidate.suffix.lower())
        if fmt:
            return fmt
    return None


def format_of(path: str, label: str) -> str:
    """The format the file names tell; refused when they tell none."""
    fmt = _format_of_names(path)
    if fmt is None:
        raise SourceError(f"{label}: cannot tell the format from the file names; give --format ({', '.join(FORMATS)})")
    return fmt
