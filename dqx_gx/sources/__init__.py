"""Where a contract's data is and how Spark reads it (docs/semantics.md, 'Data in').

``choices`` (the formats and the error, importing nothing), ``servers`` (engine-neutral: the locations
the contract's ODCS ``servers`` name), ``untyped`` (CSV and JSON read as text and cast
to the declared types), ``reader`` (Spark: files, folders, globs, catalog tables, one-line errors).
Importing this package imports nothing, so the CLI's help never loads Spark or dqlib;
:func:`dqx_gx.read_data` is the public entry point.
"""
