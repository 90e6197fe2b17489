"""Requests become stored workloads, run in a bounded pool beside the request loop on one Spark session.

A request is checked whole before anything is stored (the contract or configuration, where the data is):
a bad one is refused and leaves no trace. A good one is stored Running and queued; a full queue refuses it
before it is stored. Each run reads its data, runs the contract through a GX checkpoint in a GX context of
its own (its stores and data docs are its folder of ``--gx-dir``) and stores its report, exactly
``dqx-gx validate --output json``, and for the thesis's API its result items, in one transaction.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import uuid
import warnings
from collections.abc import Iterator, Mapping
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import great_expectations as gx
from great_expectations.data_context.types.base import DataContextConfig, FilesystemStoreBackendDefaults

from dqx_gx import report
from dqx_gx.contract import Contract, load_contracts
from dqx_gx.contract.servers import Server
from dqx_gx.errors import ContractValidationError, ContractWarning, first_line
from dqx_gx.expectations.suite import build_suite
from dqx_gx.run import ContractRun, run_contract
from dqx_gx.run.artifacts import quiet_context
from dqx_gx.run.docs import run_pages
from dqx_gx.service.paths import DataRoot, PathRefused
from dqx_gx.service.store import Api, Store, Workload
from dqx_gx.service.validations import Workload as ThesisWorkload
from dqx_gx.service.validations import distinct_values, read_configuration, result_items
from dqx_gx.sources.choices import SourceError
from dqx_gx.sources.locate import Located, locate
from dqx_gx.sources.reader import read_located
from dqx_gx.sources.servers import Files, choose_server, location_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from dqx_gx.session import Starting

log = logging.getLogger(__name__)
SITE = Path("uncommitted", "data_docs", "local_site")
"""A run's data docs site under its folder of --gx-dir."""


class Refused(Exception):
    """A request the service will not run: one line naming the field (HTTP 400)."""


class Busy(Exception):
    """Every worker is busy and the queue is full (HTTP 503)."""


@dataclass(frozen=True)
class Settings:
    """What ``dqx-gx serve`` was started with that runs need."""

    data_root: DataRoot
    gx_dir: Path
    """Each run's GX stores and data docs are folders of ``gx_dir/<id>``."""
    allow_sql: bool = False
    workers: int = 2
    queue: int = 16
    samples: int = 5


@dataclass(frozen=True)
class _Job:
    workload_id: str
    contract: Contract
    located: Located
    now: datetime | None = None
    allow_sql: bool = False
    thesis: ThesisWorkload | None = None


class Service:
    """The service's core: checks requests, stores workloads, runs them."""

    def __init__(self, settings: Settings, store: Store, starting: Starting) -> None:
        self.settings = settings
        self.store = store
        self._starting = starting
        self._spark: SparkSession | None = None
        self._slots = threading.BoundedSemaphore(settings.workers + settings.queue)
        _answer_warnings()
        self._pool = futures.ThreadPoolExecutor(
            max_workers=settings.workers, thread_name_prefix="dqx-gx-run", initializer=self._on_worker
        )

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def spark(self) -> SparkSession:
        """The server's one Spark session (waits for it to have started)."""
        if self._spark is None:
            self._spark = self._starting.session()
        return self._spark

    def _on_worker(self) -> None:
        """Make the session active on each worker thread (Spark reads SQL settings from the thread's session)."""
        self.spark().createDataFrame([], "active int")

    # --- the thesis's API ------------------------------------------------------------------------------

    def start_validation(self, body: Mapping[str, Any]) -> str:
        """Check, store and queue a validation configuration; its workload id."""
        try:
            with _recorded():
                workload = read_configuration(body)
                located = self._located(
                    workload.contract, workload.path, "access.path", data_format=workload.data_format
                )
                _buildable(workload.contract)
        except (ContractValidationError, PathRefused, SourceError) as exc:
            raise Refused(one_line(str(exc))) from None
        job = _Job(workload.workload_id, workload.contract, located, thesis=workload)
        self._queue(job, "thesis", dict(body))
        return workload.workload_id

    # --- the native API ---------------------------------------------------------------------------------

    def start_run(
        self, contract_text: str, data: str | None, schema: str | None, now: str | None, allow_sql: bool
    ) -> tuple[str, list[str]]:
        """Check, store and queue a contract run; its id and the contract's warnings."""
        if allow_sql and not self.settings.allow_sql:
            raise Refused("allow_sql: this server runs no SQL rules; start it with --allow-sql to allow them")
        moment = _moment(now)
        try:
            with _recorded() as caught:
                contracts = load_contracts(contract_text)
                contract = _chosen(contracts, schema)
                located = self._located(contract, data, "data")
                _buildable(contract, allow_sql=allow_sql)
        except (ContractValidationError, PathRefused, SourceError) as exc:
            raise Refused(one_line(str(exc))) from None
        notes = tuple(dict.fromkeys(caught))
        run_id = str(uuid.uuid4())
        request = {"contract": contract_text, "data": data, "schema": schema, "now": now, "allow_sql": allow_sql}
        self._queue(_Job(run_id, contract, located, moment, allow_sql), "native", request)
        return run_id, list(notes)

    # --- both -------------------------------------------------------------------------------------------

    def _located(
        self, contract: Contract, path: str | None, field_name: str, *, data_format: str | None = None
    ) -> Located:
        """Where the run reads, checked inside the data root before anything is read."""
        if path is not None:
            local = self.settings.data_root.requested(path, field_name)
            return locate(contract, path=local, data_format=data_format, label=f"{field_name} {path}")
        try:
            chosen = choose_server(contract.servers, None, contract.origin)
        except SourceError as exc:
            raise Refused(f"data: {exc}; or give data, a path under the data root") from None
        files = location_of(chosen, contract.dataset, contract.schema_name)
        if not isinstance(files, Files):
            raise Refused(f"{chosen.where}: the service reads only files under its data root; give data")
        local = self.settings.data_root.server(files.path, chosen.where)
        entry = {**chosen.entry, "path": local}
        moved = Server(chosen.name, chosen.type, chosen.index, entry)
        return locate(dataclasses.replace(contract, servers=(moved,)))

    def _queue(self, job: _Job, api: Api, request: Mapping[str, Any]) -> None:
        if not self._slots.acquire(blocking=False):
            raise Busy
        try:
            self.store.add(job.workload_id, api, job.contract.name or job.contract.dataset, request)
        except BaseException:
            self._slots.release()
            raise
        self._pool.submit(self._run, job)

    def _run(self, job: _Job) -> None:
        try:
            self._execute(job)
        except Exception as exc:  # the workload could not run: stored as NOK with the reason, never lost
            log.warning("workload %s could not run: %s", job.workload_id, exc, exc_info=log.isEnabledFor(logging.INFO))
            self.store.finish(job.workload_id, "NOK", error=_reason(exc))
        finally:
            self._slots.release()

    def _execute(self, job: _Job) -> None:
        spark = self.spark()
        frame = read_located(spark, job.located, job.contract)
        context = _project(self.settings.gx_dir / job.workload_id)
        run = run_contract(
            job.contract,
            frame,
            now=job.now,
            context=context,
            data_docs=True,
            allow_sql=job.allow_sql,
            samples=self.settings.samples,
        )
        self.store.finish(
            job.workload_id,
            "OK",
            outcome=run.outcome,
            report=report.to_json(run),
            result=None if job.thesis is None else result_items(job.thesis, run, distinct_values(job.thesis, frame)),
            docs=_page(context, run, self.settings.gx_dir / job.workload_id),
        )

    def get(self, workload_id: str) -> Workload | None:
        return self.store.get(workload_id)

    def site(self, workload: Workload) -> Path:
        """The folder of a run's data docs site."""
        return self.settings.gx_dir / workload.id / SITE


_RECORDING = threading.local()


def _answer_warnings() -> None:
    """A contract's warnings go to the request that caused them: a thread recording (:func:`_recorded`) gets
    them; any other warning, and a run's (its contract's were answered when it was posted), go to the debug log.
    ``warnings.catch_warnings`` would not do: it changes the whole process, and requests and runs share it."""
    warnings.simplefilter("always", ContractWarning)
    warnings.showwarning = _shown


def _shown(  # noqa: PLR0917 - warnings.showwarning's signature
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    notes: list[str] | None = getattr(_RECORDING, "notes", None)
    if notes is not None and issubclass(category, ContractWarning):
        notes.append(str(message))
    else:
        log.debug("%s: %s", category.__name__, message)


@contextmanager
def _recorded() -> Iterator[list[str]]:
    """The warnings this thread issues in the block."""
    _RECORDING.notes = []
    try:
        yield _RECORDING.notes
    finally:
        del _RECORDING.notes


def _buildable(contract: Contract, *, allow_sql: bool = False) -> None:
    """Refuse, before anything is stored, a rule GX cannot build (an unknown expectation, arguments it
    refuses) or an SQL rule that is not a single read-only query."""
    build = build_suite(contract, allow_sql=allow_sql)
    declared = {rule.id: rule for rule in contract.rules}
    for rule_id, reason in build.skipped.items():
        rule = declared[rule_id]
        if contract.format == "thesis" and rule.origin.value == "greatExpectations":
            raise ContractValidationError(f"{rule.id}: {reason}")


def _chosen(contracts: list[Contract], schema: str | None) -> Contract:
    if schema is not None:
        for contract in contracts:
            if schema in (contract.dataset, contract.schema_name):
                return contract
        known = ", ".join(c.dataset for c in contracts) or "none"
        raise ContractValidationError(f"schema: {schema!r} matches no schema object of the contract (it has: {known})")
    if len(contracts) == 1:
        return contracts[0]
    if not contracts:
        raise ContractValidationError("contract: it declares no schema objects; there is nothing to validate")
    names = ", ".join(c.dataset for c in contracts)
    raise ContractValidationError(f"schema: the contract has {len(contracts)} schema objects ({names}); choose one")


def _moment(now: str | None) -> datetime | None:
    if now is None:
        return None
    try:
        return datetime.fromisoformat(now)
    except ValueError:
        raise Refused(f"now: {now!r} is not an ISO date-time (e.g. 2026-11-22T06:00:00Z)") from None


def _project(root: Path) -> Any:
    """A GX context for one run whose stores and data docs site are folders under ``root`` (its suite,
    checkpoint, validation result and data docs). It keeps no ``great_expectations.yml``: GX writes that file
    through one YAML writer shared by the process, which two runs at once would garble."""
    root.mkdir(parents=True, exist_ok=True)
    config = DataContextConfig(store_backend_defaults=FilesystemStoreBackendDefaults(root_directory=str(root)))
    return quiet_context(gx.get_context(project_config=config))


def _page(context: Any, run: ContractRun, root: Path) -> str | None:
    """The run's data docs page, relative to its site folder."""
    site = (root / SITE).resolve()
    for url in run_pages(context, run.checkpoint_result.run_results):
        page = Path(unquote(url.removeprefix("file://"))).resolve()
        if site in page.parents:
            return page.relative_to(site).as_posix()
    return None


def one_line(text: str) -> str:
    """A message of several lines (a contract's every problem) on one: its problems joined by ``;``."""
    first, *rest = text.strip().splitlines() or [""]
    listed = [line.strip().removeprefix("- ") for line in rest if line.strip()]
    return f"{first} {'; '.join(listed)}" if listed else first


def _reason(exc: BaseException) -> str:
    """Why a workload could not run, in one line."""
    return first_line(exc) or type(exc).__name__
