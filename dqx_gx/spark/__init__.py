"""Spark without GX: finding a contract's columns in a batch, type fit, and the expressions kinds are built from.

Shared by the GX backend (``dqx_gx.expectations``), the row gate (``dqx_gx.rows``) and the readers
(``dqx_gx.sources``). Importing this package imports nothing; its modules import PySpark.
"""
