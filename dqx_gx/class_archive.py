"""An archive of the classes Spark's JVM loads, so that a JVM this command starts maps them instead.

A local ``validate`` spends most of its start in the JVM, loading and verifying Spark's classes one by
one. HotSpot can write the classes a run loaded to an archive when the JVM exits
(``-XX:ArchiveClassesAtExit``) and map that archive when the next JVM starts
(``-XX:SharedArchiveFile``): on 2 cores, the README example's validate takes about 2.5 s less. Java 19
does this by itself (``-XX:+AutoCreateSharedArchive``); Java 17 does not, so this module keeps the archive:

- one archive per Java installation and Spark ``jars`` folder, in ``~/.cache/dqx-gx/jvm`` (or
  ``$XDG_CACHE_HOME``), or in the folder ``DQX_GX_CLASS_ARCHIVE`` names; ``DQX_GX_CLASS_ARCHIVE=off``
  turns it off; a folder another user can write to is not used (the JVM runs the classes it maps);
- written by the JVM of the *second* command on a machine: the run that writes is about 4 s slower, and
  its JVM writes for some seconds after the command ends, which a one-shot container (one command, then
  gone) should never pay for;
- written to a part file first and made the archive by a later command, once HotSpot's header is in it
  (HotSpot writes the header last, so a part file with one is whole); a part file that has none after
  :data:`GIVE_UP` seconds (a JVM killed while writing, a classpath HotSpot cannot archive) is deleted
  and this Java and Spark are not tried again;
- an archive no command mapped for 30 days (a Java or Spark since replaced) is deleted when a new one is made.

HotSpot checks the archive against its own build and the classpath and ignores one that does not match;
its ``cds`` log is turned off, so that check prints nothing into the command's output.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

SETTING = "DQX_GX_CLASS_ARCHIVE"
OFF = frozenset({"off", "0", "false", "no"})
GIVE_UP = 600.0
UNUSED = 30 * 86400
MAGIC = bytes.fromhex("a8ab0bf0")  # HotSpot's dynamic archive header starts with 0xf00baba8, little-endian
QUIET = "-Xlog:cds*=off"
WRITE = "-XX:ArchiveClassesAtExit="

log = logging.getLogger(__name__)


def java_options(spark_home: str, environ: Mapping[str, str] = os.environ, now: float | None = None) -> list[str]:
    """The options that make the JVM about to start map the archive, or write it; none when neither fits."""
    folder = _folder(environ)
    key = _key(spark_home, environ)
    if folder is None or key is None:
        return []
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _own(folder):
            log.info("no class archive in %s: another user can write there", folder)
            return []
        return _options(folder, key, time.time() if now is None else now)
    except OSError as exc:  # a read-only home, a full disk: start as if there were no archive
        log.info("no class archive in %s: %s", folder, exc)
        return []


def _own(folder: Path) -> bool:
    """Whether only this user can have put files in ``folder``: the JVM runs the classes an archive holds."""
    stat = folder.stat()
    getuid = getattr(os, "getuid", None)  # POSIX; elsewhere the folder's permissions are the system's
    return getuid is None or (stat.st_uid == getuid() and not stat.st_mode & 0o022)


def _options(folder: Path, key: str, now: float) -> list[str]:
    archive = folder / f"{key}.jsa"
    if archive.exists():
        with contextlib.suppress(OSError):  # dated when last mapped: what an archive of another Spark is not
            os.utime(archive, (now, now))
        return [f"-XX:SharedArchiveFile={archive}", QUIET]
    writing = False
    for part in sorted(folder.glob(f"{key}.*.part")):
        if _whole(part):
            os.replace(part, archive)
            log.info("class archive written: %s", archive)
            _forget_unused(folder, now)
            return [f"-XX:SharedArchiveFile={archive}", QUIET]
        if now - part.stat().st_mtime > GIVE_UP:
            part.unlink()
            (folder / f"{key}.failed").touch()
            log.info("class archive %s was never completed; not trying again", part)
        else:
            writing = True  # another command's JVM is writing it
    seen = folder / f"{key}.seen"
    if writing or (folder / f"{key}.failed").exists():
        return []
    if not seen.exists():
        seen.touch()
        return []
    part = folder / f"{key}.{os.getpid()}.part"
    part.touch()  # dated now: a JVM that never writes it is noticed after GIVE_UP
    log.info("this run's JVM writes the class archive %s when it exits", part)
    return [f"{WRITE}{part}", QUIET]


def abandon(options: list[str]) -> None:
    """Forget the part file ``options`` asked a JVM to write, when that JVM did not start."""
    for option in options:
        if option.startswith(WRITE):
            Path(option[len(WRITE) :]).unlink(missing_ok=True)


def _forget_unused(folder: Path, now: float) -> None:
    """Delete the archives no command mapped for :data:`UNUSED` seconds: those of a Java or Spark replaced."""
    for archive in folder.glob("*.jsa"):
        if now - archive.stat().st_mtime > UNUSED:
            archive.unlink()
            log.info("class archive unused for %d days, deleted: %s", UNUSED // 86400, archive)


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


def _key(spark_home: str, environ: Mapping[str, str]) -> str | None:
    """Names the Java and Spark the archive is for: their files' paths, sizes and dates, and the settings
    that add to Spark's classpath. None when no ``java`` is found (Spark will say so itself)."""
    java_home = environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java", path=environ.get("PATH"))
    jars = Path(spark_home) / "jars"
    if not java or not os.path.exists(java) or not jars.is_dir():
        return None
    parts = [os.path.realpath(java), str(jars.resolve())]
    for path in parts[:2]:
        stat = os.stat(path)
        parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
    parts += [environ.get(name, "") for name in ("SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR")]
    parts.append(environ.get("SPARK_DIST_CLASSPATH", ""))
    return "spark-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
