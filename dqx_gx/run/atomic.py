"""Atomic file writes for GX file projects while dqx-gx writes to them.

GX's filesystem store writes each file in place (``open(path, "wb")``), so a run
killed in the middle of a write leaves half a suite or checkpoint behind. Inside
:func:`atomic_writes` every such file is written to a temporary sibling, synced,
and renamed over its target: a reader sees the old file or the new one, never a
mix. Only the way bytes reach disk changes — same paths, same content.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

from great_expectations.data_context.store.tuple_store_backend import TupleFilesystemStoreBackend

_GX_SET = TupleFilesystemStoreBackend._set


def _atomic_set(self: TupleFilesystemStoreBackend, key: Any, value: Any, **kwargs: Any) -> str:
    """GX's ``TupleFilesystemStoreBackend._set``, writing through a temporary file and a rename."""
    if not isinstance(key, tuple):
        key = key.to_tuple()
    path = os.path.join(self.full_base_directory, self._convert_key_to_filepath(key))  # type: ignore[no-untyped-call]
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    data = value.encode("utf-8") if isinstance(value, str) else value
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".dqx-gx-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return path


class _AtomicWrites:
    """Swaps the atomic ``_set`` in while any block is open: re-entrant and thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open_blocks = 0

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._open_blocks == 0:
                TupleFilesystemStoreBackend._set = _atomic_set  # type: ignore[method-assign]
            self._open_blocks += 1
        try:
            yield
        finally:
            with self._lock:
                self._open_blocks -= 1
                if self._open_blocks == 0:
                    TupleFilesystemStoreBackend._set = _GX_SET  # type: ignore[method-assign]


atomic_writes = _AtomicWrites()
"""``with atomic_writes():`` — GX's filesystem stores write atomically inside the block."""
