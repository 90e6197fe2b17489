"""Every path the service reads resolves inside its data root, checked before anything is read.

A path given in a request is relative to the root: an absolute one, one with ``..``, a URL, and one that
leads out of the root through a symbolic link (itself, a folder on the way, or a file inside a folder it
names) are refused. A contract's server path may be absolute when it lies inside the root.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dqx_gx.sources.locate import is_glob


class PathRefused(Exception):
    """A path the service does not read: one line naming the field and why."""


@dataclass(frozen=True)
class DataRoot:
    """The one folder the service reads data from (``--data-root``)."""

    root: Path

    @classmethod
    def at(cls, folder: str) -> DataRoot:
        root = Path(folder).resolve()
        if not root.is_dir():
            raise PathRefused(f"--data-root {folder}: no such folder")
        return cls(root)

    def requested(self, given: str, field: str) -> str:
        """The local path of a request's relative ``given`` (``field`` names it in a refusal)."""
        if not given or not given.strip():
            raise PathRefused(f"{field}: give a path relative to the data root")
        if "://" in given or given.startswith("file:"):
            raise PathRefused(f"{field}: {given!r}: give a path relative to the data root, not a URL")
        if os.path.isabs(given) or PurePosixPath(given).is_absolute():
            raise PathRefused(f"{field}: {given!r}: give a path relative to the data root, not an absolute one")
        if ".." in PurePosixPath(given.replace("\\", "/")).parts:
            raise PathRefused(f"{field}: {given!r}: '..' is not allowed; the data is read inside the data root only")
        return self._inside(self.root / given, given, field)

    def server(self, path: str, field: str) -> str:
        """The local path of a contract server's ``path``: relative to the root, or absolute inside it."""
        if "://" in path and not path.startswith("file://"):
            raise PathRefused(f"{field}: {path!r}: the service reads only files under its data root")
        local = path.removeprefix("file://")
        if not os.path.isabs(local):
            return self.requested(local, field)
        if ".." in PurePosixPath(local).parts:
            raise PathRefused(f"{field}: {path!r}: '..' is not allowed; the data is read inside the data root only")
        return self._inside(Path(local), path, field)

    def _inside(self, candidate: Path, given: str, field: str) -> str:
        """``candidate`` when it, and everything it names, resolves inside the root."""
        found = [Path(p) for p in glob.glob(str(candidate), recursive=True)] if is_glob(str(candidate)) else []
        if is_glob(str(candidate)) and not found:
            raise PathRefused(f"{field}: {given!r}: no file under the data root matches it")
        if not is_glob(str(candidate)):
            if not candidate.exists():
                if candidate.is_symlink() or not self._contains(candidate.parent.resolve()):
                    raise PathRefused(f"{field}: {given!r}: leads out of the data root")
                raise PathRefused(f"{field}: {given!r}: no such file or folder under the data root")
            found = [candidate]
        for path in found:
            for reached in _reached(path):
                if not self._contains(reached.resolve()):
                    raise PathRefused(f"{field}: {given!r}: leads out of the data root (through a symbolic link)")
        return str(candidate)

    def _contains(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents


def _reached(path: Path) -> list[Path]:
    """``path`` and, for a folder, everything under it (following no link: each is checked where it leads)."""
    if not path.is_dir() or path.is_symlink():
        return [path]
    reached = [path]
    for folder, folders, files in os.walk(path):
        reached += [Path(folder) / name for name in (*folders, *files)]
    return reached
