"""Where a contract's data is and how Spark reads it (SPEC §6).

``servers`` (engine-neutral: the ODCS ``servers`` entries and the locations they name),
``untyped`` (CSV and JSON read as text and cast to the declared types), ``reader`` (Spark:
files, folders, globs, catalog tables, one-line errors). Only ``servers`` is imported here, so
loading a contract never imports Spark; :func:`dqx_gx.read_data` is the public entry point.
"""

from __future__ import annotations

from dqx_gx.sources.servers import FORMATS, Files, Location, Server, SourceError, Table

__all__ = ["FORMATS", "Files", "Location", "Server", "SourceError", "Table"]
