"""The JVM's class archive: when a command maps it, writes it, gives up on it — and a real JVM mapping it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from dqx_gx.session import Target, start_session
from dqx_gx.session.class_archive import GIVE_UP, MAGIC, QUIET, RETRY, SETTING, SETTLE, abandon, java_options, refused
from tests.conftest import EXAMPLES


@pytest.fixture
def spark_home(tmp_path: Path) -> Path:
    home = tmp_path / "spark"
    (home / "jars").mkdir(parents=True)
    (home / "jars" / "spark-core.jar").write_bytes(b"jar")
    return home


def environ(folder: Path, **more: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], SETTING: str(folder), **more}


def whole(part: Path) -> None:
    """What HotSpot leaves when it has written the archive: its header, written last, at the start."""
    part.write_bytes(MAGIC + b"\0" * 60)


def test_the_second_command_writes_the_archive_and_the_next_maps_it(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    env = environ(folder)
    assert java_options(str(spark_home), environ=env) == []  # the first command on this machine: nothing to pay for
    (seen,) = folder.glob("*.seen")
    key = seen.name.removesuffix(".seen")

    writing = java_options(str(spark_home), environ=env)
    part = folder / f"{key}.{os.getpid()}.part"
    assert writing == [f"-XX:ArchiveClassesAtExit={part}", QUIET]
    assert part.exists()
    assert java_options(str(spark_home), environ=env) == []  # its JVM has not written it yet: nobody else starts one

    whole(part)
    assert java_options(str(spark_home), environ=env) == []  # whole, but HotSpot may still be finishing its header
    settled = time.time() + SETTLE + 1
    mapped = [f"-XX:SharedArchiveFile={folder / f'{key}.jsa'}", QUIET]
    assert java_options(str(spark_home), environ=env, now=settled) == mapped
    assert not part.exists()
    assert java_options(str(spark_home), environ=env) == mapped


def test_a_new_archive_deletes_those_unused_for_30_days(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    old, recent = folder / "spark-old.jsa", folder / "spark-recent.jsa"
    for archive, days in ((old, 31), (recent, 29)):
        archive.write_bytes(MAGIC)
        os.utime(archive, (time.time() - days * 86400,) * 2)
    env = environ(folder)
    java_options(str(spark_home), environ=env)
    java_options(str(spark_home), environ=env)
    (part,) = folder.glob("*.part")
    whole(part)
    second = part.with_name(part.name.replace(f".{os.getpid()}.", ".1.", 1))  # another command's, still writing
    second.touch()
    now = time.time() + SETTLE + 1
    mapped = Path(java_options(str(spark_home), environ=env, now=now)[0].removeprefix("-XX:SharedArchiveFile="))
    assert sorted(folder.glob("*.jsa")) == sorted([mapped, recent])
    assert not list(folder.glob("*.part"))  # the second writer's part is not needed any more
    assert now - mapped.stat().st_mtime < 60


def test_part_files_no_command_will_finish_are_deleted(tmp_path: Path, spark_home: Path) -> None:
    """A part file of another key whose JVM ended a day ago (its virtual environment removed) is 160 MB no
    command will make an archive of; one being written, and an archive in use, are left alone."""
    folder = tmp_path / "cache"
    folder.mkdir()
    files = {
        "spark-gone.7.part": 2 * 86400,
        "spark-gone.seen": 31 * 86400,
        "spark-busy.8.part": 3600,
        "spark-busy.seen": 3600,
        "spark-used.jsa": 86400,
    }
    for name, age in files.items():
        (folder / name).write_bytes(MAGIC)
        os.utime(folder / name, (time.time() - age,) * 2)
    env = environ(folder)
    java_options(str(spark_home), environ=env)  # a first command: nothing written, nothing swept
    assert all((folder / name).exists() for name in files)
    assert java_options(str(spark_home), environ=env)[0].startswith("-XX:ArchiveClassesAtExit=")
    assert sorted(p.name for p in folder.iterdir() if p.name in files) == [
        "spark-busy.8.part",
        "spark-busy.seen",
        "spark-used.jsa",
    ]


def test_a_writing_that_never_completes_is_given_up_for_a_week(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    env = environ(folder)
    java_options(str(spark_home), environ=env)
    java_options(str(spark_home), environ=env)
    (part,) = folder.glob("*.part")
    later = time.time() + GIVE_UP + 1
    assert java_options(str(spark_home), environ=env, now=later) == []
    assert not part.exists()
    assert list(folder.glob("*.failed"))
    assert java_options(str(spark_home), environ=env, now=later) == []  # not tried again for this Java and Spark
    (failed,) = folder.glob("*.failed")
    week = failed.stat().st_mtime + RETRY + 1
    assert java_options(str(spark_home), environ=env, now=week)[0].startswith("-XX:ArchiveClassesAtExit=")


def test_options_a_jvm_did_not_start_with_are_not_given_for_a_week(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    env = environ(folder)
    java_options(str(spark_home), environ=env)
    refused(java_options(str(spark_home), environ=env))  # it started without them
    assert not list(folder.glob("*.part")) and list(folder.glob("*.failed"))
    assert java_options(str(spark_home), environ=env) == []
    archive = folder / next(folder.glob("*.failed")).name.replace(".failed", ".jsa")
    archive.write_bytes(MAGIC)  # an archive a JVM would not start with: deleted
    refused([f"-XX:SharedArchiveFile={archive}", QUIET])
    assert not archive.exists()


def test_a_jvm_that_did_not_start_leaves_no_part(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    env = environ(folder)
    java_options(str(spark_home), environ=env)
    options = java_options(str(spark_home), environ=env)
    abandon(options)
    assert not list(folder.glob("*.part"))
    assert java_options(str(spark_home), environ=env)[0].startswith("-XX:ArchiveClassesAtExit=")  # the next one writes


def test_another_spark_or_java_has_an_archive_of_its_own(tmp_path: Path, spark_home: Path) -> None:
    folder = tmp_path / "cache"
    env = environ(folder)
    java_options(str(spark_home), environ=env)
    (spark_home / "jars" / "delta-spark.jar").write_bytes(b"another jar")  # the jars folder changed
    assert java_options(str(spark_home), environ=env) == []  # a first command again: seen, not written
    assert len(list(folder.glob("*.seen"))) == 2
    conf = tmp_path / "conf"
    conf.mkdir()
    assert java_options(str(spark_home), environ={**env, "SPARK_CONF_DIR": str(conf)}) == []
    assert len(list(folder.glob("*.seen"))) == 3


def test_a_jdk_updated_in_place_has_an_archive_of_its_own(tmp_path: Path, spark_home: Path) -> None:
    """HotSpot rejects an archive another build wrote, silently: the key names its library's date."""
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    (jdk / "lib" / "server").mkdir(parents=True)
    (jdk / "bin" / "java").write_bytes(b"launcher")
    (jdk / "release").write_text('JAVA_VERSION="17.0.15"\n')
    libjvm = jdk / "lib" / "server" / "libjvm.so"
    libjvm.write_bytes(b"hotspot 17.0.15")
    env = environ(tmp_path / "cache", JAVA_HOME=str(jdk))
    java_options(str(spark_home), environ=env)
    libjvm.write_bytes(b"hotspot 17.0.16, updated")  # same launcher, same major version
    java_options(str(spark_home), environ=env)
    assert len(list((tmp_path / "cache").glob("*.seen"))) == 2


@pytest.mark.parametrize(
    ("more", "confs"),
    [
        ({"JAVA_TOOL_OPTIONS": "-javaagent:/opt/agent.jar"}, {}),
        ({"SPARK_SUBMIT_OPTS": "-Xmx1g -agentpath:/opt/libagent.so"}, {}),
        ({}, {"spark.driver.defaultJavaOptions": "--patch-module java.base=x.jar"}),
        ({}, {"spark.driver.extraClassPath": "/opt/extra.jar"}),
        ({"SPARK_DIST_CLASSPATH": "/opt/hadoop/*"}, {}),
    ],
)
def test_none_where_hotspot_would_refuse_one(
    tmp_path: Path, spark_home: Path, more: dict[str, str], confs: dict[str, str]
) -> None:
    folder = tmp_path / "cache"
    for _ in range(3):
        assert java_options(str(spark_home), confs, environ(folder, **more)) == []
    assert not folder.exists()


def test_none_with_a_spark_conf_folder_that_is_not_empty(tmp_path: Path, spark_home: Path) -> None:
    (spark_home / "conf").mkdir()
    (spark_home / "conf" / "spark-defaults.conf.template").write_text("# a distribution's template\n")
    folder = tmp_path / "cache"
    assert java_options(str(spark_home), environ=environ(folder)) == []
    assert not folder.exists()


def test_none_where_the_launcher_would_split_the_path(tmp_path: Path, spark_home: Path) -> None:
    for name in ("with space", "it's", "back\\slash"):
        assert java_options(str(spark_home), environ=environ(tmp_path / name)) == []
        assert not (tmp_path / name).exists()


def test_none_for_a_java_it_was_not_tried_on(tmp_path: Path, spark_home: Path) -> None:
    java_home = tmp_path / "jdk-25"
    (java_home / "bin").mkdir(parents=True)
    (java_home / "bin" / "java").write_text("#!/bin/sh\n")
    (java_home / "release").write_text('IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="25.0.1"\n')
    folder = tmp_path / "cache"
    assert java_options(str(spark_home), environ=environ(folder, JAVA_HOME=str(java_home))) == []
    (java_home / "release").write_text('JAVA_VERSION="21.0.5"\n')
    assert java_options(str(spark_home), environ=environ(folder, JAVA_HOME=str(java_home))) == []  # seen
    assert list(folder.glob("*.seen"))


@pytest.mark.parametrize("setting", ["off", "OFF", "0", "false"])
def test_off_leaves_the_cache_alone(tmp_path: Path, spark_home: Path, setting: str) -> None:
    env = {"PATH": os.environ["PATH"], SETTING: setting, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert java_options(str(spark_home), environ=env) == []
    assert java_options(str(spark_home), environ=env) == []
    assert not (tmp_path / "xdg").exists()


def test_the_user_cache_by_default(tmp_path: Path, spark_home: Path) -> None:
    env = {"PATH": os.environ["PATH"], "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    java_options(str(spark_home), environ=env)
    assert list((tmp_path / "xdg" / "dqx-gx" / "jvm").glob("spark-*.seen"))


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_no_archive_in_a_folder_others_can_write(tmp_path: Path, spark_home: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    (shared / "planted.jsa").write_bytes(MAGIC)
    assert java_options(str(spark_home), environ=environ(shared)) == []
    assert java_options(str(spark_home), environ=environ(shared)) == []
    assert sorted(p.name for p in shared.iterdir()) == ["planted.jsa"]
    made = tmp_path / "made" / "jvm"
    java_options(str(spark_home), environ=environ(made))
    assert made.stat().st_mode & 0o777 == 0o700


def test_no_archive_where_none_can_be_kept(tmp_path: Path, spark_home: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert java_options(str(spark_home), environ=environ(blocked / "cache")) == []
    assert java_options(str(spark_home), environ=environ(tmp_path / "c", JAVA_HOME=str(tmp_path / "no-java"))) == []
    assert java_options(str(tmp_path / "no-spark"), environ=environ(tmp_path / "c")) == []


@pytest.mark.slow  # three fresh interpreters and JVMs, and the writing of a 150 MB archive
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads the JVM's memory map from /proc")
def test_a_real_jvm_writes_then_maps_the_archive(tmp_path: Path) -> None:
    folder = tmp_path / "jvm"
    command = [
        sys.executable, "-m", "dqx_gx.cli", "validate", str(EXAMPLES / "orders" / "orders.odcs.yaml"),
        "--data", str(EXAMPLES / "orders" / "data" / "good.parquet"), "--now", "2026-11-22T12:00:00Z",
    ]  # fmt: skip
    env = {**os.environ, SETTING: str(folder)}
    env.pop("SPARK_REMOTE", None)
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert first.returncode == 0, first.stderr
    writing = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert (writing.returncode, writing.stdout, writing.stderr) == (0, first.stdout, first.stderr)
    deadline = time.monotonic() + 300
    while not any(part.read_bytes()[: len(MAGIC)] == MAGIC for part in folder.glob("*.part")):
        assert time.monotonic() < deadline, "the JVM never wrote the archive"  # it does after the command ended
        time.sleep(0.5)
    time.sleep(SETTLE + 0.5)  # a whole part is taken once it has settled

    mapping = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    mapped = False
    while mapping.poll() is None and not mapped:
        archives = [str(archive) for archive in folder.glob("*.jsa")]  # made of the part by this command
        mapped = any(a in maps for a in archives for maps in _jvm_maps(f"-XX:SharedArchiveFile={a}"))
        time.sleep(0.1)
    out, err = mapping.communicate(timeout=600)
    assert mapped, "no JVM mapped the archive"
    assert (mapping.returncode, out, err) == (0, first.stdout, first.stderr)  # the same report, nothing more said


def _jvm_maps(option: str) -> list[str]:
    """The memory maps of the running processes started with ``option``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and option.encode() in (proc / "cmdline").read_bytes().split(b"\0"):
                found.append((proc / "maps").read_text())
        except OSError:  # ended meanwhile
            continue
    return found


def test_a_process_that_has_a_jvm_keeps_no_archive(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The options would reach no JVM: the session is the one this process started before (as in a notebook)."""
    monkeypatch.setenv(SETTING, str(tmp_path / "cache"))
    for _ in range(3):
        assert start_session(Target(master="local[2]"), {}, 0).sparkContext is spark.sparkContext
    assert not (tmp_path / "cache").exists()
