"""ODCS ``servers`` entries as the contract wrote them: plain data, no reader (docs/semantics.md, 'Contracts in' and
'Data in').

A contract is never refused for its servers block: keys the ODCS schema does not know for a
server's type (datacontract-cli writes ``delimiter`` on file servers) are lifted out with a
ContractWarning; the reader keys among them are kept, and honoured when the data is read
(``dqx_gx.sources.servers`` says where a server keeps the data and how Spark reads it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from dqx_gx.errors import warn_contract

READER_KEYS = ("delimiter", "header", "encoding")
"""Server keys that tell how to read files (honoured even where the ODCS schema lacks them)."""
_SERVER_SOURCE = {
    "local": "LocalServer",
    "s3": "S3Server",
    "gcs": "GCSServer",
    "azure": "AzureServer",
    "sftp": "SftpServer",
    "databricks": "DatabricksServer",
    "hive": "HiveServer",
    "glue": "GlueServer",
    "iceberg": "IcebergServer",
    "custom": "CustomServer",
}


FILE_TYPES = ("local", "s3", "gcs", "azure", "sftp")
"""Server types whose data are files at ``path``/``location``."""
CATALOG_TYPES = ("databricks", "hive", "glue", "iceberg")
"""Server types whose data is a catalog table Spark reads with ``spark.table``."""


def readable_type(kind: Any) -> bool:
    """A server type dqx-gx reads: files, a catalog table, or ``custom`` (either, by its keys)."""
    return kind in (*FILE_TYPES, *CATALOG_TYPES, "custom")


@dataclass(frozen=True)
class Server:
    """One ``servers[]`` entry as the contract wrote it (reader keys kept, whatever the type)."""

    name: str
    type: str
    index: int
    entry: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def where(self) -> str:
        return f"server {self.name!r} (servers[{self.index}], type {self.type})"


def parse_servers(raw: Any, origin: str) -> tuple[Server, ...]:
    """The servers of an ODCS document, each with a ContractWarning for what the schema does not allow.

    Never raises: an entry without a name or a type is kept under its index and refused only
    when it is used (:func:`dqx_gx.sources.servers.location_of`).
    """
    if not isinstance(raw, list):
        if raw is not None:
            warn_contract(f"{origin}: servers is not a list; ignored", stacklevel=4)
        return ()
    servers = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping):
            warn_contract(f"{origin}: servers[{index}] is not a mapping; ignored", stacklevel=4)
            continue
        name = str(entry.get("server") or f"servers[{index}]")
        server = Server(name, str(entry.get("type") or ""), index, MappingProxyType(dict(entry)))
        unknown = sorted(set(entry) - known_keys(server.type))
        if unknown and server.type in _SERVER_SOURCE:
            honoured = [k for k in unknown if k in READER_KEYS]
            ignored = [k for k in unknown if k not in READER_KEYS]
            said = []
            if honoured:
                said.append(f"{', '.join(map(repr, honoured))} honoured when the data is read")
            if ignored:
                said.append(f"{', '.join(map(repr, ignored))} ignored")
            warn_contract(
                f"{origin}: {server.where}: not ODCS keys of a {server.type} server: {'; '.join(said)}", stacklevel=4
            )
        servers.append(server)
    return tuple(servers)


@cache
def known_keys(server_type: str) -> frozenset[str]:
    """The keys the ODCS schema (as shipped in ``open-data-contract-standard``) allows on a server of this type."""
    schema = json.loads(resources.files("open_data_contract_standard").joinpath("schema.json").read_text("utf-8"))
    defs = schema["$defs"]
    keys = set(defs["Server"]["properties"])
    source = _SERVER_SOURCE.get(server_type)
    if source is not None:
        keys |= set(defs["ServerSource"][source].get("properties", {}))
    return frozenset(keys)
