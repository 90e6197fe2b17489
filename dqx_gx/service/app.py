"""The HTTP face: the thesis's Validator API and a native one, thin over :class:`~.workloads.Service`.

Bad input is answered with one line naming the field (400, or 422 for a body of the wrong shape), never a
traceback; ``/v1`` asks for ``X-API-Key`` when the server has a key; bodies are limited in size.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from importlib.metadata import version
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from dqx_gx.contract.thesis import RULE_TYPES
from dqx_gx.service.store import Workload, WorkloadExists
from dqx_gx.service.validations import workload_id_of
from dqx_gx.service.workloads import Busy, Refused, Service

log = logging.getLogger(__name__)
RETRY_AFTER = 5
"""Seconds a client waits before posting again to a full queue."""
VALIDATION_START = "/v1/validation/start"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# --- the bodies, as the OpenAPI schema shows them (their meaning is checked by the service) ---------------


class Level(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tolerance: float | None = Field(None, description="a share of the parameter the metric may miss it by")


class Severity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    warn: Level | None = None
    fail: Level | None = None


class Validation(BaseModel):
    """One rule of the thesis: one check per column and level."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(description="names the rule's results")
    ruleType: Literal[RULE_TYPES] = Field(description="the rule type")  # type: ignore[valid-type]
    dimension: str | None = None
    name: str | None = None
    columns: list[str] | None = Field(None, description="the columns checked, one check each (none for size)")
    parameter: Any = Field(None, description="a number, or for allowedValues the list of values allowed")
    severity: Severity | None = Field(None, description="the levels checked; none: one fail check")
    technology: str | None = Field(None, description="custom: GreatExpectations")
    call: str | None = Field(None, description="custom: the GX expectation (default: the rule's id)")
    args: dict[str, Any] | None = Field(None, description="custom: the expectation's arguments besides column")


class Access(BaseModel):
    model_config = ConfigDict(extra="allow")
    path: str = Field(description="the data, relative to the server's data root: a file or folder")
    format: str | None = Field(None, description="parquet, csv (with a header) or json; default: from the files")


class ValidationConfiguration(BaseModel):
    model_config = ConfigDict(extra="allow")
    workloadId: str
    validations: list[Validation]
    access: Access


class ValidationStatus(BaseModel):
    workloadId: str
    status: Literal["Running", "OK", "NOK"]
    result: list[dict[str, Any]]
    error: str | None = None


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    contract: str = Field(description="the contract's YAML text: ODCS, DQX native or the thesis's format")
    data: str | None = Field(None, description="the data, relative to the data root; default: the contract's server")
    schema_name: str | None = Field(None, alias="schema", description="the schema object of a contract with several")
    now: str | None = Field(
        None,
        description="the run's moment, which freshness, completeness and is_not_in_future measure from "
        "(ISO; default: now)",
    )
    allow_sql: bool = Field(False, description="run the contract's SQL rules (the server must allow them)")


class RunStarted(BaseModel):
    id: str
    status: Literal["Running"]
    warnings: list[str]


class RunStatus(BaseModel):
    id: str
    status: Literal["Running", "OK", "NOK"]
    outcome: str | None
    error: str | None
    report: dict[str, Any] | None = Field(description="exactly `dqx-gx validate --output json`")


class RunListed(BaseModel):
    id: str
    api: str
    contract: str | None
    status: str
    outcome: str | None
    created: str
    finished: str | None


class RunList(BaseModel):
    runs: list[RunListed]


class Problem(BaseModel):
    detail: str


# --- the application ---------------------------------------------------------------------------------------


def create_app(service: Service, *, api_key: str | None, max_body: int, ready: Callable[[], str | None]) -> Any:
    """The ASGI application; ``ready`` gives the Spark version once the session is up (None before)."""
    app = FastAPI(
        title="dqx-gx validator",
        description="Runs DQX data contracts on Great Expectations over Spark: the thesis's Validator API "
        "(/v1/validation) and a native one (/v1/runs). See docs/service.md.",
        version=version("dqx-gx"),
    )
    v1 = APIRouter(prefix="/v1", dependencies=[Depends(_key_check(api_key))])

    @app.get("/health", responses={503: {"model": Problem}})
    def health() -> JSONResponse:
        """200 once the Spark session is up; 503 while it starts."""
        spark = ready()
        if spark is None:
            return JSONResponse({"status": "starting"}, status_code=503, headers={"Retry-After": str(RETRY_AFTER)})
        return JSONResponse({"status": "ok", "spark": spark})

    _thesis_routes(v1, service)
    _run_routes(v1, service)
    app.include_router(v1)
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http_problem)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected)
    return _LimitedBody(app, max_body)


def _thesis_routes(v1: APIRouter, service: Service) -> None:
    """The thesis's Validator API: start a validation configuration, poll its workload."""

    @v1.post(
        "/validation/start",
        response_model=ValidationStatus,
        response_model_exclude_none=True,
        responses={400: {"model": ValidationStatus}, 409: {"model": Problem}, 503: {"model": Problem}},
    )
    def start_validation(configuration: ValidationConfiguration) -> Any:
        """Check the validation configuration and queue it: OK once its rules became checks (not their outcome)."""
        body = configuration.model_dump(exclude_unset=True, by_alias=True)
        try:
            workload_id = service.start_validation(body)
        except Refused as exc:
            return JSONResponse(_not_ok(body, str(exc)), status_code=400)
        except WorkloadExists:
            return _problem(409, f"workloadId: {body['workloadId']!r} exists; its results are unchanged")
        except Busy:
            return _busy()
        return {"workloadId": workload_id, "status": "OK", "result": []}

    @v1.get("/validation/{workloadId}", response_model=ValidationStatus, responses={404: {"model": Problem}})
    def poll_validation(workloadId: str) -> Any:
        """The workload's status (Running, OK: the checks ran, NOK: it could not run) and result items."""
        workload = service.get(workloadId)
        if workload is None or workload.api != "thesis":
            return _problem(404, f"workloadId: no workload {workloadId!r}")
        answer: dict[str, Any] = {"workloadId": workload.id, "status": workload.status, "result": workload.result or []}
        if workload.error is not None:
            answer["error"] = workload.error
        return JSONResponse(answer)  # as stored: a level that was not asked for stays null


def _run_routes(v1: APIRouter, service: Service) -> None:
    """The native API: run a contract, poll it for its report, list runs, serve its data docs."""

    @v1.post(
        "/runs",
        status_code=202,
        response_model=RunStarted,
        responses={400: {"model": Problem}, 503: {"model": Problem}},
    )
    def start_run(request: RunRequest) -> Any:
        """Check a contract and where its data is, and queue its run."""
        try:
            run_id, notes = service.start_run(
                request.contract, request.data, request.schema_name, request.now, request.allow_sql
            )
        except Refused as exc:
            return _problem(400, str(exc))
        except Busy:
            return _busy()
        return JSONResponse(
            {"id": run_id, "status": "Running", "warnings": notes},
            status_code=202,
            headers={"Location": f"/v1/runs/{run_id}"},
        )

    @v1.get("/runs", response_model=RunList)
    def list_runs(
        contract: Annotated[str | None, Query(description="only this contract's runs")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> Any:
        """Earlier runs (of both APIs), newest first."""
        return {"runs": [_listed(w) for w in service.store.listed(contract, limit)]}

    @v1.get("/runs/{run_id}", response_model=RunStatus, responses={404: {"model": Problem}})
    def get_run(run_id: str) -> Response:
        """A run's status, the gate's outcome and its report, exactly ``dqx-gx validate --output json``."""
        workload = service.get(run_id)
        if workload is None:
            return _problem(404, f"run_id: no run {run_id!r}")
        head = {"id": workload.id, "status": workload.status, "outcome": workload.outcome, "error": workload.error}
        text = json.dumps(head, ensure_ascii=False)[:-1] + ', "report": ' + (workload.report or "null") + "}"
        return Response(text, media_type="application/json")

    @v1.get("/runs/{run_id}/docs", responses={307: {"description": "to the run's page"}, 404: {"model": Problem}})
    def run_docs(run_id: str) -> Response:
        """The run's data docs page (GX's validation page, as dqx-gx builds it)."""
        workload = service.get(run_id)
        if workload is None or workload.docs is None:
            return _problem(404, f"run_id: no data docs for {run_id!r} (unknown, still running or not run)")
        return RedirectResponse(f"/v1/runs/{run_id}/docs/{workload.docs}", status_code=307)

    @v1.get("/runs/{run_id}/docs/{page:path}", responses={404: {"model": Problem}})
    def run_docs_file(run_id: str, page: str) -> Response:
        """A file of the run's data docs site (its page, the index, the site's styles and fonts)."""
        workload = service.get(run_id)
        if workload is None or workload.docs is None:
            return _problem(404, f"run_id: no data docs for {run_id!r}")
        site = service.site(workload).resolve()
        wanted = (site / page).resolve()
        if site not in wanted.parents or not wanted.is_file():
            return _problem(404, f"page: {page!r} is not in the run's data docs")
        return FileResponse(wanted)


def _key_check(api_key: str | None) -> Callable[..., None]:
    def check(x_api_key: Annotated[str | None, Header(description="the server's DQX_GX_API_KEY")] = None) -> None:
        if api_key is None:
            return
        if not x_api_key:
            raise HTTPException(401, "X-API-Key: missing; this server needs its key (DQX_GX_API_KEY)")
        if not hmac.compare_digest(x_api_key.encode("utf-8", "surrogateescape"), api_key.encode()):
            raise HTTPException(403, "X-API-Key: not this server's key")

    return check


def _problem(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def _busy() -> JSONResponse:
    return _problem(
        503, "every worker is busy and the queue is full; post again later", {"Retry-After": str(RETRY_AFTER)}
    )


def _not_ok(body: Any, error: str) -> dict[str, Any]:
    workload_id = body.get("workloadId") if isinstance(body, dict) else None
    return {"workloadId": workload_id if isinstance(workload_id, str) else None, "status": "NOK", "error": error}


def _listed(workload: Workload) -> dict[str, Any]:
    return {
        "id": workload.id,
        "api": workload.api,
        "contract": workload.contract,
        "status": workload.status,
        "outcome": workload.outcome,
        "created": workload.created,
        "finished": workload.finished,
    }


async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A body of the wrong shape: its first problem in one line, naming the field."""
    line = _first_problem(exc.errors())
    if request.url.path == VALIDATION_START:
        try:
            body = json.loads(await request.body())
        except ValueError:
            body = None
        if isinstance(body, dict):
            try:
                workload_id_of(body)
            except Exception:
                body = {}
        return JSONResponse(_not_ok(body, line), status_code=400)
    return _problem(422, line)


def _first_problem(errors: Any) -> str:
    for error in errors:
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.get("loc", ())[1:])
        where = where.lstrip(".") or "body"
        return f"{where}: {error.get('msg', 'invalid')}"
    return "body: invalid"


async def _http_problem(_: Request, exc: StarletteHTTPException) -> JSONResponse:
    return _problem(exc.status_code, str(exc.detail), dict(exc.headers or {}))


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    """The last line of defence: one line, the traceback only in the server's log (-v)."""
    log.error("unexpected error: %s", exc, exc_info=log.isEnabledFor(logging.INFO))
    return _problem(500, f"{type(exc).__name__}: {exc}".splitlines()[0])


class _LimitedBody:
    """Refuse a request body larger than ``limit`` bytes with 413, by its Content-Length or as it streams."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(self.limit)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _too_large(self.limit)(scope, receive, send)


class _TooLarge(Exception):
    pass


def _too_large(limit: int) -> JSONResponse:
    return _problem(413, f"body: larger than {limit} bytes; a request carries a contract, never data")
