"""Where the service keeps its workloads: their request, status and results, in one SQL database.

SQLite (a file in the working folder) by default, PostgreSQL by URL; SQLAlchemy Core speaks to both.
Every change of a workload's state is one transaction, so a reader sees a workload as it was before or
after it, never half-written. The schema carries a version marker: a database written by another
version of the schema is refused with what to do, never changed silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry

SCHEMA_VERSION = 1
"""The version of the tables below; a database of another version is refused at start."""

Status = Literal["Running", "OK", "NOK"]
Api = Literal["thesis", "native"]
INTERRUPTED = "interrupted: the server stopped while this workload ran; start it again under a new id"

_metadata = MetaData()
_schema = Table("dqx_gx_schema", _metadata, Column("version", Integer, nullable=False))
_workloads = Table(
    "dqx_gx_workloads",
    _metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String(200), nullable=False, unique=True),
    Column("api", String(16), nullable=False),
    Column("contract", String(500), index=True),
    Column("status", String(16), nullable=False),
    Column("outcome", String(32)),
    Column("request", Text, nullable=False),
    Column("report", Text),
    Column("result", Text),
    Column("docs", Text),
    Column("error", Text),
    Column("created", String(40), nullable=False),
    Column("finished", String(40)),
)


class StoreError(Exception):
    """The database cannot be used: one line naming it and the fix."""


class WorkloadExists(Exception):
    """A workload with this id is stored already."""


@dataclass(frozen=True)
class Workload:
    """One stored workload, as the API answers about it."""

    id: str
    api: Api
    contract: str | None
    status: Status
    outcome: str | None
    request: Mapping[str, Any]
    report: str | None
    """The run's report, exactly ``dqx-gx validate --output json`` (text)."""
    result: list[Any] | None
    """The thesis API's result items."""
    docs: str | None
    """The run's data docs page, relative to its site."""
    error: str | None
    created: str
    finished: str | None


def database_url(text: str) -> URL:
    """The SQLAlchemy URL of ``--db``; ``postgresql://`` without a driver uses psycopg 3 (the serve extra's)."""
    try:
        url = make_url(text)
    except ArgumentError:
        raise StoreError(f"--db {text!r}: not a database URL (sqlite:///FILE or postgresql://USER@HOST/DB)") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    return url


class Store:
    """The workloads table of one database."""

    def __init__(self, url: str) -> None:
        self.url = database_url(url)
        self.shown = self.url.render_as_string(hide_password=True)
        try:
            self._engine = _engine(self.url)
            self._prepare()
        except SQLAlchemyError as exc:
            raise StoreError(f"--db {self.shown}: {_first_line(exc)}") from None

    def close(self) -> None:
        self._engine.dispose()

    def _prepare(self) -> None:
        """Create the tables in an empty database; refuse one whose tables are of another schema version."""
        with self._engine.begin() as connection:
            tables = set(inspect(connection).get_table_names())
            if _schema.name not in tables:
                if _workloads.name in tables:
                    raise StoreError(
                        f"--db {self.shown}: holds a {_workloads.name} table without a schema version: not a "
                        "dqx-gx database; give another --db"
                    )
                _metadata.create_all(connection)
                connection.execute(insert(_schema).values(version=SCHEMA_VERSION))
                return
            versions = [row.version for row in connection.execute(select(_schema.c.version))]
            if versions != [SCHEMA_VERSION]:
                found = ", ".join(map(str, versions)) or "none"
                raise StoreError(
                    f"--db {self.shown}: its schema version is {found}, this dqx-gx reads version {SCHEMA_VERSION}; "
                    "serve it with the dqx-gx that wrote it, or give a new --db"
                )

    def add(self, workload_id: str, api: Api, contract: str | None, request: Mapping[str, Any]) -> None:
        """Store a new Running workload; raises WorkloadExists when the id is taken (nothing changes)."""
        row = {
            "id": workload_id,
            "api": api,
            "contract": contract,
            "status": "Running",
            "request": json.dumps(request, ensure_ascii=False),
            "created": _now(),
        }
        try:
            with self._engine.begin() as connection:
                connection.execute(insert(_workloads).values(**row))
        except IntegrityError:
            raise WorkloadExists(workload_id) from None

    def finish(
        self,
        workload_id: str,
        status: Status,
        *,
        outcome: str | None = None,
        report: str | None = None,
        result: list[Any] | None = None,
        docs: str | None = None,
        error: str | None = None,
    ) -> None:
        """Record a workload's end in one transaction: its status and whatever it produced."""
        values = {
            "status": status,
            "outcome": outcome,
            "report": report,
            "result": None if result is None else json.dumps(result, ensure_ascii=False),
            "docs": docs,
            "error": error,
            "finished": _now(),
        }
        with self._engine.begin() as connection:
            connection.execute(update(_workloads).where(_workloads.c.id == workload_id).values(**values))

    def get(self, workload_id: str) -> Workload | None:
        with self._engine.connect() as connection:
            row = connection.execute(select(_workloads).where(_workloads.c.id == workload_id)).first()
        return None if row is None else _workload(row._mapping)

    def listed(self, contract: str | None, limit: int) -> list[Workload]:
        """Workloads newest first, those of ``contract`` only when given."""
        query = select(_workloads).order_by(_workloads.c.seq.desc()).limit(limit)
        if contract is not None:
            query = query.where(_workloads.c.contract == contract)
        with self._engine.connect() as connection:
            return [_workload(row._mapping) for row in connection.execute(query)]

    def interrupted(self) -> int:
        """Mark NOK every workload still Running (a server stopped while it ran); how many there were."""
        with self._engine.begin() as connection:
            done = connection.execute(
                update(_workloads)
                .where(_workloads.c.status == "Running")
                .values(status="NOK", error=INTERRUPTED, finished=_now())
            )
        return int(done.rowcount or 0)


def _engine(url: URL) -> Engine:
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": 30})

    @event.listens_for(engine, "connect")
    def _wal(connection: Any, _: ConnectionPoolEntry) -> None:
        """Readers do not wait for a writer (polls while results are stored)."""
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    return engine


def _workload(row: Any) -> Workload:
    return Workload(
        id=row["id"],
        api=row["api"],
        contract=row["contract"],
        status=row["status"],
        outcome=row["outcome"],
        request=json.loads(row["request"]),
        report=row["report"],
        result=None if row["result"] is None else json.loads(row["result"]),
        docs=row["docs"],
        error=row["error"],
        created=row["created"],
        finished=row["finished"],
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
