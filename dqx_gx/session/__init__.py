"""The Spark session and logging of the ``dqx-gx`` command: local, a cluster's master, or Spark Connect.

Nothing here touches ``sparkContext``, ``_jvm`` or ``_jsc``: a Spark Connect session has none, so
Spark's logging is quietened by configuration (a log4j file and ``spark.log.level`` for a JVM this
process starts; a Connect server's logs are the server's). Endpoints are checked to answer before
Spark is asked, because Spark retries an unreachable master or Connect server for minutes.
PySpark is imported only when a session is started, so the command's help and ``lint`` do not
pay for it (``translate`` needs GX, which imports PySpark itself).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import re
import socket
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from dqx_gx.errors import first_line
from dqx_gx.session import class_archive

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_MASTER = "local[*]"
CONNECT_PORT = 15002  # Spark Connect's default port, as PySpark assumes it
STANDALONE_PORT = 7077  # a standalone master's default port
ANSWER_TIMEOUT = 5.0  # seconds an endpoint has to accept a connection

# Settings that shorten a JVM start for a short-lived command: no web UI (its Jetty server and
# listeners), no console progress bars; Spark logs errors only unless -v. --conf overrides them.
_JVM_SETTINGS = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
# Spark keeps 100 generated classes by default, a few contracts' worth: a server or a command running
# several contracts on one session would compile them again run after run. 1,000 keeps dozens of contracts'
# code; the setting is fixed when a JVM starts, so a Connect server's is the server's.
_CODE_CACHE = {"spark.sql.codegen.cache.maxEntries": "1000"}
_QUIET = {"spark.log.level": "ERROR"}
# Spark 4.1 reads Parquet TIME(MICROS) columns (as other tools write them) only with its TIME type on.
_READ_SETTINGS = {"spark.sql.timeType.enabled": "true"}
# The JVMs' own zone, which Spark's ORC writer stores instants in as wall-clock times (not the session
# zone): in UTC, an ORC output reads back as the same instants through pyarrow whatever the machine's zone.
_UTC = "-Duser.timezone=UTC"
_DRIVER_OPTIONS = "spark.driver.extraJavaOptions"
_INCUBATOR_WARNING = b"WARNING: Using incubator modules: jdk.incubator.vector"
# The master URLs Spark 4 accepts (SparkSubmit and SparkContext), checked before a JVM starts:
# Spark's own refusal comes as a Java stack trace from the launcher.
_MASTER_URL = re.compile(r"local(\[(\*|\d+)(,\s*\d+)?\])?|local-cluster\[\d+(,\s*\d+){2}\]|spark://\S+|yarn|k8s://\S+")
_TOKEN = re.compile(r"(;\s*token=)[^;]*", re.IGNORECASE)
_MASTER_FORMS = "local, local[N], local[*], local[N,RETRIES], spark://HOST:PORT, yarn or k8s://URL"


class SparkStartError(Exception):
    """Spark cannot start as asked: a master it refuses, an endpoint nobody answers at."""


@dataclass(frozen=True)
class Target:
    """Where the command's Spark runs: a master URL (local or cluster) or a Spark Connect URL."""

    master: str | None = None
    remote: str | None = None
    origin: str = "--master"  # the flag or variable that named it, for messages

    @property
    def is_connect(self) -> bool:
        return self.remote is not None

    @property
    def shown(self) -> str:
        """The URL as messages quote it: a Spark Connect token's value hidden."""
        return hide_token(self.remote or self.master or "")


def target(master: str | None, remote: str | None) -> Target:
    """The target named by ``--master``, ``--remote`` or ``SPARK_REMOTE`` (local[*] when none is)."""
    from_env = os.environ.get("SPARK_REMOTE") or None
    if master and (remote or from_env):
        other = "--remote" if remote else "SPARK_REMOTE"
        raise SparkStartError(f"--master {master} and {other} both name a Spark: give one (unset SPARK_REMOTE)")
    if remote or from_env:
        url = remote or from_env
        assert url is not None
        origin = "--remote" if remote else "SPARK_REMOTE"
        if not url.startswith("sc://"):
            raise SparkStartError(f"{origin} {hide_token(url)}: a Spark Connect URL starts with sc:// (sc://host:port)")
        return Target(remote=url, origin=origin)
    if master and not _MASTER_URL.fullmatch(master):
        raise SparkStartError(f"--master {master}: Spark takes {_MASTER_FORMS}")
    return Target(master=master or LOCAL_MASTER, origin="--master")


def start_session(where: Target, confs: Mapping[str, str], verbose: int) -> SparkSession:
    """A Spark session at ``where`` with the user's ``confs``; raises SparkStartError in one line.

    Call :func:`require_answer` first: Spark would retry an endpoint that does not answer.
    """
    import pyspark
    from pyspark.sql import SparkSession

    archive: list[str] = []
    if not where.is_connect and _DRIVER_OPTIONS not in confs and _starts_a_jvm():  # the user's own replace ours
        archive = class_archive.java_options(os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__), confs)
    try:
        spark = _started(SparkSession.builder, where, confs, verbose, archive)
    except Exception as exc:
        if archive:  # the archive only saves time: start without it, and forget it if that was the trouble
            class_archive.abandon(archive)
            with contextlib.suppress(Exception):
                spark = _started(SparkSession.builder, where, confs, verbose, [])
                class_archive.refused(archive)
                return spark
        if verbose:
            raise
        raise SparkStartError(f"{where.origin} {where.shown}: Spark refuses it: {first_line(exc)}") from None
    return spark


def _started(
    builder: SparkSession.Builder, where: Target, confs: Mapping[str, str], verbose: int, archive: list[str]
) -> SparkSession:
    settings: dict[str, str] = {}
    if where.is_connect:
        assert where.remote is not None
        builder = builder.remote(where.remote)
    else:
        assert where.master is not None
        builder = builder.master(where.master).appName("dqx-gx")
        settings |= _JVM_SETTINGS | _CODE_CACHE
        driver = [_UTC]
        if not verbose:
            settings |= _QUIET
            quiet = resources.files("dqx_gx").joinpath("resources", "log4j2-quiet.properties")
            driver.append(f"-Dlog4j2.configurationFile={quiet}")
        settings |= {_DRIVER_OPTIONS: " ".join([*driver, *archive]), "spark.executor.extraJavaOptions": _UTC}
    settings |= confs
    for key, value in settings.items():
        builder = builder.config(key, value)
    with contextlib.nullcontext() if where.is_connect else _without_incubator_warning():
        spark = builder.getOrCreate()
    spark.version  # noqa: B018  a Connect session is lazy: one round trip proves the server speaks
    for key, value in _READ_SETTINGS.items():
        if key not in confs:
            spark.conf.set(key, value)
    return spark


def _starts_a_jvm() -> bool:
    """Whether getOrCreate will launch a JVM: not when this process has one already (PySpark keeps its
    gateway after a session stops) or is handed one (``PYSPARK_GATEWAY_PORT``, as notebooks do)."""
    from pyspark import SparkContext

    return SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ


@contextlib.contextmanager
def _without_incubator_warning() -> Iterator[None]:
    """Start the JVM with its standard error passed through a filter that drops one line.

    Spark's launcher always adds ``--add-modules=jdk.incubator.vector`` (``JavaModuleOptions``), and
    the JDK prints ``WARNING: Using incubator modules: jdk.incubator.vector`` for it with
    ``System.err.println`` (``ModuleBootstrap``): no JVM option turns it off. The JVM inherits this
    process's file descriptor 2 when it starts, so for that moment descriptor 2 is a pipe; a thread
    copies everything else written to it, by the JVM for its whole life and by Python meanwhile, to
    the real standard error.
    """
    try:
        sys.stderr.flush()
        real = os.dup(2)
        read_end, write_end = os.pipe()
    except (OSError, ValueError):  # no descriptor 2 (an embedding host): nothing to filter
        yield
        return
    threading.Thread(target=_copy_stderr, args=(read_end, real), name="dqx-gx-jvm-stderr", daemon=True).start()
    os.dup2(write_end, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(real, 2)
        os.close(write_end)


def _copy_stderr(read_end: int, real: int) -> None:
    with os.fdopen(read_end, "rb", buffering=0) as pipe, os.fdopen(real, "wb", buffering=0) as out:
        for line in iter(pipe.readline, b""):
            if line.rstrip() != _INCUBATOR_WARNING:
                out.write(line)


def hide_token(url: str) -> str:
    """``url`` with the value of a Spark Connect ``;token=`` parameter replaced by ``***``."""
    return _TOKEN.sub(r"\1***", url)


def require_answer(where: Target) -> None:
    """Refuse a Spark Connect or standalone endpoint that accepts no connection, in seconds."""
    if where.is_connect:
        assert where.remote is not None
        endpoints = [_host_port(where.remote, CONNECT_PORT)]
        what = "Spark Connect server"
    elif where.master and where.master.startswith("spark://"):
        endpoints = [
            _host_port(f"spark://{part}", STANDALONE_PORT) for part in where.master[len("spark://") :].split(",")
        ]
        what = "Spark master"
    else:
        return
    problems = []
    for host, port in endpoints:
        try:
            with socket.create_connection((host, port), timeout=ANSWER_TIMEOUT):
                return
        except OSError as exc:
            problems.append(f"{host}:{port} ({exc.strerror or exc})")
    raise SparkStartError(
        f"{where.origin} {where.shown}: no {what} answers at {', '.join(problems)}; start it or correct the URL"
    )


def _host_port(url: str, default_port: int) -> tuple[str, int]:
    parts = urlsplit(url.split(";", 1)[0])
    try:
        port = parts.port or default_port
    except ValueError:
        raise SparkStartError(f"{url}: the port is not a number") from None
    if not parts.hostname:
        raise SparkStartError(f"{url}: no host (expected {parts.scheme}://host:port)")
    return parts.hostname, port


def configure_logging(verbose: int) -> None:
    """Python logging for the command: dqx-gx's INFO with -v, GX's and py4j's only with -vv."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("dqx_gx").setLevel(logging.INFO if verbose else logging.WARNING)
    gx_level = logging.DEBUG if verbose > 1 else logging.ERROR
    logging.getLogger("great_expectations").setLevel(gx_level)
    # GX pins this one module's logger at INFO ("Created temporary directory ... for ephemeral docs site").
    logging.getLogger("great_expectations.data_context.types.base").setLevel(gx_level)
    logging.getLogger("py4j").setLevel(logging.WARNING if verbose > 1 else logging.ERROR)
    # DataHub's GX plugin and emitter (--notify datahub:), and its HTTP retries: what was not published is
    # said in one line (NotDelivered)
    for name in ("datahub", "datahub_gx_plugin", "urllib3"):
        logging.getLogger(name).setLevel(gx_level)


QUERY_CONTEXT_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
"""PySpark's loggers of an analysis error's query context (``pyspark.errors.exceptions.base``)."""


def quiet_query_contexts(verbose: int) -> None:
    """PySpark logs each analysis error as a JSON line on stderr, through loggers of its own class and
    handler (PySpark 4.0 on; 3.5 logs none). A rule whose expression Spark refused reports the error in its
    result, so these lines show only with ``-v``."""
    from dqx_gx.spark_versions import pyspark_logger

    for name in QUERY_CONTEXT_LOGGERS:
        if logger := pyspark_logger(name):
            logger.setLevel(logging.ERROR if verbose else logging.CRITICAL)


class Starting:
    """A session started on its own thread while the caller loads what the run needs.

    Most of a local start is the JVM's (launched as a child process, waited on with the GIL
    released), so it overlaps Python's imports of GX and dqlib on the caller's thread. The modules the
    session's thread would import are imported on the caller's thread instead: two threads importing the
    same modules at once can meet in a circular import, which then fails.
    """

    def __init__(self, where: Target, confs: Mapping[str, str], verbose: int) -> None:
        require_answer(where)  # on the caller's thread: a wrong URL fails at once
        import pyspark.sql

        quiet_query_contexts(verbose)

        if where.is_connect:
            import pyspark.sql.connect.session  # noqa: F401  the Connect client, which GX imports too

        self._session: SparkSession | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._start, args=(where, confs, verbose), name="dqx-gx-spark-start", daemon=True
        )
        self._thread.start()
        # PySpark's first call into the JVM imports pyspark.testing.utils on 4.x (its numpy converter asks it
        # whether numpy is installed), and with it pandas, pyarrow and protobuf: most of a second, taken here
        # while the JVM boots instead of on the session's path once it has.
        from dqx_gx.spark_versions import FIRST_CALL_IMPORTS

        for module in FIRST_CALL_IMPORTS:
            importlib.import_module(module)

    def _start(self, where: Target, confs: Mapping[str, str], verbose: int) -> None:
        try:
            self._session = start_session(where, confs, verbose)
        except BaseException as exc:  # handed to the caller's thread by session()
            self._error = exc

    def session(self) -> SparkSession:
        """The started session; raises what starting it raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._session is not None
        # Spark reads SQL settings (--conf spark.sql.*) from the calling thread's active session and makes a
        # session active only on the thread that built it: without this, plans made here see the defaults
        # (measured: a TIME column read fine, then every rule failed UNSUPPORTED_TIME_TYPE). createDataFrame
        # is the public call that makes it active here; an empty one runs no job.
        self._session.createDataFrame([], "active int")
        return self._session
