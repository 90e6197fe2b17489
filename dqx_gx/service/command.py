"""``dqx-gx serve``: start the validator service (its flags, and the checks made before it listens).

This module is imported by the command line to add the command: the service's own modules (FastAPI,
SQLAlchemy, GX, Spark) are imported only when it starts.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

API_KEY = "DQX_GX_API_KEY"
DEFAULT_DB = "sqlite:///dqx-gx.db"
DEFAULT_GX_DIR = "dqx-gx-runs"
MAX_BODY = 10 * 1024 * 1024
"""Largest request body: a contract is at most 10 MiB (``dqx_gx.contract.source.MAX_BYTES``)."""


class ServeError(Exception):
    """The service cannot start as asked: one line naming the flag and the fix."""


def add_serve(commands: Any, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The ``serve`` command's parser (the Spark options are added by the command line, as for validate)."""
    serve: argparse.ArgumentParser = commands.add_parser(
        "serve",
        parents=parents,
        help="run the validator service: the thesis's Validator API and a native one over HTTP (dqx-gx[serve])",
        description="Serve validations over HTTP on one Spark session: POST a contract (or the thesis's validation "
        "configuration), poll its results; workloads and results are kept in --db. OpenAPI at /docs. Needs the "
        "serve extra: pip install 'dqx-gx[serve]'. With DQX_GX_API_KEY set, /v1 asks for it in X-API-Key.",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help=f"address to listen on (default 127.0.0.1; another one needs {API_KEY})"
    )
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--db",
        default=DEFAULT_DB,
        metavar="URL",
        help=f"where workloads and results are kept: a SQLAlchemy URL (default {DEFAULT_DB}, a file in the working "
        "folder; postgresql://USER:PASSWORD@HOST/DB for PostgreSQL)",
    )
    serve.add_argument(
        "--data-root",
        default=".",
        metavar="DIR",
        help="the only folder data is read from; request paths are relative to it (default: the working folder)",
    )
    serve.add_argument(
        "--gx-dir",
        default=DEFAULT_GX_DIR,
        metavar="DIR",
        help=f"where each run's GX project (validation result, data docs) is kept (default {DEFAULT_GX_DIR})",
    )
    serve.add_argument(
        "--allow-sql",
        action="store_true",
        help="let requests run their contract's type: sql rules (allow_sql: true); off by default",
    )
    serve.add_argument("--workers", type=int, default=2, help="validations run at once (default 2)")
    serve.add_argument(
        "--queue", type=int, default=16, help="validations waiting beyond those; more are answered 503 (default 16)"
    )
    serve.add_argument(
        "--max-body", type=int, default=MAX_BODY, metavar="BYTES", help=f"largest request body (default {MAX_BODY})"
    )
    return serve


def run_serve(args: argparse.Namespace, confs: Mapping[str, str]) -> int:
    """Check the flags, open the database, start Spark and serve until stopped; the exit code."""
    key = os.environ.get(API_KEY) or None
    if key is None and not _loopback(args.host):
        raise ServeError(
            f"--host {args.host}: listening beyond this machine needs a key: set {API_KEY} "
            "(clients send it as X-API-Key)"
        )
    for flag, value in (("--workers", args.workers), ("--port", args.port)):
        if value < 1:
            raise ServeError(f"{flag} {value}: give a number of 1 or more")
    if args.queue < 0 or args.max_body < 1:
        raise ServeError("--queue takes 0 or more, --max-body 1 or more")
    try:
        import uvicorn

        from dqx_gx.service.paths import DataRoot, PathRefused
        from dqx_gx.service.store import Store, StoreError
    except ImportError as exc:
        raise ServeError(f"serve needs the serve extra: pip install 'dqx-gx[serve]' ({exc})") from None
    from dqx_gx.session import Starting, target

    try:
        data_root = DataRoot.at(args.data_root)
        store = Store(args.db)
    except (PathRefused, StoreError) as exc:
        raise ServeError(str(exc)) from None
    interrupted = store.interrupted()
    if interrupted:
        print(f"note: {interrupted} workload(s) the last stop interrupted are now NOK", file=sys.stderr)
    starting = Starting(target(args.master, args.remote), confs, args.verbose)
    from pathlib import Path

    from dqx_gx.service.app import create_app
    from dqx_gx.service.workloads import Service, Settings

    settings = Settings(data_root, Path(args.gx_dir).resolve(), args.allow_sql, args.workers, args.queue)
    service = Service(settings, store, starting)
    spark: dict[str, str] = {}
    app = create_app(service, api_key=key, max_body=args.max_body, ready=lambda: spark.get("version"))
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            log_level="info" if args.verbose else "warning",
            access_log=bool(args.verbose),
            timeout_graceful_shutdown=30,
        )
    )
    failed: list[BaseException] = []

    def wait_for_spark() -> None:
        try:
            spark["version"] = service.spark().version
        except BaseException as exc:  # Spark cannot start: the server stops with its one line
            failed.append(exc)
            server.should_exit = True

    threading.Thread(target=wait_for_spark, name="dqx-gx-spark-ready", daemon=True).start()
    logging.getLogger("dqx_gx").info("serving on http://%s:%s (data root %s)", args.host, args.port, data_root.root)
    try:
        server.run()
    finally:
        service.shutdown()
        store.close()
    if failed:
        raise failed[0]
    return 0


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
