"""ODCS servers, engine-neutral: parsed with warnings, never a reason to refuse a contract (docs/semantics.md, 'Contracts in' and 'Data in')."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from dqx_gx import ContractWarning, load_contracts
from dqx_gx.sources.choices import SourceError
from dqx_gx.sources.servers import Files, Table, choose_server, location_of
from tests.conftest import dedent

HEAD = """\
apiVersion: v3.0.2
kind: DataContract
id: t
version: 1.0.0
status: active
"""
SCHEMA = """\
schema:
  - name: orders
    physicalName: orders_tbl
    properties:
      - name: id
        logicalType: integer
"""


def _load(servers: str) -> tuple[list[str], tuple]:  # type: ignore[type-arg]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (contract,) = load_contracts(HEAD + dedent(servers) + SCHEMA)
    return [str(w.message) for w in caught if issubclass(w.category, ContractWarning)], contract.servers


def test_a_delimiter_on_a_local_server_loads_with_a_warning_and_is_honoured() -> None:
    said, servers = _load(
        """
        servers:
          - server: landing
            type: local
            path: ./data/*.csv
            format: csv
            delimiter: ";"
        """
    )
    assert said == [
        "<text>: server 'landing' (servers[0], type local): not ODCS keys of a local server: "
        "'delimiter' honoured when the data is read"
    ]
    assert location_of(servers[0], "orders_tbl") == Files("./data/*.csv", "csv", delimiter=";")


def test_unknown_keys_are_ignored_with_a_warning_naming_them() -> None:
    said, servers = _load(
        """
        servers:
          - server: lake
            type: s3
            location: s3a://bucket/{model}/
            format: parquet
            region: eu-west-1
        """
    )
    assert len(said) == 1 and said[0].endswith("not ODCS keys of a s3 server: 'region' ignored")
    assert location_of(servers[0], "orders_tbl", "orders") == Files("s3a://bucket/orders/", "parquet")


@pytest.mark.parametrize(
    ("entry", "table"),
    [
        ("type: databricks\n    catalog: main\n    schema: sales", "main.sales.orders_tbl"),
        ("type: hive\n    host: h\n    database: sales", "sales.orders_tbl"),
        ("type: glue\n    account: '1'\n    database: sales", "sales.orders_tbl"),
        ("type: custom\n    database: sales\n    table: other", "sales.other"),
        ("type: iceberg\n    catalog: cat\n    namespace: db", "cat.db.orders_tbl"),
    ],
)
def test_catalog_servers_name_a_table(entry: str, table: str) -> None:
    _, servers = _load(f"servers:\n  - server: s\n    {entry}\n")
    assert location_of(servers[0], "orders_tbl") == Table(table)


def test_an_unsupported_type_names_the_supported_ones() -> None:
    _, servers = _load(
        "servers:\n  - server: pg\n    type: postgres\n    host: h\n    port: 5432\n    database: d\n    schema: s\n"
    )
    with pytest.raises(SourceError) as raised:
        location_of(servers[0], "orders_tbl")
    assert str(raised.value) == (
        "server 'pg' (servers[0], type postgres): dqx-gx cannot read this server type; it reads "
        "files: local, s3, gcs, azure, sftp, custom with path/location; tables: databricks, hive, glue, iceberg, custom"
    )


def test_choosing_a_server() -> None:
    _, servers = _load(
        "servers:\n  - server: a\n    type: local\n    path: x.csv\n    format: csv\n"
        "  - server: b\n    type: local\n    path: y.csv\n    format: csv\n"
    )
    assert choose_server(servers, "b", "c.yaml").name == "b"
    with pytest.raises(SourceError, match=r"^--server z: c.yaml has no such server \(it has: a, b\)$"):
        choose_server(servers, "z", "c.yaml")
    with pytest.raises(SourceError, match=r"^c.yaml has 2 servers \(a, b\): choose one with --server NAME"):
        choose_server(servers, None, "c.yaml")
    with pytest.raises(SourceError, match=r"^c.yaml declares no servers: give --data PATH"):
        choose_server((), None, "c.yaml")


def test_no_corpus_contract_is_refused_for_its_servers(corpus: Path) -> None:
    refused, warned = [], 0
    for path in sorted(corpus.glob("*/*.y*ml")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                load_contracts(path)
            except Exception as exc:
                if "servers" in str(exc):
                    refused.append(path.name)
        warned += sum("honoured when the data is read" in str(w.message) for w in caught)
    assert refused == []
    assert warned >= 3  # the datacontract-cli fixtures with delimiter on local servers
