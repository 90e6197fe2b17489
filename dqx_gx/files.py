"""Files written whole: a reader sees the old file or the new one, never a mix, and a killed run leaves
nothing half-written."""

from __future__ import annotations

import contextlib
import os
import secrets


def write_atomically(path: str | os.PathLike[str], data: bytes) -> bool:
    """Write ``data`` to ``path`` through a synced temporary sibling renamed over it.

    A file that already holds exactly ``data`` is left untouched (its mtime kept), so
    regenerating an unchanged project changes nothing. New files get the mode the
    process's umask gives (the temporary file is created with 0o666, as ``open`` would).
    Returns whether the file was written.
    """
    target = os.fspath(path)
    with contextlib.suppress(OSError), open(target, "rb") as existing:
        if existing.read(len(data) + 1) == data:
            return False
    directory = os.path.dirname(target) or "."
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)  # an existing file keeps its mode
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return True
