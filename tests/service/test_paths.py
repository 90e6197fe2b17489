"""The data root: every way out of it is refused before anything is read, naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from dqx_gx.service.paths import DataRoot, PathRefused


@pytest.fixture
def root(tmp_path: Path) -> DataRoot:
    inside, outside = tmp_path / "root", tmp_path / "outside"
    (inside / "data").mkdir(parents=True)
    outside.mkdir()
    (inside / "data" / "a.csv").write_text("x\n1\n")
    (outside / "secret.csv").write_text("x\n2\n")
    (inside / "out").symlink_to(outside)
    (inside / "mixed").mkdir()
    (inside / "mixed" / "own.csv").write_text("x\n3\n")
    (inside / "mixed" / "theirs.csv").symlink_to(outside / "secret.csv")
    (inside / "here.csv").symlink_to(inside / "data" / "a.csv")
    return DataRoot.at(str(inside))


def test_paths_inside_the_root_are_read_there(root: DataRoot) -> None:
    assert root.requested("data", "data") == str(root.root / "data")
    assert root.requested("data/*.csv", "data") == str(root.root / "data" / "*.csv")
    assert root.requested("here.csv", "data") == str(root.root / "here.csv")  # a link that stays inside
    assert root.server(str(root.root / "data" / "a.csv"), "server") == str(root.root / "data" / "a.csv")
    assert root.server("data", "server") == str(root.root / "data")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("../outside/secret.csv", "'..' is not allowed"),
        ("data/../../outside", "'..' is not allowed"),
        ("/etc/passwd", "not an absolute one"),
        ("s3a://bucket/data", "not a URL"),
        ("file:///etc/passwd", "not a URL"),
        ("out/secret.csv", "leads out of the data root"),
        ("out", "leads out of the data root"),
        ("mixed", "leads out of the data root (through a symbolic link)"),
        ("mixed/*.csv", "leads out of the data root (through a symbolic link)"),
        ("nowhere", "no such file or folder under the data root"),
        ("nothing-*.csv", "no file under the data root matches it"),
        ("", "give a path relative to the data root"),
    ],
)
def test_every_way_out_is_refused_naming_the_field(root: DataRoot, given: str, said: str) -> None:
    with pytest.raises(PathRefused, match=r"^access\.path") as refused:
        root.requested(given, "access.path")
    assert said in str(refused.value)


def test_a_server_path_must_lie_inside_the_root(root: DataRoot, tmp_path: Path) -> None:
    with pytest.raises(PathRefused, match="leads out of the data root"):
        root.server(str(tmp_path / "outside" / "secret.csv"), "server 'x'")
    with pytest.raises(PathRefused, match="reads only files under its data root"):
        root.server("s3://bucket/orders", "server 'x'")
