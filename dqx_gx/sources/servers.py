"""Where an ODCS server keeps a contract's data, engine-neutral (docs/semantics.md, 'Data in').

A server is either files (``local``, ``s3``, ``gcs``, ``azure``, ``sftp``, … with ``path`` or
``location``, globs allowed, and a ``format``) or a catalog table (``catalog``/``schema`` or
``database``, the table being the schema object's physical name unless the server names one).
The contract holds its servers as written (:class:`~dqx_gx.contract.servers.Server`); a server
is refused here, when it is used, with one line naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dqx_gx.contract.servers import CATALOG_TYPES, FILE_TYPES, Server
from dqx_gx.sources.choices import SourceError


@dataclass(frozen=True)
class Files:
    """Files Spark reads: a path (file, folder or glob), a format and reader options."""

    path: str
    format: str | None = None
    delimiter: str | None = None
    header: bool = True
    encoding: str | None = None
    pattern: str | None = None
    """A regular expression the files' paths under ``path`` match in full (the thesis's
    ``accessConfiguration.pattern``); None: every data file."""


@dataclass(frozen=True)
class Table:
    """A catalog table Spark reads by name (``catalog.schema.table``, ``database.table`` or ``table``)."""

    name: str


Location = Files | Table


def supported() -> str:
    """The server types dqx-gx reads, in words (for error messages)."""
    return f"files: {', '.join(FILE_TYPES)}, custom with path/location; tables: {', '.join(CATALOG_TYPES)}, custom"


def choose_server(servers: tuple[Server, ...], name: str | None, origin: str) -> Server:
    """The server called ``name``, or the only one when ``name`` is None."""
    if name is not None:
        for server in servers:
            if server.name == name:
                return server
        known = ", ".join(s.name for s in servers) or "none"
        raise SourceError(f"--server {name}: {origin} has no such server (it has: {known})")
    if len(servers) == 1:
        return servers[0]
    if not servers:
        raise SourceError(f"{origin} declares no servers: give --data PATH, --table NAME or --server NAME")
    names = ", ".join(s.name for s in servers)
    raise SourceError(f"{origin} has {len(servers)} servers ({names}): choose one with --server NAME, or give --data")


def location_of(server: Server, dataset: str, model: str | None = None) -> Location:
    """Where ``server`` keeps the dataset: its files, or its table (``dataset`` unless it names one).

    ``{model}`` in a path (datacontract-cli's placeholder) becomes the schema object's name.
    """
    entry = server.entry
    path = entry.get("path") or entry.get("location")
    if server.type in FILE_TYPES or (server.type in ("custom", "glue") and path and not _has_table_keys(entry)):
        if not isinstance(path, str) or not path.strip():
            raise SourceError(f"{server.where}: needs 'path' or 'location' (where the files are)")
        return Files(
            path=path.replace("{model}", model or dataset),
            format=_text(entry.get("format"), server, "format"),
            delimiter=_text(entry.get("delimiter"), server, "delimiter"),
            header=_header(entry.get("header"), server),
            encoding=_text(entry.get("encoding"), server, "encoding"),
            pattern=_text(entry.get("pattern"), server, "pattern"),
        )
    if server.type in (*CATALOG_TYPES, "custom"):
        return Table(_table_name(server, dataset))
    raise SourceError(f"{server.where}: dqx-gx cannot read this server type; it reads {supported()}")


def _has_table_keys(entry: Mapping[str, Any]) -> bool:
    return any(entry.get(k) for k in ("catalog", "schema", "database", "table", "namespace"))


def _table_name(server: Server, dataset: str) -> str:
    entry = server.entry
    table = _text(entry.get("table"), server, "table") or dataset
    if "." in table:  # already qualified
        return table
    parts = [entry.get("catalog"), entry.get("schema") or entry.get("namespace") or entry.get("database")]
    if server.type in {"hive", "glue"}:
        parts = [None, entry.get("database")]
    names = [_text(p, server, "catalog/schema/database") for p in parts if p]
    if not names and server.type != "custom":
        raise SourceError(f"{server.where}: needs 'schema' or 'database' (the table's namespace)")
    return ".".join([*(n for n in names if n), table])


def _text(value: Any, server: Server, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise SourceError(f"{server.where}: '{key}' must be text, got {value!r}")
    return str(value)


def _header(value: Any, server: Server) -> bool:
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    raise SourceError(f"{server.where}: 'header' must be true or false, got {value!r}")
