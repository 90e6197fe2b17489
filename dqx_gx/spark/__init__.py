"""Spark without GX: finding a contract's columns in a batch, type fit, the expressions kinds are built from,
the rows each row-level rule marks (``marks``) and the failed-row samples a run shows (``samples``).

Shared by the GX backend (``dqx_gx.expectations``), the run, the row gate (``dqx_gx.rows``) and the readers
(``dqx_gx.sources``). Importing this package imports nothing; its modules import PySpark.
"""
