"""An archive of the classes Spark's JVM loads, so that a JVM this command starts maps them instead.

A local ``validate`` spends most of its start in the JVM, loading and verifying Spark's classes one by
one. HotSpot can write the classes a run loaded to an archive when the JVM exits
(``-XX:ArchiveClassesAtExit``) and map that archive when the next JVM starts
(``-XX:SharedArchiveFile``), which shortens a command's start by seconds (docs/benchmarks.md). Java 19
does this by itself (``-XX:+AutoCreateSharedArchive``); Java 17 does not, so this module keeps the archive:

- one archive per Java installation (17 or 21) and Spark ``jars`` folder, in ``~/.cache/dqx-gx/jvm`` (or
  ``$XDG_CACHE_HOME``), or in the folder ``DQX_GX_CLASS_ARCHIVE`` names; ``DQX_GX_CLASS_ARCHIVE=off``
  turns it off; a folder another user can write to is not used (the JVM runs the classes it maps);
- none where HotSpot would refuse one: a Java agent or module option, a classpath folder that is not
  empty (a Spark distribution's ``conf``), an extended driver classpath, a path Spark's launcher would
  split, Windows (PySpark kills the JVM at exit, before it could write);
- written by the JVM of the *second* command on a machine: the run that writes is slower, and
  its JVM writes for some seconds after the command ends, which a one-shot container (one command, then
  gone) should never pay for;
- written to a part file first and made the archive by a later command, once HotSpot's header is in it
  (HotSpot writes the header last, so a part file with one is whole) and has settled; a part file that has
  none after :data:`GIVE_UP` seconds (a JVM killed while writing) is deleted, and this Java and Spark
  are not tried again for :data:`RETRY` seconds;
- a JVM that does not start with the archive's options is started again without them (and the archive
  not tried for :data:`RETRY` seconds): the archive only saves time, it is never why a command fails;
- an archive no command mapped for 30 days (a Java or Spark since replaced), a part file no command made an
  archive of in a day (its virtual environment removed) and markers 30 days old are deleted when a command
  makes or starts an archive of its own.

HotSpot checks the archive against its own build and the classpath and ignores one that does not match;
its ``cds`` log is turned off, so that check prints nothing into the command's output.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

SETTING = "DQX_GX_CLASS_ARCHIVE"
OFF = frozenset({"off", "0", "false", "no"})
GIVE_UP = 600.0
SETTLE = 2.0
"""Seconds a whole part file is left alone: HotSpot writes the base archive's name just after the header."""
RETRY = 7 * 86400
"""Seconds before a Java and Spark whose archive failed are tried again."""
UNUSED = 30 * 86400
STALE = 86400
"""Seconds after which another key's part file (a large file) is deleted: its JVM ended long ago, and the
command that would have made it an archive never came (a virtual environment since removed)."""
VERSIONS = ("17", "21")
"""Java versions whose archives were tried (Java 25 moves these logs to another tag, which later ones refuse)."""
REFUSED = (
    "-javaagent",
    "-agentlib",
    "-agentpath",
    "-Xshare",
    "-XX:SharedArchiveFile",
    "-XX:ArchiveClassesAtExit",
    "--patch-module",
    "--limit-modules",
    "--upgrade-module-path",
)
MAGIC = bytes.fromhex("a8ab0bf0")  # HotSpot's dynamic archive header starts with 0xf00baba8, little-endian
QUIET = "-Xlog:cds*=off"
WRITE = "-XX:ArchiveClassesAtExit="
MAP = "-XX:SharedArchiveFile="

log = logging.getLogger(__name__)


def java_options(
    spark_home: str,
    confs: Mapping[str, str] | None = None,
    environ: Mapping[str, str] = os.environ,
    now: float | None = None,
) -> list[str]:
    """The options that make the JVM about to start map the archive, or write it; none when neither fits."""
    try:
        return _java_options(spark_home, confs or {}, environ, time.time() if now is None else now)
    except Exception as exc:  # the archive only saves time: it is never why a command fails
        log.info("no class archive: %s", exc)
        return []


def _java_options(spark_home: str, confs: Mapping[str, str], environ: Mapping[str, str], now: float) -> list[str]:
    folder = _folder(environ)
    java = _java(environ)
    jars = Path(spark_home) / "jars"
    if os.name == "nt" or folder is None or java is None or not jars.is_dir():  # Windows: PySpark kills the JVM
        return []
    version = _java_version(java)
    reason = (
        _unarchivable(spark_home, confs, environ)
        or _unspoken(str(folder))
        or (None if version in VERSIONS else f"Java {version}: archives are kept for Java {' and '.join(VERSIONS)}")
    )
    if reason:
        log.info("no class archive: %s", reason)
        return []
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _own(folder):
        log.info("no class archive in %s: another user can write there", folder)
        return []
    return _options(folder, _key(java, jars, version, environ), now)


def _own(folder: Path) -> bool:
    """Whether only this user (or root) can have put files in ``folder``: the JVM runs the classes an archive holds."""
    stat = folder.stat()
    getuid = getattr(os, "getuid", None)  # POSIX; elsewhere the folder's permissions are the system's
    return getuid is None or (stat.st_uid in (getuid(), 0) and not stat.st_mode & 0o022)


def _options(folder: Path, key: str, now: float) -> list[str]:
    archive = folder / f"{key}.jsa"
    if archive.exists():
        with contextlib.suppress(OSError):  # dated when last mapped: what an archive of another Spark is not
            os.utime(archive, (now, now))
        return [f"{MAP}{archive}", QUIET]
    parts = sorted(folder.glob(f"{key}.*.part"))
    writing = False
    for part in parts:
        age, whole = now - part.stat().st_mtime, _whole(part)
        if whole and age > SETTLE:
            with part.open("rb") as file:
                os.fsync(file.fileno())  # on disk before it has the archive's name
            os.replace(part, archive)
            log.info("class archive written: %s", archive)
            for other in parts:  # a second writer's, now not needed
                if other != part:
                    other.unlink(missing_ok=True)
            _forget_unused(folder, now)
            return [f"{MAP}{archive}", QUIET]
        if age > GIVE_UP and not whole:
            part.unlink()
            (folder / f"{key}.failed").touch()
            log.info("class archive %s was never completed; not trying again for %d days", part, RETRY // 86400)
        else:
            writing = True  # another command's JVM is writing it
    failed = folder / f"{key}.failed"
    if failed.exists() and now - failed.stat().st_mtime > RETRY:
        failed.unlink()
    if writing or failed.exists():
        return []
    seen = folder / f"{key}.seen"
    if not seen.exists():
        seen.touch()
        return []
    _forget_unused(folder, now)
    part = folder / f"{key}.{os.getpid()}.part"
    part.touch()  # dated now: a JVM that never writes it is noticed after GIVE_UP
    log.info("this run's JVM writes the class archive %s when it exits", part)
    return [f"{WRITE}{part}", QUIET]


def abandon(options: list[str]) -> None:
    """Forget the part file ``options`` asked a JVM to write, when that JVM did not start."""
    for prefix, path in _named(options):
        if prefix == WRITE:
            path.unlink(missing_ok=True)


def refused(options: list[str]) -> None:
    """A JVM did not start with ``options`` and did without them: forget the part it was to write or the
    archive it was to map, and try no archive for this Java and Spark for :data:`RETRY` seconds."""
    for _, path in _named(options):
        path.unlink(missing_ok=True)
        (path.parent / f"{path.name.split('.', 1)[0]}.failed").touch()


def _named(options: list[str]) -> Iterator[tuple[str, Path]]:
    """The archive or part file each option names, with the option it follows."""
    for option in options:
        for prefix in (WRITE, MAP):
            if option.startswith(prefix):
                yield prefix, Path(option[len(prefix) :])


def _forget_unused(folder: Path, now: float) -> None:
    """Delete what no command will use: archives not mapped for :data:`UNUSED` seconds (a Java or Spark
    replaced), part files older than :data:`STALE` (this command's own were made an archive or given up
    before) and the markers of keys not seen for :data:`UNUSED` seconds."""
    for path in folder.iterdir():
        limit = {".jsa": UNUSED, ".part": STALE, ".seen": UNUSED, ".failed": UNUSED + RETRY}.get(path.suffix)
        with contextlib.suppress(OSError):  # another command may delete it first
            if limit is not None and now - path.stat().st_mtime > limit:
                path.unlink()
                log.info("class archive file unused for %d days, deleted: %s", limit // 86400, path)


def _whole(part: Path) -> bool:
    with part.open("rb") as file:
        return file.read(len(MAGIC)) == MAGIC


def _folder(environ: Mapping[str, str]) -> Path | None:
    setting = environ.get(SETTING, "").strip()
    if setting.lower() in OFF:
        return None
    if setting:
        return Path(setting).expanduser()
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "dqx-gx" / "jvm"


def _java(environ: Mapping[str, str]) -> str | None:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on the PATH."""
    java_home = environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java", path=environ.get("PATH"))
    return os.path.realpath(java) if java and os.path.exists(java) else None


def _java_version(java: str) -> str:
    """The major version in the JDK's ``release`` file (``JAVA_VERSION="17.0.15"`` → ``17``)."""
    release = Path(java).parent.parent / "release"
    text = release.read_text(errors="replace") if release.is_file() else ""
    found = re.search(r'^JAVA_VERSION="(\d+)', text, re.MULTILINE)
    return found.group(1) if found else "of an unknown version"


def _unarchivable(spark_home: str, confs: Mapping[str, str], environ: Mapping[str, str]) -> str | None:
    """Why HotSpot would refuse to write or map an archive for this JVM, or None: a Java agent or module
    option (HotSpot will not archive with them), or a classpath folder that is not empty (HotSpot refuses
    those; Spark puts its conf folder first)."""
    for name in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "SPARK_SUBMIT_OPTS"):
        if any(word.startswith(REFUSED) for word in environ.get(name, "").split()):
            return f"${name} gives the JVM an agent or module option"
    if any(word.startswith(REFUSED) for word in confs.get("spark.driver.defaultJavaOptions", "").split()):
        return "spark.driver.defaultJavaOptions gives the JVM an agent or module option"
    if confs.get("spark.driver.extraClassPath") or environ.get("SPARK_DIST_CLASSPATH"):
        return "the driver's classpath is extended"
    conf = environ.get("SPARK_CONF_DIR") or os.path.join(spark_home, "conf")
    for folder in (conf, environ.get("HADOOP_CONF_DIR"), environ.get("YARN_CONF_DIR")):
        if folder and os.path.isdir(folder) and os.listdir(folder):
            return f"{folder} is on Spark's classpath and not empty"
    return None


def _unspoken(folder: str) -> str | None:
    """Spark's launcher splits the JVM's options at spaces and reads quotes and backslashes."""
    return f"{folder}: a space, quote or backslash in the path" if re.search(r"[\s'\"\\]", folder) else None


def _key(java: str, jars: Path, version: str, environ: Mapping[str, str]) -> str:
    """Names the Java and Spark the archive is for: their files' paths, sizes and dates (the launcher,
    HotSpot's own library, which a JDK updated in place replaces, and Spark's jars), the Java version,
    and the settings that add to Spark's classpath."""
    server = Path(java).parent.parent / "lib" / "server"
    libjvm = [str(server / name) for name in ("libjvm.so", "libjvm.dylib") if (server / name).is_file()]
    parts = [java, str(jars.resolve()), version]
    for path in (*parts[:2], *libjvm):
        stat = os.stat(path)
        parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
    parts += [environ.get(name, "") for name in ("SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR")]
    return "spark-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
